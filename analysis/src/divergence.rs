//! Divergence over the CFG: which variables may differ between the threads of a block (or the lanes of
//! a warp), and which blocks may run with only part of them.
//!
//! - Uniform sources: constants, parameters, block index / size, grid size; the warp index at warp
//!   scope or in a one-warp block; loads from read-only global memory at a uniform address; shared
//!   loads at a uniform address of memory settled by a barrier (`settled.rs`); ballot and
//!   vote results at warp scope or in a one-warp block; an index shuffle from a uniform lane there too
//!   (a broadcast).
//! - Divergent sources: thread index and lane id; loads from writable, shared or unknown memory;
//!   atomics; other shuffles and match results; instructions the front end does not model.
//! - Propagation: through every operand; a guarded instruction whose guard is divergent; a variable
//!   written in a divergent block when it has more than one definition (its value after the join
//!   depends on the path each thread took).
//! - Control: a block is divergent when it is control dependent on a branch whose condition is
//!   divergent or whose own block is divergent. This covers divergent `if`s, divergent loop trip counts
//!   (the body depends on the exit branch) and divergent early exits (code after an `if (…) return`
//!   depends on that branch).
//!
//! Each fact carries its cause, so diagnostics can say "divergent because of the branch at line 21 on
//! %p1, which depends on %tid.x".

use std::collections::HashSet;

use crate::control::control_dependence;
use crate::program::{Collective, Location, Op, Program, Special, Terminator, Var};

/// Which threads must agree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// All threads of a block.
    Block,
    /// The lanes of each warp.
    Warp,
}

/// Why a variable is divergent: where it is defined, and the reason there. Reasons point at the
/// variable or block that made it divergent, so a cause is words only when a finding prints it.
#[derive(Clone, Debug)]
struct VarCause {
    at: Location,
    why: VarWhy,
}

#[derive(Clone, Debug)]
enum VarWhy {
    /// A divergent source (`%tid.x`, a load other threads may write, …), with the place it names.
    Source(&'static str, Option<Location>),
    /// An instruction the front end does not model.
    Unmodelled(String),
    /// A divergent operand.
    Operand(Var),
    /// A divergent guard.
    Guard(Var),
    /// An index shuffle from a divergent lane.
    ShuffleLane(Var),
    /// Written, among other definitions, in a divergent block.
    Joined(usize),
}

/// Why a block runs with only part of the threads.
#[derive(Clone, Copy, Debug)]
enum BlockWhy {
    /// The branch ending block `a` has a divergent condition.
    Branch(usize),
    /// Block `a`, whose branch it depends on, is itself divergent.
    Inherit(usize),
}

/// The result: which variables and blocks are divergent, and why.
#[derive(Clone, Debug)]
pub struct Divergence<'p> {
    p: &'p Program,
    vars: Vec<Option<VarCause>>,
    blocks: Vec<Option<BlockWhy>>,
}

/// The most links of a cause chain printed (the rest is elided).
const CHAIN: usize = 64;

impl Divergence<'_> {
    /// Whether `v` is divergent.
    pub fn var_divergent(&self, v: Var) -> bool {
        self.vars.get(v).is_some_and(Option::is_some)
    }

    /// Whether block `b` (node index) may run with only part of the threads.
    pub fn block_divergent(&self, b: usize) -> bool {
        self.blocks.get(b).is_some_and(Option::is_some)
    }

    /// Why `v` is divergent, if it is.
    pub fn var(&self, v: Var) -> Option<String> {
        self.var_chain(v, CHAIN)
    }

    /// Why block `b` is divergent, if it is.
    pub fn block(&self, b: usize) -> Option<String> {
        self.block_chain(b, CHAIN)
    }

    fn var_chain(&self, v: Var, left: usize) -> Option<String> {
        let c = self.vars.get(v)?.as_ref()?;
        let more = |f: &dyn Fn(usize) -> Option<String>| {
            if left == 0 {
                "…".to_owned()
            } else {
                f(left - 1).unwrap_or_default()
            }
        };
        let reason = match &c.why {
            VarWhy::Source(text, None) => (*text).to_owned(),
            VarWhy::Source(text, Some(at)) => format!("{text} ({at})"),
            VarWhy::Unmodelled(name) => format!("`{name}` at {} is not modelled", c.at),
            VarWhy::Operand(u) => format!(
                "{} is divergent: {}",
                self.p.var_name(*u),
                more(&|l| self.var_chain(*u, l))
            ),
            VarWhy::Guard(g) => format!(
                "its guard {} is divergent ({})",
                self.p.var_name(*g),
                more(&|l| self.var_chain(*g, l))
            ),
            VarWhy::ShuffleLane(u) => format!(
                "a shuffle from a divergent lane ({})",
                more(&|l| self.var_chain(*u, l))
            ),
            VarWhy::Joined(b) => format!(
                "it is written under divergent control ({})",
                more(&|l| self.block_chain(*b, l))
            ),
        };
        Some(format!("{} at {}: {reason}", self.p.var_name(v), c.at))
    }

    fn block_chain(&self, b: usize, left: usize) -> Option<String> {
        match (*self.blocks.get(b)?)? {
            BlockWhy::Branch(a) => {
                let Terminator::Branch { cond, loc } =
                    &self.p.cfg[petgraph::graph::NodeIndex::new(a)].term
                else {
                    return None;
                };
                let c = if left == 0 {
                    "…".to_owned()
                } else {
                    self.var_chain(*cond, left - 1).unwrap_or_default()
                };
                Some(format!(
                    "the branch at {loc} on {} is divergent ({c})",
                    self.p.var_name(*cond)
                ))
            }
            BlockWhy::Inherit(a) if left > 0 => self.block_chain(a, left - 1),
            BlockWhy::Inherit(_) => Some("…".to_owned()),
        }
    }
}

