//! Value facts for the bounds and alignment rules: for every variable, a range `[lo, hi]`, a known
//! power-of-two divisor, and (for addresses) which shared array it points into.
//!
//! The analysis is flow-insensitive (one fact per variable, joined over all its definitions) and
//! iterates to a fixpoint; a bound that still moves after a few rounds is widened to the maximum, which
//! is how loop counters become "unknown" rather than looping forever.

use crate::program::{Arith, Op, Program};

/// What is known about a variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fact {
    /// The shared array this is an address into (PTX addresses), if any.
    pub base: Option<usize>,
    /// Smallest possible value (offset from `base` when set).
    pub lo: u64,
    /// Largest possible value.
    pub hi: u64,
    /// A power of two the value is a multiple of.
    pub align: u64,
}

/// Nothing known.
pub const TOP: Fact = Fact {
    base: None,
    lo: 0,
    hi: u64::MAX,
    align: 1,
};

fn low_bit(v: u64) -> u64 {
    if v == 0 {
        1 << 63
    } else {
        1 << v.trailing_zeros()
    }
}

fn constant(v: u64) -> Fact {
    Fact {
        base: None,
        lo: v,
        hi: v,
        align: low_bit(v),
    }
}

impl Fact {
    /// The value when it is a single constant.
    pub fn as_const(&self) -> Option<u64> {
        (self.lo == self.hi && self.base.is_none()).then_some(self.lo)
    }

    fn join(self, o: Fact) -> Fact {
        if self.base != o.base {
            return TOP;
        }
        Fact {
            base: self.base,
            lo: self.lo.min(o.lo),
            hi: self.hi.max(o.hi),
            align: self.align.min(o.align),
        }
    }
}

fn arith(op: Arith, a: Fact, b: Option<Fact>) -> Fact {
    let top = TOP;
    let Some(b) = b else {
        return if op == Arith::Mov { a } else { top };
    };
    let k = b.as_const();
    match op {
        Arith::Mov => a,
        Arith::Add => {
            if a.base.is_some() && b.base.is_some() {
                return top;
            }
            let base = a.base.or(b.base);
            match (a.lo.checked_add(b.lo), a.hi.checked_add(b.hi)) {
                (Some(lo), Some(hi)) => Fact {
                    base,
                    lo,
                    hi,
                    align: a.align.min(b.align),
                },
                (Some(lo), None) => Fact {
                    base,
                    lo,
                    hi: u64::MAX,
                    align: a.align.min(b.align),
                },
                _ => top,
            }
        }
        Arith::Sub => match k {
            Some(c) if a.lo >= c && b.base.is_none() => Fact {
                base: a.base,
                lo: a.lo - c,
                hi: a.hi - c,
                align: a.align.min(low_bit(c)),
            },
            _ => top,
        },
        Arith::Mul if a.base.is_none() && b.base.is_none() => Fact {
            base: None,
            lo: a.lo.saturating_mul(b.lo),
            hi: a.hi.saturating_mul(b.hi),
            align: a.align.saturating_mul(b.align).min(1 << 63),
        },
        Arith::Shl if k.is_some_and(|s| s < 64) && a.base.is_none() => {
            let s = k.unwrap_or(0) as u32;
            let hi = if a.hi.leading_zeros() >= s {
                a.hi << s
            } else {
                u64::MAX
            };
            Fact {
                base: None,
                lo: a.lo.checked_shl(s).unwrap_or(0).min(hi),
                hi,
                align: a.align.saturating_mul(1 << s).min(1 << 63),
            }
        }
        Arith::Shr if k.is_some_and(|s| s < 64) && a.base.is_none() => {
            let s = k.unwrap_or(0) as u32;
            Fact {
                base: None,
                lo: a.lo >> s,
                hi: a.hi >> s,
                align: (a.align >> s).max(1),
            }
        }
        Arith::And => match k {
            Some(m) if a.base.is_none() => Fact {
                base: None,
                lo: 0,
                hi: a.hi.min(m),
                align: a.align.max(low_bit(m)),
            },
            _ => top,
        },
        Arith::Min if a.base.is_none() && b.base.is_none() => Fact {
            base: None,
            lo: a.lo.min(b.lo),
            hi: a.hi.min(b.hi),
            align: a.align.min(b.align),
        },
        Arith::Max if a.base.is_none() && b.base.is_none() => Fact {
            base: None,
            lo: a.lo.max(b.lo),
            hi: a.hi.max(b.hi),
            align: a.align.min(b.align),
        },
        Arith::Rem => match k {
            Some(m) if m > 0 && a.base.is_none() => {
                if a.hi < m {
                    a
                } else {
                    Fact {
                        base: None,
                        lo: 0,
                        hi: m - 1,
                        align: 1,
                    }
                }
            }
            _ => top,
        },
        Arith::Div => match k {
            Some(m) if m > 0 && a.base.is_none() => Fact {
                base: None,
                lo: a.lo / m,
                hi: a.hi / m,
                align: 1,
            },
            _ => top,
        },
        _ => top,
    }
}

