//! PTX instruction modifiers (the dotted words after an opcode: `.global`, `.rn`, `.sync`, `.u32`,
//! `.m16n8k16`), as an enum. Data types are [`DataType`]s, matrix shapes are numbers, every modifier
//! a consumer of this crate acts on has a variant of its own, and any other word the parser met is
//! kept as [`Modifier::Unknown`] so that it prints back as written and a consumer can name it in an
//! "unsupported modifier" message. Nothing outside the parser and printer compares modifier text.

use std::fmt;

use crate::parse::{DataType, StateSpace};

macro_rules! modifiers {
    ($($variant:ident = $name:literal,)*) => {
        /// One dotted modifier of an instruction (without its dot).
        #[derive(Clone, Debug, PartialEq, Eq, Hash)]
        pub enum Modifier {
            /// A data type (`.u32`, `.f16x2`, `.pred`).
            Type(DataType),
            /// A matrix shape (`.m16n8k16`; `.m8n8` without `k` for `ldmatrix`).
            Shape {
                /// Rows.
                m: u32,
                /// Columns.
                n: u32,
                /// The reduction depth, when the shape has one.
                k: Option<u32>,
            },
            $(#[doc = concat!("`.", $name, "`")] $variant,)*
            /// A word no variant names, kept as written.
            Unknown(Box<str>),
        }

        impl Modifier {
            /// Every modifier with a name of its own (not types, shapes or unknown words).
            pub const NAMED: &'static [Modifier] = &[$(Modifier::$variant,)*];

            /// The modifier written `name` (without the dot).
            pub fn from_name(name: &str) -> Modifier {
                match name {
                    $($name => Modifier::$variant,)*
                    _ => match DataType::from_name(name) {
                        Some(t) => Modifier::Type(t),
                        None => shape(name).unwrap_or_else(|| Modifier::Unknown(name.into())),
                    },
                }
            }

            fn named(&self) -> Option<&'static str> {
                Some(match self {
                    $(Modifier::$variant => $name,)*
                    _ => return None,
                })
            }
        }
    };
}

