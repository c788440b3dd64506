//! Poison: the sanitizer's precision for values a lane cannot legally read.
//!
//! A `shfl.sync` lane that reads a lane outside the membermask (or one that exited) gets an
//! undefined value in PTX. Compilers write that on purpose: a partial warp's reduction shuffles
//! with the full butterfly and throws the stray values away with a `selp` on the same mask. So the
//! value is *poison*, not an error: each register carries, per lane, whether it holds poison and
//! which shuffle made it. Poison flows through computation (a result is poison where any operand,
//! or the guard, is; `selp` takes only the chosen operand's), and becomes a finding only where it
//! can change what the kernel does: when it reaches memory (a stored value), an address, a branch
//! (a guard of a branch, a branch index), a collective (a shuffled value, a vote, a mask, a
//! barrier's operands) or a call's argument. Nothing is tracked while no register holds poison.

use super::inst::{Op, Slot, R};

/// Which lanes of which registers hold poison, and the shuffle that made it.
#[derive(Clone, Debug, Default)]
pub(crate) struct Poison {
    regs: Vec<Tainted>,
}

#[derive(Clone, Copy, Debug)]
struct Tainted {
    reg: R,
    lanes: u32,
    /// The instruction (pc) of the shuffle the poison came from.
    origin: u32,
}

impl Poison {
    /// No register holds poison (the usual case: nothing to track).
    pub fn is_empty(&self) -> bool {
        self.regs.is_empty()
    }

    /// The poisoned lanes of `reg` and where the poison came from.
    pub fn of(&self, reg: R) -> (u32, u32) {
        self.regs
            .iter()
            .find(|t| t.reg == reg)
            .map_or((0, 0), |t| (t.lanes, t.origin))
    }

    /// Lanes `within` of `reg` now hold poison exactly where `lanes` says (from `origin`).
    pub fn assign(&mut self, reg: R, within: u32, lanes: u32, origin: u32) {
        let lanes = lanes & within;
        match self.regs.iter().position(|t| t.reg == reg) {
            Some(i) => {
                let t = &mut self.regs[i];
                t.lanes = t.lanes & !within | lanes;
                if lanes != 0 {
                    t.origin = origin;
                }
                if t.lanes == 0 {
                    self.regs.swap_remove(i);
                }
            }
            None if lanes != 0 => self.regs.push(Tainted { reg, lanes, origin }),
            None => {}
        }
    }
}

/// What an instruction does with poison in the registers it reads.
pub(crate) enum Flow {
    /// Poison in `reads` is an error: it reaches what the string names. `writes` get fresh values
    /// (their poison ends).
    Sink {
        reads: Vec<R>,
        writes: Vec<R>,
        what: &'static str,
    },
    /// Each register of `writes` is poison where any of `reads` is.
    Pass { reads: Vec<R>, writes: Vec<R> },
    /// `selp d, a, b, c`: `d` is poison where `c` is, or where the chosen operand is.
    Select { d: R, a: R, b: R, c: R },
}