/// The fact of every variable.
pub fn facts(p: &Program) -> Vec<Fact> {
    let n = p.var_names.len();
    let block = u64::from(p.block_size.unwrap_or(1024));
    let mut facts: Vec<Option<Fact>> = vec![None; n];
    for round in 0..16 {
        let mut changed = false;
        for b in p.cfg.node_weights() {
            for inst in &b.insts {
                let get = |v: usize| facts.get(v).copied().flatten();
                let new = match &inst.op {
                    Op::Const(c) => Some(constant(*c)),
                    Op::Param => Some(Fact { align: 256, ..TOP }),
                    Op::SharedAddr(a) => {
                        let align = p.shared.get(*a).map_or(1, |s| u64::from(s.align.max(1)));
                        Some(Fact {
                            base: Some(*a),
                            lo: 0,
                            hi: 0,
                            align,
                        })
                    }
                    Op::Special(crate::program::Special::Thread) => Some(Fact {
                        base: None,
                        lo: 0,
                        hi: block - 1,
                        align: 1,
                    }),
                    Op::Special(crate::program::Special::Lane) => Some(Fact {
                        base: None,
                        lo: 0,
                        hi: 31,
                        align: 1,
                    }),
                    Op::Special(crate::program::Special::Warp) => Some(Fact {
                        base: None,
                        lo: 0,
                        hi: block.div_ceil(32) - 1,
                        align: 1,
                    }),
                    Op::Arith(op) => match (
                        inst.uses.first().map(|&u| get(u)),
                        inst.uses.get(1).map(|&u| get(u)),
                    ) {
                        (Some(Some(a)), None) => Some(arith(*op, a, None)),
                        (Some(Some(a)), Some(Some(b))) => Some(arith(*op, a, Some(b))),
                        (None, _) => Some(TOP),
                        _ => None, // an operand not known yet: wait for the next round
                    },
                    _ => Some(TOP),
                };
                let Some(new) = new else { continue };
                for &d in &inst.defs {
                    let Some(slot) = facts.get_mut(d) else {
                        continue;
                    };
                    let mut joined = match *slot {
                        Some(old) => old.join(new),
                        None => new,
                    };
                    if let Some(old) = *slot {
                        if round >= 4 && joined != old {
                            // Widen: a bound still moving after several rounds is unbounded.
                            if joined.hi > old.hi {
                                joined.hi = u64::MAX;
                            }
                            if joined.lo < old.lo {
                                joined.lo = 0;
                            }
                        }
                    }
                    if *slot != Some(joined) {
                        *slot = Some(joined);
                        changed = true;
                    }
                }
            }
        }
        if !changed {
            break;
        }
    }
    facts.into_iter().map(|f| f.unwrap_or(TOP)).collect()
}
