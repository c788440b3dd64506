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
    /// A power of two: the value is congruent to `rem` modulo `align` (the known low bits).
    pub align: u64,
    /// The value's residue modulo `align` (`rem < align`).
    pub rem: u64,
    /// Whether some thread's value is exactly `hi` (thread-index ranges are exact when the kernel says
    /// its block size; constants are; adding or scaling by a constant keeps it).
    pub hi_exact: bool,
}

/// Nothing known.
pub const TOP: Fact = Fact {
    base: None,
    lo: 0,
    hi: u64::MAX,
    align: 1,
    rem: 0,
    hi_exact: false,
};

/// The largest modulus a congruence keeps (all of a constant's low 63 bits).
const MOST: u64 = 1 << 63;

fn low_bit(v: u64) -> u64 {
    if v == 0 {
        1 << 63
    } else {
        1 << v.trailing_zeros()
    }
}

pub(crate) fn constant(v: u64) -> Fact {
    Fact {
        base: None,
        lo: v,
        hi: v,
        align: MOST,
        rem: v % MOST,
        hi_exact: true,
    }
}

/// `x ≡ r (mod m)` for every value of two congruences: the largest power-of-two modulus both agree on.
fn meet_congruence((m1, r1): (u64, u64), (m2, r2): (u64, u64)) -> (u64, u64) {
    let m = m1.min(m2);
    let (a, b) = (r1 % m, r2 % m);
    if a == b {
        (m, a)
    } else {
        let m = 1u64 << (a ^ b).trailing_zeros();
        (m, a % m)
    }
}

/// A fact with a congruence whose residue is 0 (a multiple of `align`).
fn multiple(base: Option<usize>, lo: u64, hi: u64, align: u64) -> Fact {
    Fact {
        base,
        lo,
        hi,
        align: align.clamp(1, MOST),
        rem: 0,
        hi_exact: false,
    }
}

impl Fact {
    /// The largest power of two every possible value is a multiple of.
    pub fn multiple_of(&self) -> u64 {
        if self.rem == 0 {
            self.align
        } else {
            low_bit(self.rem).min(self.align)
        }
    }

    /// The congruence of `self + k` (`k` a constant byte offset).
    pub fn plus(&self, k: u64) -> (u64, u64) {
        (self.align, self.rem.wrapping_add(k % MOST) % self.align)
    }

    /// The range narrowed to the values its congruence allows (`lo` up and `hi` down to the nearest
    /// `≡ rem (mod align)`): an `xor` of a multiple of 4 below 512 is at most 508, not 511.
    pub(crate) fn tightened(self) -> Fact {
        if self.base.is_some() || self.align <= 1 || self.hi == u64::MAX {
            return self;
        }
        let down = (self.hi.wrapping_sub(self.rem)) % self.align;
        let up = (self.align - (self.lo.wrapping_sub(self.rem)) % self.align) % self.align;
        let (Some(hi), Some(lo)) = (self.hi.checked_sub(down), self.lo.checked_add(up)) else {
            return self;
        };
        if lo > hi {
            return self;
        }
        Fact {
            lo,
            hi,
            hi_exact: self.hi_exact && down == 0,
            ..self
        }
    }

    /// The fact of a result kept in `bits` bits (0: unknown width): a value past `2^bits` wraps, so
    /// only the low bits stay known.
    pub(crate) fn wrapped(self, bits: u8) -> Fact {
        if bits == 0 || bits >= 64 || self.base.is_some() || self.hi < 1 << bits {
            return self;
        }
        if let Some(c) = self.as_const() {
            // A constant keeps its low bits exactly (`-1` in a 32-bit register is 0xffffffff).
            return constant(c & ((1 << bits) - 1));
        }
        let m = self.align.min(1 << bits);
        Fact {
            base: None,
            lo: 0,
            hi: (1 << bits) - 1,
            align: m,
            rem: self.rem % m,
            hi_exact: false,
        }
    }

    /// The value when it is a single constant.
    pub fn as_const(&self) -> Option<u64> {
        (self.lo == self.hi && self.base.is_none()).then_some(self.lo)
    }

    pub(crate) fn join(self, o: Fact) -> Fact {
        if self.base != o.base {
            return TOP;
        }
        if self == o {
            return self;
        }
        let (align, rem) = meet_congruence((self.align, self.rem), (o.align, o.rem));
        Fact {
            base: self.base,
            lo: self.lo.min(o.lo),
            hi: self.hi.max(o.hi),
            align,
            rem,
            hi_exact: false,
        }
    }
}

