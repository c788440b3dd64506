//! PTX opcodes: every instruction name of the PTX ISA (through 9.0), as an enum. The parser turns
//! the name it reads into an [`Opcode`], the printer writes [`Opcode::name`] back, and every other
//! crate compares the enum. A name the ISA does not have (a newer PTX, a typo) is kept as
//! [`Opcode::Unknown`]: the linter notes it as unmodelled, the simulator refuses it by name, and
//! ptxas is the one to say whether it exists.

use std::fmt;

macro_rules! opcodes {
    ($($variant:ident = $name:literal,)*) => {
        /// A PTX instruction name (`ld` in `ld.global.u32`).
        #[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Opcode {
            $(#[doc = concat!("`", $name, "`")] $variant,)*
            /// A name the PTX ISA does not have, as written.
            Unknown(Box<str>),
        }

        impl Opcode {
            /// Every opcode of the ISA, in alphabetical order of its name.
            pub const ALL: &'static [Opcode] = &[$(Opcode::$variant,)*];

            /// The opcode named `name` (without modifiers); [`Opcode::Unknown`] when PTX has none.
            pub fn from_name(name: &str) -> Opcode {
                match name {
                    $($name => Opcode::$variant,)*
                    _ => Opcode::Unknown(name.into()),
                }
            }

            /// Its name as PTX writes it.
            pub fn name(&self) -> &str {
                match self {
                    $(Opcode::$variant => $name,)*
                    Opcode::Unknown(name) => name,
                }
            }
        }
    };
}

opcodes! {
    Abs = "abs",
    Activemask = "activemask",
    Add = "add",
    Addc = "addc",
    Alloca = "alloca",
    And = "and",
    Applypriority = "applypriority",
    Atom = "atom",
    Bar = "bar",
    Barrier = "barrier",
    Bfe = "bfe",
    Bfi = "bfi",
    Bfind = "bfind",
    Bmsk = "bmsk",
    Bra = "bra",
    Brev = "brev",
    Brkpt = "brkpt",
    Brx = "brx",
    Call = "call",
    Clusterlaunchcontrol = "clusterlaunchcontrol",
    Clz = "clz",
    Cnot = "cnot",
    Copysign = "copysign",
    Cos = "cos",
    Cp = "cp",
    Createpolicy = "createpolicy",
    Cvt = "cvt",
    Cvta = "cvta",
    Discard = "discard",
    Div = "div",
    Dp2a = "dp2a",
    Dp4a = "dp4a",
    Elect = "elect",
    Ex2 = "ex2",
    Exit = "exit",
    Fence = "fence",
    Fma = "fma",
    Fns = "fns",
    Getctarank = "getctarank",
    Griddepcontrol = "griddepcontrol",
    Isspacep = "isspacep",
    Istypep = "istypep",
    Ld = "ld",
    Ldmatrix = "ldmatrix",
    Ldu = "ldu",
    Lg2 = "lg2",
    Lop3 = "lop3",
    Mad = "mad",
    Mad24 = "mad24",
    Madc = "madc",
    Mapa = "mapa",
    Match = "match",
    Max = "max",
    Mbarrier = "mbarrier",
    Membar = "membar",
    Min = "min",
    Mma = "mma",
    Mov = "mov",
    Movmatrix = "movmatrix",
    Mul = "mul",
    Mul24 = "mul24",
    Multimem = "multimem",
    Nanosleep = "nanosleep",
    Neg = "neg",
    Not = "not",
    Or = "or",
    Pmevent = "pmevent",
    Popc = "popc",
    Prefetch = "prefetch",
    Prefetchu = "prefetchu",
    Prmt = "prmt",
    Rcp = "rcp",
    Red = "red",
    Redux = "redux",
    Rem = "rem",
    Ret = "ret",
    Rsqrt = "rsqrt",
    Sad = "sad",
    Selp = "selp",
    Set = "set",
    Setmaxnreg = "setmaxnreg",
    Setp = "setp",
    Shf = "shf",
    Shfl = "shfl",
    Shl = "shl",
    Shr = "shr",
    Sin = "sin",
    Slct = "slct",
    Sqrt = "sqrt",
    St = "st",
    Stackrestore = "stackrestore",
    Stacksave = "stacksave",
    Stmatrix = "stmatrix",
    Sub = "sub",
    Subc = "subc",
    Suld = "suld",
    Suq = "suq",
    Sured = "sured",
    Sust = "sust",
    Szext = "szext",
    Tanh = "tanh",
    Tcgen05 = "tcgen05",
    Tensormap = "tensormap",
    Testp = "testp",
    Tex = "tex",
    Tld4 = "tld4",
    Trap = "trap",
    Txq = "txq",
    Vabsdiff = "vabsdiff",
    Vabsdiff2 = "vabsdiff2",
    Vabsdiff4 = "vabsdiff4",
    Vadd = "vadd",
    Vadd2 = "vadd2",
    Vadd4 = "vadd4",
    Vavrg2 = "vavrg2",
    Vavrg4 = "vavrg4",
    Vmad = "vmad",
    Vmax = "vmax",
    Vmax2 = "vmax2",
    Vmax4 = "vmax4",
    Vmin = "vmin",
    Vmin2 = "vmin2",
    Vmin4 = "vmin4",
    Vote = "vote",
    Vset = "vset",
    Vset2 = "vset2",
    Vset4 = "vset4",
    Vshl = "vshl",
    Vshr = "vshr",
    Vsub = "vsub",
    Vsub2 = "vsub2",
    Vsub4 = "vsub4",
    Wgmma = "wgmma",
    Wmma = "wmma",
    Xor = "xor",
}

impl fmt::Display for Opcode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::Opcode;

    #[test]
    fn names_round_trip_and_are_sorted() {
        for op in Opcode::ALL {
            assert_eq!(&Opcode::from_name(op.name()), op);
        }
        let names: Vec<&str> = Opcode::ALL.iter().map(|o| o.name()).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        assert_eq!(names, sorted);
        let unknown = Opcode::from_name("frobnicate");
        assert_eq!(unknown, Opcode::Unknown("frobnicate".into()));
        assert_eq!(unknown.to_string(), "frobnicate");
    }
}