/// The poison flow of `op`. Every instruction is listed (no catch-all), so a new one must say
/// where its values go.
pub(crate) fn flow(op: &Op) -> Flow {
    use super::inst_int::XOp;
    let pass = |reads: Vec<R>, writes: Vec<R>| Flow::Pass { reads, writes };
    let sink = |reads: Vec<R>, writes: Vec<R>, what| Flow::Sink {
        reads,
        writes,
        what,
    };
    let base = |b: Option<R>| b.into_iter().collect::<Vec<R>>();
    match op {
        Op::Mov { d, a, .. } | Op::IntUn { d, a, .. } | Op::FUn { d, a, .. } => {
            pass(vec![*a], vec![*d])
        }
        Op::Cvt { d, a, .. } | Op::Cvta { d, a, .. } => pass(vec![*a], vec![*d]),
        Op::Pack { d, parts, .. } => pass(parts.clone(), vec![*d]),
        Op::Unpack { parts, a, .. } => pass(vec![*a], parts.iter().flatten().copied().collect()),
        Op::IntBin { d, a, b, .. } | Op::MulWide { d, a, b, .. } | Op::FBin { d, a, b, .. } => {
            pass(vec![*a, *b], vec![*d])
        }
        Op::Mad { d, a, b, c, .. }
        | Op::Bfe { d, a, b, c, .. }
        | Op::Prmt { d, a, b, c }
        | Op::Fma { d, a, b, c, .. } => pass(vec![*a, *b, *c], vec![*d]),
        Op::Bfi { d, a, b, c, e, .. } => pass(vec![*a, *b, *c, *e], vec![*d]),
        Op::IntX(x) => {
            let (mut reads, mut writes) = (vec![x.a, x.b, x.c], vec![x.d]);
            match x.op {
                XOp::Carry(c) => {
                    if c.carry_in {
                        reads.push(c.cc);
                    }
                    if c.carry_out {
                        writes.push(c.cc);
                    }
                }
                XOp::Lop3 { pred: Some(p), .. } => {
                    reads.push(p.q);
                    writes.push(p.p);
                }
                _ => {}
            }
            pass(reads, writes)
        }
        Op::Setp {
            p,
            q,
            a,
            b,
            combine,
            ..
        } => {
            let mut reads = vec![*a, *b];
            reads.extend(combine.map(|(_, c, _)| c));
            pass(reads, p.iter().chain(q.iter()).copied().collect())
        }
        Op::Selp { d, a, b, c, .. } => Flow::Select {
            d: *d,
            a: *a,
            b: *b,
            c: *c,
        },
        Op::Ld { addr, dsts, .. } => sink(
            base(addr.base),
            dsts.iter().flatten().copied().collect(),
            "an address",
        ),
        Op::St { srcs, addr, .. } => {
            let mut reads = srcs.clone();
            reads.extend(addr.base);
            sink(reads, vec![], "memory (a stored value or its address)")
        }
        Op::Atom { addr, b, c, d, .. } => {
            let mut reads = vec![*b];
            reads.extend(*c);
            reads.extend(addr.base);
            sink(reads, base(*d), "memory (an atomic's operand or address)")
        }
        Op::Bra { .. } => sink(vec![], vec![], "a branch"),
        Op::Brx { index, .. } => sink(vec![*index], vec![], "a branch (its index)"),
        Op::Exit | Op::Ret | Op::Trap | Op::Nop | Op::Yield | Op::DeviceFence => {
            sink(vec![], vec![], "a branch")
        }
        Op::AssertFail {
            message,
            file,
            line,
            function,
        } => {
            let regs = [message, file, line, function]
                .into_iter()
                .filter_map(|s| match s {
                    Slot::Reg(r) => Some(*r),
                    Slot::Frame(_) => None,
                })
                .collect();
            sink(regs, vec![], "an assertion")
        }
        Op::Printf { format, args, ret } => {
            let reg = |s: &Slot| match s {
                Slot::Reg(r) => Some(*r),
                Slot::Frame(_) => None,
            };
            let reads = [format, args].into_iter().filter_map(reg).collect();
            sink(reads, ret.iter().filter_map(reg).collect(), "a printf")
        }
        // The return registers are written when the callee returns.
        Op::Call { args, rets, .. } => sink(slot_regs(args), slot_regs(rets), "a call's argument"),
        Op::Bar {
            id, count, pred, d, ..
        } => {
            let mut reads = vec![*id];
            reads.extend(*count);
            reads.extend(pred.map(|(p, _)| p));
            sink(reads, base(*d), "a barrier")
        }
        Op::WarpSync { mask } => sink(vec![*mask], vec![], "a collective"),
        Op::Shfl {
            a,
            b,
            c,
            mask,
            d,
            p,
            ..
        } => {
            let mut writes = vec![*d];
            writes.extend(*p);
            sink(vec![*a, *b, *c, *mask], writes, "a collective")
        }
        Op::Match { a, mask, d, p, .. } => {
            let mut writes = vec![*d];
            writes.extend(*p);
            sink(vec![*a, *mask], writes, "a collective")
        }
        Op::Vote { a, mask, d, .. } | Op::Redux { a, mask, d, .. } => {
            sink(vec![*a, *mask], vec![*d], "a collective")
        }
        Op::Activemask { d } | Op::Clock { d, .. } => pass(vec![], vec![*d]),
        Op::Async(a) => async_flow(a),
        Op::FloatX(x) => float_flow(x),
        Op::Mma(m) => matrix_flow(m),
    }
}