/// Computes divergence at `scope`.
pub fn divergence(p: &Program, scope: Scope) -> Divergence<'_> {
    let settled = if crate::settled::has_shared_loads(p) {
        crate::settled::settled_shared_loads(p, &crate::facts::facts(p))
    } else {
        HashSet::new()
    };
    divergence_with(p, scope, &settled)
}

/// [`divergence`] with the shared loads of settled memory already found (`settled.rs`): the rules
/// compute them once, from the facts they need anyway, for both scopes.
pub(crate) fn divergence_with<'p>(
    p: &'p Program,
    scope: Scope,
    settled: &HashSet<(usize, usize)>,
) -> Divergence<'p> {
    let nvars = p.var_names.len();
    let one_warp = scope == Scope::Warp || p.single_warp();
    let mut defs_count = vec![0usize; nvars];
    for b in p.cfg.node_weights() {
        for i in &b.insts {
            for &d in &i.defs {
                if d < nvars {
                    defs_count[d] += 1;
                }
            }
        }
    }
    let deps = control_dependence(p);
    // Single-definition constants, and values that are `%tid.x` plus a warp-invariant multiple of 32.
    let (tid_exact, const_of) = crate::warp_affine::warp_affine(p, &defs_count);
    // With a warp-aligned block x-dimension (known or assumed), a warp's lanes hold `%tid.x` = 32·w …
    // 32·w + 31: `tid >> k` (k ≥ 5), `tid / 32j`, `tid & m` (m's low 5 bits clear) and comparisons of
    // `tid` with a constant that split only at multiples of 32 (`tid < 32j`, `tid > 32j − 1`, …) agree
    // in every lane of a warp.
    let aligned = p.warp_aligned_x.holds();
    let warp_part = |op: &Op, uses: &[Var]| -> bool {
        use crate::program::{Arith, Cmp};
        if scope != Scope::Warp || !aligned {
            return false;
        }
        let (Some(&x), Some(&y)) = (uses.first(), uses.get(1)) else {
            return false;
        };
        // A warp holds `g` consecutive values of `v` starting at a multiple of `g`: 32 for
        // `%tid.x` plus a warp-invariant multiple of 32, 2^(5-s) for that shifted right by `s`.
        let group = |v: Var| -> Option<u64> {
            tid_exact.get(v).copied().flatten().map(|s| 1u64 << (5 - s))
        };
        let konst = |v: Var| const_of.get(v).copied().flatten();
        // `v < c` splits the warps cleanly when c is a multiple of g; `v <= c` when c + 1 is.
        // `v == c` and `v != c` single out lanes: never a clean split.
        let splits = |cmp: Cmp, c: u64, g: u64| match cmp {
            Cmp::Lt | Cmp::Ge => c % g == 0,
            Cmp::Le | Cmp::Gt => c.wrapping_add(1) % g == 0,
            Cmp::Eq | Cmp::Ne => false,
        };
        let mirrored = |cmp: Cmp| match cmp {
            Cmp::Lt => Cmp::Gt,
            Cmp::Le => Cmp::Ge,
            Cmp::Gt => Cmp::Lt,
            Cmp::Ge => Cmp::Le,
            Cmp::Eq | Cmp::Ne => cmp,
        };
        match (op, konst(y), group(x)) {
            (Op::Arith(Arith::Shr), Some(k), Some(g)) => k >= u64::from(g.trailing_zeros()),
            (Op::Arith(Arith::Div), Some(k), Some(g)) => k > 0 && k % g == 0,
            (Op::Arith(Arith::And), Some(m), Some(g)) => m & (g - 1) == 0,
            (Op::Arith(Arith::Cmp(cmp, _)), Some(c), Some(g)) => splits(*cmp, c, g),
            (Op::Arith(Arith::Cmp(cmp, _)), None, None) => match (konst(x), group(y)) {
                (Some(c), Some(g)) => splits(mirrored(*cmp), c, g),
                _ => false,
            },
            _ => false,
        }
    };
    let mut d = Divergence {
        p,
        vars: vec![None; nvars],
        blocks: vec![None; p.cfg.node_count()],
    };
    loop {
        let mut changed = false;
        for node in p.cfg.node_indices() {
            // Control divergence of this block.
            if d.blocks[node.index()].is_none() {
                for &a in &deps[node.index()] {
                    let Terminator::Branch { cond, .. } = &p.cfg[a].term else {
                        continue;
                    };
                    let why = if d.var_divergent(*cond) {
                        Some(BlockWhy::Branch(a.index()))
                    } else if d.block_divergent(a.index()) {
                        Some(BlockWhy::Inherit(a.index()))
                    } else {
                        None
                    };
                    if why.is_some() {
                        d.blocks[node.index()] = why;
                        changed = true;
                        break;
                    }
                }
            }
            let block_divergent = d.block_divergent(node.index());
            for (k, inst) in p.cfg[node].insts.iter().enumerate() {
                // Nothing to learn from an instruction whose definitions are all divergent already.
                if inst
                    .defs
                    .iter()
                    .all(|&def| def >= nvars || d.vars[def].is_some())
                {
                    continue;
                }
                let operand_cause = || {
                    inst.uses
                        .iter()
                        .find(|&&u| d.var_divergent(u))
                        .map(|&u| VarWhy::Operand(u))
                };
                let source = |text: &'static str| Some(VarWhy::Source(text, None));
                let at = |text: &'static str| Some(VarWhy::Source(text, Some(inst.loc.clone())));
                let source: Option<VarWhy> = match &inst.op {
                    Op::Const(_) | Op::Param | Op::SharedAddr(_) => None,
                    Op::Special(Special::Thread) => source("it depends on the thread index"),
                    Op::Special(Special::ThreadYz) if scope == Scope::Warp && aligned => None,
                    Op::Special(Special::ThreadYz) => {
                        source("it depends on the thread index (y or z)")
                    }
                    Op::Special(Special::Lane | Special::LaneMask) => {
                        source("it depends on the lane id")
                    }
                    Op::Special(Special::Warp) if !one_warp => {
                        source("it depends on the warp index")
                    }
                    Op::Special(_) => None,
                    Op::Arith(_) if warp_part(&inst.op, &inst.uses) => None,
                    Op::Arith(_) => operand_cause(),
                    Op::Load {
                        read_only: true, ..
                    } => operand_cause(),
                    // Settled shared memory at a uniform address: every thread reads the same value.
                    Op::Load { .. } if settled.contains(&(node.index(), k)) => operand_cause(),
                    Op::Load { .. } => at("it is loaded from memory other threads may write"),
                    Op::Atomic { .. } => at("it is an atomic's result"),
                    Op::Collective {
                        kind: Collective::Shuffle { index_mode: true },
                        ..
                    } if one_warp => inst
                        .uses
                        .get(1)
                        .filter(|&&lane| d.var_divergent(lane))
                        .map(|&lane| VarWhy::ShuffleLane(lane)),
                    Op::Collective {
                        kind: Collective::Shuffle { .. } | Collective::Match,
                        ..
                    } => at("a per-lane collective result"),
                    Op::Collective {
                        kind: Collective::Ballot | Collective::Vote,
                        ..
                    } if one_warp => None,
                    Op::Collective { .. } => {
                        source("ballot and vote results are uniform per warp, not per block")
                    }
                    Op::Barrier | Op::Store { .. } => None,
                    Op::Unknown(name) => Some(VarWhy::Unmodelled(name.clone())),
                };
                let guard = inst
                    .guard
                    .filter(|&g| d.var_divergent(g))
                    .map(VarWhy::Guard);
                for &def in &inst.defs {
                    if def >= nvars || d.vars[def].is_some() {
                        continue;
                    }
                    let joined = (defs_count[def] > 1 && block_divergent)
                        .then_some(VarWhy::Joined(node.index()));
                    let cause = source.clone().or_else(|| guard.clone()).or(joined);
                    if let Some(why) = cause {
                        d.vars[def] = Some(VarCause {
                            at: inst.loc.clone(),
                            why,
                        });
                        changed = true;
                    }
                }
            }
        }
        if !changed {
            return d;
        }
    }
}