modifiers! {
    // state spaces
    Global = "global",
    Shared = "shared",
    SharedCta = "shared::cta",
    SharedCluster = "shared::cluster",
    Local = "local",
    Const = "const",
    Param = "param",
    ParamEntry = "param::entry",
    ParamFunc = "param::func",
    To = "to",
    // rounding
    Rn = "rn",
    Rz = "rz",
    Rm = "rm",
    Rp = "rp",
    Rna = "rna",
    Rs = "rs",
    Rni = "rni",
    Rzi = "rzi",
    Rmi = "rmi",
    Rpi = "rpi",
    // float behaviour
    Ftz = "ftz",
    Sat = "sat",
    Satfinite = "satfinite",
    Approx = "approx",
    Full = "full",
    Relu = "relu",
    Oob = "oob",
    Xorsign = "xorsign",
    Abs = "abs",
    NaN = "NaN",
    // comparisons
    Eq = "eq",
    Ne = "ne",
    Lt = "lt",
    Le = "le",
    Gt = "gt",
    Ge = "ge",
    Lo = "lo",
    Ls = "ls",
    Hi = "hi",
    Hs = "hs",
    Equ = "equ",
    Neu = "neu",
    Ltu = "ltu",
    Leu = "leu",
    Gtu = "gtu",
    Geu = "geu",
    Num = "num",
    Nan = "nan",
    // boolean and atomic operations
    And = "and",
    Or = "or",
    Xor = "xor",
    Add = "add",
    Min = "min",
    Max = "max",
    Inc = "inc",
    Dec = "dec",
    Exch = "exch",
    Cas = "cas",
    Popc = "popc",
    // integer forms
    Wide = "wide",
    Cc = "cc",
    Shiftamt = "shiftamt",
    L = "l",
    R = "r",
    Wrap = "wrap",
    Clamp = "clamp",
    F4e = "f4e",
    B4e = "b4e",
    Rc8 = "rc8",
    Ecl = "ecl",
    Ecr = "ecr",
    Rc16 = "rc16",
    // warp and block collectives
    Sync = "sync",
    Aligned = "aligned",
    Uni = "uni",
    Up = "up",
    Down = "down",
    Bfly = "bfly",
    Idx = "idx",
    All = "all",
    Any = "any",
    Ballot = "ballot",
    Arrive = "arrive",
    Red = "red",
    Warp = "warp",
    // memory: vectors, caching, ordering, scopes
    V2 = "v2",
    V4 = "v4",
    V8 = "v8",
    Nc = "nc",
    Ca = "ca",
    Cg = "cg",
    Cs = "cs",
    Lu = "lu",
    Cv = "cv",
    Wb = "wb",
    Wt = "wt",
    Volatile = "volatile",
    Relaxed = "relaxed",
    Acquire = "acquire",
    Release = "release",
    AcqRel = "acq_rel",
    Sc = "sc",
    Weak = "weak",
    Mmio = "mmio",
    Cta = "cta",
    Cluster = "cluster",
    Gpu = "gpu",
    Sys = "sys",
    Gl = "gl",
    Proxy = "proxy",
    Alias = "alias",
    L1 = "L1",
    L2 = "L2",
    L1EvictNormal = "L1::evict_normal",
    L1EvictUnchanged = "L1::evict_unchanged",
    L1EvictFirst = "L1::evict_first",
    L1EvictLast = "L1::evict_last",
    L1NoAllocate = "L1::no_allocate",
    L2EvictNormal = "L2::evict_normal",
    L2EvictFirst = "L2::evict_first",
    L2EvictLast = "L2::evict_last",
    L2CacheHint = "L2::cache_hint",
    L2Prefetch64B = "L2::64B",
    L2Prefetch128B = "L2::128B",
    L2Prefetch256B = "L2::256B",
    // asynchronous copies and barriers
    Async = "async",
    Bulk = "bulk",
    Tensor = "tensor",
    Tile = "tile",
    Im2col = "im2col",
    Reduce = "reduce",
    Dim1 = "1d",
    Dim2 = "2d",
    Dim3 = "3d",
    Dim4 = "4d",
    Dim5 = "5d",
    CommitGroup = "commit_group",
    WaitGroup = "wait_group",
    WaitAll = "wait_all",
    BulkGroup = "bulk_group",
    MbarrierCompleteTxBytes = "mbarrier::complete_tx::bytes",
    Mbarrier = "mbarrier",
    Noinc = "noinc",
    MbarrierInit = "mbarrier_init",
    Init = "init",
    ArriveDrop = "arrive_drop",
    ExpectTx = "expect_tx",
    CompleteTx = "complete_tx",
    TestWait = "test_wait",
    TryWait = "try_wait",
    PendingCount = "pending_count",
    Inval = "inval",
    Parity = "parity",
    NoComplete = "noComplete",
    LaunchDependents = "launch_dependents",
    Wait = "wait",
    // matrix instructions
    Row = "row",
    Col = "col",
    Tf32 = "tf32",
    E4m3 = "e4m3",
    E5m2 = "e5m2",
    X1 = "x1",
    X2 = "x2",
    X4 = "x4",
    Trans = "trans",
    Load = "load",
    Store = "store",
    Mma = "mma",
    MmaAsync = "mma_async",
    Fence = "fence",
    A = "a",
    B = "b",
    C = "c",
    D = "d",
    // testp
    Finite = "finite",
    Infinite = "infinite",
    Number = "number",
    Notanumber = "notanumber",
    Normal = "normal",
    Subnormal = "subnormal",
}