/// The fact of `op` applied to operands with facts `a` (and `b`).
pub(crate) fn arith(op: Arith, a: Fact, b: Option<Fact>) -> Fact {
    let top = TOP;
    let Some(b) = b else {
        return match op {
            Arith::Mov => a,
            Arith::Sext32 if a.base.is_none() && a.hi < 1 << 31 => a,
            _ => top,
        };
    };
    let k = b.as_const();
    match op {
        Arith::Mov => a,
        Arith::Add => {
            if a.base.is_some() && b.base.is_some() {
                return top;
            }
            // Adding a negative constant (`add.s32 %r, %r, -32`) is a subtraction that may wrap.
            if let Some(neg) = k.filter(|&c| c >= 1 << 63).map(u64::wrapping_neg) {
                return arith(Arith::Sub, a, Some(constant(neg)));
            }
            let base = a.base.or(b.base);
            let align = a.align.min(b.align);
            let rem = (a.rem % align + b.rem % align) % align;
            match (a.lo.checked_add(b.lo), a.hi.checked_add(b.hi)) {
                (Some(lo), hi) => Fact {
                    base,
                    lo,
                    hi: hi.unwrap_or(u64::MAX),
                    align,
                    rem,
                    // One side varies, the other is a single offset (a constant or an array base).
                    hi_exact: hi.is_some()
                        && ((a.hi_exact && b.lo == b.hi) || (b.hi_exact && a.lo == a.hi)),
                },
                _ => top,
            }
        }
        Arith::Sub => match k {
            Some(c) if a.lo >= c && b.base.is_none() => Fact {
                base: a.base,
                lo: a.lo - c,
                hi: a.hi - c,
                align: a.align,
                rem: (a.rem + a.align - c % a.align) % a.align,
                hi_exact: a.hi_exact,
            },
            _ => top,
        },
        Arith::Mul if a.base.is_none() && b.base.is_none() => Fact {
            hi_exact: a.hi.checked_mul(b.hi).is_some()
                && ((a.hi_exact && k.is_some()) || (b.hi_exact && a.as_const().is_some())),
            ..multiple(
                None,
                a.lo.saturating_mul(b.lo),
                a.hi.saturating_mul(b.hi),
                a.multiple_of().saturating_mul(b.multiple_of()),
            )
        },
        Arith::Shl if k.is_some_and(|s| s < 64) && a.base.is_none() => {
            let s = k.unwrap_or(0) as u32;
            let hi = if a.hi.leading_zeros() >= s {
                a.hi << s
            } else {
                u64::MAX
            };
            Fact {
                hi_exact: a.hi_exact && hi != u64::MAX,
                ..multiple(
                    None,
                    a.lo.checked_shl(s).unwrap_or(0).min(hi),
                    hi,
                    a.multiple_of().saturating_mul(1 << s),
                )
            }
        }
        Arith::Shr if k.is_some_and(|s| s < 64) && a.base.is_none() => {
            let s = k.unwrap_or(0) as u32;
            multiple(None, a.lo >> s, a.hi >> s, a.multiple_of() >> s)
        }
        Arith::And => match k {
            Some(m) if a.base.is_none() => {
                multiple(None, 0, a.hi.min(m), a.multiple_of().max(low_bit(m)))
            }
            _ => top,
        },
        Arith::Min | Arith::Max if a.base.is_none() && b.base.is_none() => {
            let (align, rem) = meet_congruence((a.align, a.rem), (b.align, b.rem));
            let (lo, hi) = if op == Arith::Min {
                (a.lo.min(b.lo), a.hi.min(b.hi))
            } else {
                (a.lo.max(b.lo), a.hi.max(b.hi))
            };
            Fact {
                base: None,
                lo,
                hi,
                align,
                rem,
                hi_exact: false,
            }
        }
        Arith::Rem => match k {
            Some(m) if m > 0 && a.base.is_none() => {
                if a.hi < m {
                    a
                } else {
                    multiple(None, 0, m - 1, 1)
                }
            }
            _ => top,
        },
        Arith::Cmp(..) => multiple(None, 0, 1, 1),
        Arith::Or | Arith::Xor if a.base.is_none() && b.base.is_none() => {
            // Bitwise on the low bits: the residues combine the same way; the value stays below the
            // next power of two of the larger operand (an `or` also stays at or above either operand).
            let m = a.align.min(b.align);
            let (ra, rb) = (a.rem % m, b.rem % m);
            let rem = if op == Arith::Or { ra | rb } else { ra ^ rb };
            // (0 when both are 0: a shift by 64 would overflow.)
            let top_bit = u64::MAX
                .checked_shr(a.hi.max(b.hi).leading_zeros())
                .unwrap_or(0);
            let (lo, hi) = if op == Arith::Or {
                (a.lo.max(b.lo), top_bit.min(a.hi.saturating_add(b.hi)))
            } else {
                (0, top_bit)
            };
            Fact {
                base: None,
                lo,
                hi,
                align: m,
                rem: rem % m,
                hi_exact: false,
            }
            .tightened()
        }
        Arith::Select => a.join(b),
        Arith::Div => match k {
            Some(m) if m > 0 && a.base.is_none() => multiple(None, a.lo / m, a.hi / m, 1),
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
                        Some(multiple(Some(*a), 0, 0, align))
                    }
                    Op::Special(crate::program::Special::Thread) => Some(Fact {
                        hi_exact: p.thread_range_exact,
                        ..multiple(None, 0, block - 1, 1)
                    }),
                    Op::Special(crate::program::Special::ThreadYz) => {
                        Some(multiple(None, 0, block - 1, 1))
                    }
                    Op::Special(crate::program::Special::Lane) => Some(multiple(None, 0, 31, 1)),
                    Op::Special(crate::program::Special::Warp) => {
                        Some(multiple(None, 0, block.div_ceil(32) - 1, 1))
                    }
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
                let Some(mut new) = new else { continue };
                // A result kept in fewer than 64 bits (a `u16` load, a 32-bit product) wraps there.
                if let [d] = inst.defs.as_slice() {
                    new = new.wrapped(p.var_bits.get(*d).copied().unwrap_or(0));
                }
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
