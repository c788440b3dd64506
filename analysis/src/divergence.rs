//! Divergence over the CFG: which variables may differ between the threads of a block (or the lanes of
//! a warp), and which blocks may run with only part of them.
//!
//! - Uniform sources: constants, parameters, block index / size, grid size; the warp index at warp
//!   scope or in a one-warp block; loads from read-only global memory at a uniform address; ballot and
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

use crate::control::control_dependence;
use crate::program::{Collective, Op, Program, Special, Terminator, Var};

/// Which threads must agree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// All threads of a block.
    Block,
    /// The lanes of each warp.
    Warp,
}

/// The result: a cause for every divergent variable and block (`None`: uniform).
#[derive(Clone, Debug)]
pub struct Divergence {
    /// Per variable.
    pub vars: Vec<Option<String>>,
    /// Per block (by node index).
    pub blocks: Vec<Option<String>>,
}

impl Divergence {
    /// Why `v` is divergent, if it is.
    pub fn var(&self, v: Var) -> Option<&str> {
        self.vars.get(v).and_then(|c| c.as_deref())
    }
}

/// Computes divergence at `scope`.
pub fn divergence(p: &Program, scope: Scope) -> Divergence {
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
        let exact = |v: Var| tid_exact.get(v).copied().unwrap_or(false);
        let konst = |v: Var| const_of.get(v).copied().flatten();
        // `tid < c` splits the warps cleanly when c is a multiple of 32; `tid <= c` when c + 1 is.
        // `tid == c` and `tid != c` single out one lane: never a clean split.
        let splits = |cmp: Cmp, c: u64| match cmp {
            Cmp::Lt | Cmp::Ge => c % 32 == 0,
            Cmp::Le | Cmp::Gt => c.wrapping_add(1) % 32 == 0,
            Cmp::Eq | Cmp::Ne => false,
        };
        let mirrored = |cmp: Cmp| match cmp {
            Cmp::Lt => Cmp::Gt,
            Cmp::Le => Cmp::Ge,
            Cmp::Gt => Cmp::Lt,
            Cmp::Ge => Cmp::Le,
            Cmp::Eq | Cmp::Ne => cmp,
        };
        match (op, konst(y)) {
            (Op::Arith(Arith::Shr), Some(k)) => exact(x) && k >= 5,
            (Op::Arith(Arith::Div), Some(k)) => exact(x) && k > 0 && k % 32 == 0,
            (Op::Arith(Arith::And), Some(m)) => exact(x) && m & 31 == 0,
            (Op::Arith(Arith::Cmp(cmp)), Some(c)) if exact(x) => splits(*cmp, c),
            (Op::Arith(Arith::Cmp(cmp)), None) if exact(y) => {
                konst(x).is_some_and(|c| splits(mirrored(*cmp), c))
            }
            _ => false,
        }
    };
    let mut d = Divergence {
        vars: vec![None; nvars],
        blocks: vec![None; p.cfg.node_count()],
    };
    loop {
        let mut changed = false;
        for node in p.cfg.node_indices() {
            // Control divergence of this block.
            if d.blocks[node.index()].is_none() {
                for &a in &deps[node.index()] {
                    let Terminator::Branch { cond, loc } = &p.cfg[a].term else {
                        continue;
                    };
                    let why = match (d.var(*cond), &d.blocks[a.index()]) {
                        (Some(c), _) => Some(format!(
                            "the branch at {loc} on {} is divergent ({c})",
                            p.var_name(*cond)
                        )),
                        (None, Some(c)) => Some(c.clone()),
                        _ => None,
                    };
                    if why.is_some() {
                        d.blocks[node.index()] = why;
                        changed = true;
                        break;
                    }
                }
            }
            let block_cause = d.blocks[node.index()].clone();
            for inst in &p.cfg[node].insts {
                let operand_cause = || {
                    inst.uses.iter().find_map(|&u| {
                        d.var(u)
                            .map(|c| format!("{} is divergent: {c}", p.var_name(u)))
                    })
                };
                let source: Option<String> = match &inst.op {
                    Op::Const(_) | Op::Param | Op::SharedAddr(_) => None,
                    Op::Special(Special::Thread) => Some("it depends on the thread index".into()),
                    Op::Special(Special::ThreadYz) if scope == Scope::Warp && aligned => None,
                    Op::Special(Special::ThreadYz) => {
                        Some("it depends on the thread index (y or z)".into())
                    }
                    Op::Special(Special::Lane) => Some("it depends on the lane id".into()),
                    Op::Special(Special::Warp) if !one_warp => {
                        Some("it depends on the warp index".into())
                    }
                    Op::Special(_) => None,
                    Op::Arith(_) if warp_part(&inst.op, &inst.uses) => None,
                    Op::Arith(_) => operand_cause(),
                    Op::Load {
                        read_only: true, ..
                    } => operand_cause(),
                    Op::Load { .. } => Some(format!(
                        "it is loaded from memory other threads may write ({})",
                        inst.loc
                    )),
                    Op::Atomic { .. } => Some(format!("it is an atomic's result ({})", inst.loc)),
                    Op::Collective {
                        kind: Collective::Shuffle { index_mode: true },
                        ..
                    } if one_warp => inst
                        .uses
                        .get(1)
                        .and_then(|&lane| d.var(lane))
                        .map(|c| format!("a shuffle from a divergent lane ({c})")),
                    Op::Collective {
                        kind: Collective::Shuffle { .. } | Collective::Match,
                        ..
                    } => Some(format!("a per-lane collective result ({})", inst.loc)),
                    Op::Collective {
                        kind: Collective::Ballot | Collective::Vote,
                        ..
                    } if one_warp => None,
                    Op::Collective { .. } => {
                        Some("ballot and vote results are uniform per warp, not per block".into())
                    }
                    Op::Barrier | Op::Store { .. } => None,
                    Op::Unknown(name) => Some(format!("`{name}` at {} is not modelled", inst.loc)),
                };
                let guard = inst.guard.and_then(|g| {
                    d.var(g)
                        .map(|c| format!("its guard {} is divergent ({c})", p.var_name(g)))
                });
                for &def in &inst.defs {
                    if def >= nvars || d.vars[def].is_some() {
                        continue;
                    }
                    let joined = (defs_count[def] > 1)
                        .then(|| block_cause.clone())
                        .flatten()
                        .map(|c| format!("it is written under divergent control ({c})"));
                    let cause = source.clone().or_else(|| guard.clone()).or(joined);
                    if let Some(c) = cause {
                        d.vars[def] = Some(format!("{} at {}: {c}", p.var_name(def), inst.loc));
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
