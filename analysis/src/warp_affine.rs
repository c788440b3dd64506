//! Which values are `%tid.x` plus a warp-invariant multiple of 32 ("warp-affine"): with a block
//! x-dimension that is a multiple of 32, the lanes of a warp hold 32 consecutive such values starting
//! at a multiple of 32, so `v >> 5`, `v / 32k`, `v & ~31` and `v < 32k` agree within each warp. This
//! covers the thread's linear rank in a 3-D block (`(tid.z·ntid.y + tid.y)·ntid.x + tid.x`) and its
//! global index (`ctaid.x·ntid.x + tid.x`). A warp-affine value shifted right by `s` < 5 (compilers
//! fold `(v / 32) * 16` into `(v >> 1) & ~15`) holds, across a warp, 2^(5-s) consecutive values
//! starting at a multiple of 2^(5-s): the same tests apply at that granularity. Only
//! single-definition variables take part; a constant moved into one (`mov.u32 %r1, WARP_SZ`, as
//! nvcc writes `warpSize`) is that constant.

use crate::program::{Arith, Op, Program, Special, Var};

/// What the pre-pass knows of a single-definition variable.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Kind {
    /// The same in every lane of a warp (built from constants, parameters, block-level specials,
    /// `%tid.y`/`%tid.z`, the warp index).
    invariant: bool,
    /// Warp-invariant and a multiple of 32.
    multiple_of_32: bool,
    /// `%tid.x` plus a warp-invariant multiple of 32, shifted right by this many bits (< 5).
    shift: Option<u32>,
}

/// Per variable: the shift `s` when it is a warp-affine value shifted right by `s` (0: warp-affine
/// itself); and each single-definition constant. Nothing is warp-affine unless the block's
/// x-dimension is (known or assumed) a multiple of 32.
pub(crate) fn warp_affine(
    p: &Program,
    defs_count: &[usize],
) -> (Vec<Option<u32>>, Vec<Option<u64>>) {
    let n = p.var_names.len();
    let mut kinds = vec![Kind::default(); n];
    let mut konst: Vec<Option<u64>> = vec![None; n];
    let aligned = p.warp_aligned_x.holds();
    for _ in 0..8 {
        let mut changed = false;
        for b in p.cfg.node_weights() {
            for i in &b.insts {
                let [def] = i.defs[..] else { continue };
                if def >= n || defs_count[def] != 1 || i.guard.is_some() {
                    continue;
                }
                let k =
                    |u: Option<&Var>| u.and_then(|&u| kinds.get(u).copied()).unwrap_or_default();
                let (a, b) = (k(i.uses.first()), k(i.uses.get(1)));
                let c = |u: Option<&Var>| u.and_then(|&u| konst.get(u).copied().flatten());
                // A constant moved into a register (`mov.u32 %r1, WARP_SZ`) is that constant.
                let moved = match &i.op {
                    Op::Arith(Arith::Mov) => c(i.uses.first()),
                    _ => None,
                };
                let new = match &i.op {
                    Op::Const(v) => {
                        konst[def] = Some(*v);
                        Kind {
                            invariant: true,
                            multiple_of_32: v % 32 == 0,
                            shift: None,
                        }
                    }
                    Op::Param => Kind {
                        invariant: true,
                        ..Kind::default()
                    },
                    // `%tid.x` (the PTX front end gives `%tid.y`/`%tid.z` their own special).
                    Op::Special(Special::Thread) => Kind {
                        shift: aligned.then_some(0),
                        ..Kind::default()
                    },
                    Op::Special(Special::ThreadYz | Special::Warp) => Kind {
                        invariant: aligned,
                        ..Kind::default()
                    },
                    Op::Special(Special::Uniform) => Kind {
                        invariant: true,
                        multiple_of_32: aligned && p.var_name(def) == "%ntid.x",
                        shift: None,
                    },
                    Op::Arith(Arith::Mov) => a,
                    Op::Arith(Arith::Add) => Kind {
                        invariant: a.invariant && b.invariant,
                        multiple_of_32: a.multiple_of_32 && b.multiple_of_32,
                        shift: match (a.shift, b.shift) {
                            (Some(0), None) if b.multiple_of_32 => Some(0),
                            (None, Some(0)) if a.multiple_of_32 => Some(0),
                            _ => None,
                        },
                    },
                    Op::Arith(Arith::Mul) => Kind {
                        invariant: a.invariant && b.invariant,
                        multiple_of_32: (a.multiple_of_32 && b.invariant)
                            || (b.multiple_of_32 && a.invariant),
                        shift: None,
                    },
                    Op::Arith(Arith::Shl) => Kind {
                        invariant: a.invariant && b.invariant,
                        multiple_of_32: a.invariant && c(i.uses.get(1)).is_some_and(|s| s >= 5),
                        shift: None,
                    },
                    // An unsigned shift right of a warp-affine value by a constant: shifted further
                    // (5 or more: one value per warp, which `divergence.rs` already sees).
                    Op::Arith(Arith::Shr) => match (a.shift, c(i.uses.get(1))) {
                        (Some(s), Some(k)) if s + (k.min(5) as u32) < 5 => Kind {
                            shift: Some(s + k as u32),
                            ..Kind::default()
                        },
                        _ => Kind {
                            invariant: a.invariant && b.invariant,
                            ..Kind::default()
                        },
                    },
                    Op::Arith(_) => Kind {
                        invariant: i
                            .uses
                            .iter()
                            .all(|&u| kinds.get(u).is_some_and(|k| k.invariant)),
                        ..Kind::default()
                    },
                    _ => Kind::default(),
                };
                if kinds[def] != new {
                    kinds[def] = new;
                    changed = true;
                }
                if moved.is_some() && konst[def] != moved {
                    konst[def] = moved;
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    (kinds.iter().map(|k| k.shift).collect(), konst)
}