/// `m16n8k16` / `m8n8` as a [`Modifier::Shape`].
fn shape(name: &str) -> Option<Modifier> {
    let rest = name.strip_prefix('m')?;
    let (m, rest) = rest.split_once('n')?;
    let (n, k) = match rest.split_once('k') {
        Some((n, k)) => (n, Some(k)),
        None => (rest, None),
    };
    let number = |s: &str| -> Option<u32> {
        (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) && !s.starts_with('0'))
            .then(|| s.parse().ok())
            .flatten()
    };
    Some(Modifier::Shape {
        m: number(m)?,
        n: number(n)?,
        k: match k {
            Some(k) => Some(number(k)?),
            None => None,
        },
    })
}

impl Modifier {
    /// The data type, when this is one.
    pub fn data_type(&self) -> Option<DataType> {
        match self {
            Modifier::Type(t) => Some(*t),
            _ => None,
        }
    }

    /// The state space this modifier names (`.shared::cta` and `.shared::cluster` are shared
    /// memory, `.param::entry`/`.param::func` parameter space).
    pub fn space(&self) -> Option<StateSpace> {
        Some(match self {
            Modifier::Global => StateSpace::Global,
            Modifier::Shared | Modifier::SharedCta | Modifier::SharedCluster => StateSpace::Shared,
            Modifier::Local => StateSpace::Local,
            Modifier::Const => StateSpace::Const,
            Modifier::Param | Modifier::ParamEntry | Modifier::ParamFunc => StateSpace::Param,
            _ => return None,
        })
    }

    /// An eviction priority or prefetch size (`.L1::evict_last`, `.L2::128B`): a hint about caching
    /// that changes no result. `.L2::cache_hint` is not one: it adds an operand.
    pub fn is_cache_hint(&self) -> bool {
        matches!(
            self,
            Modifier::L1EvictNormal
                | Modifier::L1EvictUnchanged
                | Modifier::L1EvictFirst
                | Modifier::L1EvictLast
                | Modifier::L1NoAllocate
                | Modifier::L2EvictNormal
                | Modifier::L2EvictFirst
                | Modifier::L2EvictLast
                | Modifier::L2Prefetch64B
                | Modifier::L2Prefetch128B
                | Modifier::L2Prefetch256B
        )
    }
}

impl From<DataType> for Modifier {
    fn from(t: DataType) -> Modifier {
        Modifier::Type(t)
    }
}

impl fmt::Display for Modifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Modifier::Type(t) => f.write_str(t.name()),
            Modifier::Shape { m, n, k: Some(k) } => write!(f, "m{m}n{n}k{k}"),
            Modifier::Shape { m, n, k: None } => write!(f, "m{m}n{n}"),
            Modifier::Unknown(s) => f.write_str(s),
            named => f.write_str(named.named().unwrap_or_default()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Modifier;
    use crate::parse::DataType;

    #[test]
    fn every_form_prints_back_as_read() {
        for text in [
            "global",
            "shared::cta",
            "L2::cache_hint",
            "u32",
            "f16x2",
            "m16n8k16",
            "m8n8",
            "1d",
            "mbarrier::complete_tx::bytes",
            "frobnicate",
            "m0n8k8",
            "mxnyk",
        ] {
            assert_eq!(Modifier::from_name(text).to_string(), text);
        }
        for m in Modifier::NAMED {
            assert_eq!(&Modifier::from_name(&m.to_string()), m);
        }
    }

    #[test]
    fn types_shapes_and_unknown_words_are_told_apart() {
        assert_eq!(Modifier::from_name("b32"), Modifier::Type(DataType::B32));
        let shape = Modifier::Shape {
            m: 16,
            n: 8,
            k: Some(16),
        };
        assert_eq!(Modifier::from_name("m16n8k16"), shape);
        assert!(matches!(
            Modifier::from_name("m0n8k8"),
            Modifier::Unknown(_)
        ));
        assert!(matches!(Modifier::from_name("mnk"), Modifier::Unknown(_)));
        assert!(Modifier::L1EvictLast.is_cache_hint() && !Modifier::L2CacheHint.is_cache_hint());
    }
}