/// The matrix instructions: memory accesses and warp collectives (sinks), but the `tf32`
/// conversion.
fn matrix_flow(m: &super::inst_mma::MmaOp) -> Flow {
    use super::inst_mma::MmaOp;
    let (reads, writes, what) = match m {
        MmaOp::Tf32 { d, a, .. } => {
            return Flow::Pass {
                reads: vec![*a],
                writes: vec![*d],
            }
        }
        MmaOp::Ldmatrix { addr, regs, .. } => {
            (addr.base.into_iter().collect(), regs.to_vec(), "an address")
        }
        MmaOp::Stmatrix { regs, addr, .. } => {
            let mut reads = regs.to_vec();
            reads.extend(addr.base);
            (reads, vec![], "memory (a stored value or its address)")
        }
        MmaOp::Mma { a, b, c, d, .. } => (
            [&a[..], &b[..], &c[..]].concat(),
            d.to_vec(),
            "a collective",
        ),
        MmaOp::Wmma {
            store,
            regs,
            addr,
            stride,
            ..
        } => {
            let mut reads = vec![*stride];
            reads.extend(addr.base);
            let mut writes = Vec::new();
            if *store {
                reads.extend(regs.iter());
            } else {
                writes.extend(regs.iter());
            }
            (
                reads,
                writes,
                "memory (a matrix fragment, its address or stride)",
            )
        }
    };
    Flow::Sink {
        reads,
        writes,
        what,
    }
}

/// Half-precision arithmetic, `set`, `testp`, `copysign`: computation.
fn float_flow(x: &super::inst_half::FloatX) -> Flow {
    use super::inst_half::FloatX;
    let (reads, writes) = match x {
        FloatX::Arith { d, a, b, c, .. } => (vec![*a, *b, *c], vec![*d]),
        FloatX::Setp {
            p,
            q,
            a,
            b,
            combine,
            ..
        } => {
            let mut reads = vec![*a, *b];
            reads.extend(combine.map(|(_, c, _)| c));
            (reads, p.iter().chain(q.iter()).copied().collect())
        }
        FloatX::Set {
            d, a, b, combine, ..
        } => {
            let mut reads = vec![*a, *b];
            reads.extend(combine.map(|(_, c, _)| c));
            (reads, vec![*d])
        }
        FloatX::Cvt { d, a, b, .. } => {
            let mut reads = vec![*a];
            reads.extend(*b);
            (reads, vec![*d])
        }
        FloatX::Testp { d, a, .. } => (vec![*a], vec![*d]),
        FloatX::Copysign { d, a, b, .. } => (vec![*a, *b], vec![*d]),
    };
    Flow::Pass { reads, writes }
}

/// `cp.async` and `mbarrier`: memory instructions (their operands are sinks), except reading a
/// state's pending count.
fn async_flow(a: &super::inst_async::Async) -> Flow {
    use super::inst_async::Async;
    let mut reads = Vec::new();
    let mut writes = Vec::new();
    let mut add = |addr: &super::inst::Addr| reads.extend(addr.base);
    match a {
        Async::PendingCount { d, state } => {
            return Flow::Pass {
                reads: vec![*state],
                writes: vec![*d],
            }
        }
        Async::Copy {
            dst,
            src,
            src_size,
            ignore,
            ..
        } => {
            add(dst);
            add(src);
            reads.extend(*src_size);
            reads.extend(ignore.map(|(p, _)| p));
        }
        Async::Bulk {
            dst,
            src,
            size,
            mbar,
        } => {
            add(dst);
            add(src);
            add(mbar);
            reads.push(*size);
        }
        Async::Commit | Async::CopyWait(_) => {}
        Async::CopyArrive { mbar, .. } => add(mbar),
        Async::Init { addr, count, .. } => {
            add(addr);
            reads.push(*count);
        }
        Async::Arrive {
            addr,
            count,
            tx,
            state,
            ..
        } => {
            add(addr);
            reads.extend(*count);
            reads.extend(*tx);
            writes.extend(*state);
        }
        Async::Tx { addr, bytes, .. } => {
            add(addr);
            reads.push(*bytes);
        }
        Async::Wait {
            addr, operand, p, ..
        } => {
            add(addr);
            reads.push(*operand);
            writes.push(*p);
        }
        Async::Inval { addr, .. } => add(addr),
    }
    Flow::Sink {
        reads,
        writes,
        what: "memory (an asynchronous copy's or mbarrier's operand)",
    }
}

/// The registers among a call's arguments or return values.
fn slot_regs(args: &[super::inst_mem::CallArg]) -> Vec<R> {
    args.iter()
        .filter_map(|a| match a.caller {
            super::inst_mem::Slot::Reg(r) => Some(r),
            super::inst_mem::Slot::Frame(_) => None,
        })
        .collect()
}
