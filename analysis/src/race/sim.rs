//! A concrete simulation of every thread of one block for one block size: each thread runs the
//! kernel on its own with `%tid.x` and `%ntid.x` known, constants and shared-array addresses known, and
//! everything that comes from memory, parameters or unmodelled instructions unknown. Loops whose trip
//! count follows from known values run iteration by iteration, so a loop-carried stride (`s >>= 1`)
//! and a guard on it (`tid < s`) are followed exactly. A branch on an unknown value is stepped over when
//! [`Shape`] allows it; otherwise the thread stops, and only what it did before is kept.
//!
//! The simulated threads are those with `%tid.y` = `%tid.z` = 0 (`%tid.y`/`%tid.z` themselves are
//! unknown): their warp is `%tid.x / 32` whatever the block's shape, and the other rows of a larger
//! block only add accesses. Integers are kept while they are below 2³¹, where signed and unsigned,
//! 32- and 64-bit arithmetic agree; anything larger becomes unknown.

use petgraph::graph::NodeIndex;

use super::shape::Shape;
use crate::program::{Address, Arith, Cmp, Inst, Op, Program, Space, Special, Var};

/// The most instructions one thread may run; past it the thread stops (what it did so far stands).
pub(super) const STEPS_PER_THREAD: u64 = 1 << 16;

/// The most accesses one simulated block may record (past it the block size is given up: memory).
const MAX_ACCESSES: usize = 1 << 18;

/// A simulated value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Val {
    Unknown,
    Int(u64),
    /// A byte offset into a shared array (unknown offset: `None`).
    Ptr(usize, Option<u64>),
}

const SMALL: u64 = 1 << 31;

fn small(x: u64) -> Val {
    if x < SMALL {
        Val::Int(x)
    } else {
        Val::Unknown
    }
}

fn ptr(array: usize, off: Option<u64>) -> Val {
    Val::Ptr(array, off.filter(|&o| o < SMALL))
}

fn compare(c: Cmp, x: u64, y: u64) -> bool {
    match c {
        Cmp::Lt => x < y,
        Cmp::Le => x <= y,
        Cmp::Gt => x > y,
        Cmp::Ge => x >= y,
        Cmp::Eq => x == y,
        Cmp::Ne => x != y,
    }
}

fn arith(op: Arith, a: Val, b: Option<Val>) -> Val {
    use Val::{Int, Ptr, Unknown};
    let Some(b) = b else {
        return match (op, a) {
            (Arith::Mov, a) => a,
            (Arith::Sext32, Int(x)) => small(x),
            (Arith::Sext32, a @ Ptr(..)) => a,
            _ => Unknown,
        };
    };
    match (op, a, b) {
        (Arith::Add, Ptr(r, o), Int(x)) | (Arith::Add, Int(x), Ptr(r, o)) => {
            ptr(r, o.map(|o| o.wrapping_add(x)))
        }
        (Arith::Add | Arith::Sub, Ptr(r, _), Unknown) | (Arith::Add, Unknown, Ptr(r, _)) => {
            Ptr(r, None)
        }
        (Arith::Sub, Ptr(r, o), Int(x)) => ptr(r, o.map(|o| o.wrapping_sub(x))),
        (Arith::Sub, Ptr(r, Some(x)), Ptr(q, Some(y))) if r == q => small(x.wrapping_sub(y)),
        (Arith::Cmp(c, _), Ptr(r, Some(x)), Ptr(q, Some(y))) if r == q => {
            Int(u64::from(compare(c, x, y)))
        }
        (Arith::Cmp(c, _), Int(x), Int(y)) if x < SMALL && y < SMALL => {
            Int(u64::from(compare(c, x, y)))
        }
        (op, Int(x), Int(y)) => match op {
            Arith::Add => small(x.wrapping_add(y)),
            Arith::Sub => small(x.wrapping_sub(y)),
            Arith::Mul => x.checked_mul(y).map_or(Unknown, small),
            Arith::Shl if y < 32 => x.checked_shl(y as u32).map_or(Unknown, small),
            Arith::Shr if y < 64 && x < SMALL => Int(x >> y),
            Arith::And => small(x & y),
            Arith::Or => small(x | y),
            Arith::Xor => small(x ^ y),
            Arith::Min if x < SMALL && y < SMALL => Int(x.min(y)),
            Arith::Max if x < SMALL && y < SMALL => Int(x.max(y)),
            Arith::Rem if y > 0 && x < SMALL && y < SMALL => Int(x % y),
            Arith::Div if y > 0 && x < SMALL && y < SMALL => Int(x / y),
            _ => Unknown,
        },
        _ => Unknown,
    }
}

/// An instruction: (block index, index in the block).
pub(super) type InstAt = (u32, u32);

/// One shared-memory access by one thread.
#[derive(Clone, Debug)]
pub(super) struct Access {
    /// `%tid.x` of the thread.
    pub thread: u32,
    /// The instruction.
    pub at: InstAt,
    /// Barriers the thread passed before it.
    pub phase: u32,
    /// The shared array.
    pub array: usize,
    /// The byte offset in the array, when known.
    pub offset: Option<u64>,
    /// Bytes accessed.
    pub width: u64,
    /// A store (else a load).
    pub store: bool,
    /// Known to run (its guard is known to hold).
    pub certain: bool,
    /// The innermost loop's header and the iteration (from 1) the access is in.
    pub iteration: Option<(u32, u32)>,
}

/// What every thread of one block did.
pub(super) struct Run {
    /// Every recorded access, thread by thread, each thread's in program order.
    pub accesses: Vec<Access>,
    /// The number of leading barriers every thread passed, the same ones in the same order: accesses
    /// of phases up to this one are between the same barriers for all threads.
    pub aligned_phases: u32,
}

struct Kernel<'p> {
    p: &'p Program,
    shape: &'p Shape,
    block_x: u64,
    /// Whether `%laneid` is `%tid.x % 32` (a warp-aligned block x-dimension, known or assumed).
    lane_from_tid: bool,
}

impl Kernel<'_> {
    fn special(&self, s: Special, inst: &Inst, tid: u64) -> Val {
        let name = inst.defs.first().map_or("", |&d| self.p.var_name(d));
        match s {
            Special::Thread => Val::Int(tid),
            Special::Uniform if name == "%ntid.x" => Val::Int(self.block_x),
            Special::Lane if name == "%laneid" && self.lane_from_tid => Val::Int(tid % 32),
            _ => Val::Unknown,
        }
    }

    /// The shared array and byte offset an address names, when the array is known.
    fn address(&self, addr: &Address, regs: &[Val]) -> Option<(usize, Option<u64>)> {
        let Space::Shared(named) = addr.space else {
            return None;
        };
        let get = |v: Var| regs.get(v).copied().unwrap_or(Val::Unknown);
        let base = match (addr.byte_var, addr.index_var) {
            (Some(v), _) => get(v),
            (None, Some(v)) => arith(
                Arith::Mul,
                get(v),
                Some(Val::Int(u64::from(addr.elem_bytes))),
            ),
            (None, None) => Val::Int(0),
        };
        let (array, off) = match (base, named) {
            (Val::Ptr(a, off), _) => (a, off),
            (Val::Int(x), Some(a)) if addr.byte_var.is_none() => (a, Some(x)),
            (_, Some(a)) => (a, None),
            _ => return None,
        };
        let off = off
            .map(|o| o.wrapping_add(addr.offset as u64))
            .filter(|&o| o < SMALL);
        Some((array, off))
    }

    /// Runs thread `tid`; appends its accesses and returns the barriers it passed.
    fn thread(&self, tid: u64, out: &mut Vec<Access>, budget: &mut u64) -> Vec<InstAt> {
        let p = self.p;
        let mut regs = vec![Val::Unknown; p.var_names.len()];
        let mut iterations = vec![0u32; p.cfg.node_count()];
        let mut barriers = Vec::new();
        let mut node = p.entry;
        let mut prev: Option<NodeIndex> = None;
        let mut steps = 0u64;
        loop {
            if let Some(body) = &self.shape.body[node.index()] {
                let it = &mut iterations[node.index()];
                *it = if prev.is_some_and(|b| body[b.index()]) {
                    it.saturating_add(1)
                } else {
                    1
                };
            }
            let block = &p.cfg[node];
            let cost = block.insts.len() as u64 + 1;
            steps += cost;
            if *budget < cost {
                *budget = 0;
                return barriers;
            }
            *budget -= cost;
            if steps > STEPS_PER_THREAD {
                return barriers; // stops here: what it did so far stands
            }
            for (k, inst) in block.insts.iter().enumerate() {
                let runs = match inst.guard.map(|g| regs.get(g).copied()) {
                    None => Some(true),
                    Some(Some(Val::Int(x))) => Some(x != 0),
                    _ => None,
                };
                if runs == Some(false) {
                    continue;
                }
                let set = |regs: &mut Vec<Val>, v: Val| {
                    for &d in &inst.defs {
                        if let Some(r) = regs.get_mut(d) {
                            *r = if runs.is_some() { v } else { Val::Unknown };
                        }
                    }
                };
                let get = |v: Option<&Var>| v.and_then(|&v| regs.get(v).copied());
                match &inst.op {
                    Op::Const(c) => set(&mut regs, Val::Int(*c)),
                    Op::SharedAddr(a) => set(&mut regs, Val::Ptr(*a, Some(0))),
                    Op::Special(s) => set(&mut regs, self.special(*s, inst, tid)),
                    Op::Arith(op) => {
                        let Some(a) = get(inst.uses.first()) else {
                            set(&mut regs, Val::Unknown);
                            continue;
                        };
                        let v = arith(*op, a, get(inst.uses.get(1)));
                        set(&mut regs, v);
                        // `setp … %p|%q`: the second predicate is the negation of the first.
                        if let (Arith::Cmp(..), [_, q], Val::Int(x), Some(true)) =
                            (op, &inst.defs[..], v, runs)
                        {
                            if let Some(r) = regs.get_mut(*q) {
                                *r = Val::Int(1 - x);
                            }
                        } else if inst.defs.len() > 1 {
                            set(&mut regs, Val::Unknown);
                        }
                    }
                    Op::Load { addr, width, .. } | Op::Store { addr, width, .. } => {
                        if let Some((array, offset)) = self.address(addr, &regs) {
                            let header = self.shape.innermost[node.index()];
                            out.push(Access {
                                thread: tid as u32,
                                at: (node.index() as u32, k as u32),
                                phase: barriers.len() as u32,
                                array,
                                offset,
                                width: u64::from((*width).max(1)),
                                store: matches!(inst.op, Op::Store { .. }),
                                certain: runs.is_some(),
                                iteration: header
                                    .map(|h| (h.index() as u32, iterations[h.index()])),
                            });
                        }
                        set(&mut regs, Val::Unknown);
                    }
                    Op::Barrier if runs.is_some() => barriers.push((node.index() as u32, k as u32)),
                    // A barrier the thread may or may not reach: its phases are no longer known.
                    Op::Barrier => return barriers,
                    Op::Param | Op::Atomic { .. } | Op::Collective { .. } | Op::Unknown(_) => {
                        set(&mut regs, Val::Unknown)
                    }
                }
            }
            let next = match block.term {
                crate::program::Terminator::Return => None,
                crate::program::Terminator::Jump => self.shape.jump[node.index()],
                crate::program::Terminator::Branch { cond, .. } => {
                    match (regs.get(cond), self.shape.branch[node.index()]) {
                        (Some(Val::Int(x)), Some((taken, fall))) => {
                            Some(if *x != 0 { taken } else { fall })
                        }
                        _ => self.shape.skip[node.index()].as_ref().map(|skip| {
                            for &d in &skip.defs {
                                if let Some(r) = regs.get_mut(d) {
                                    *r = Val::Unknown;
                                }
                            }
                            skip.join
                        }),
                    }
                }
            };
            let Some(next) = next else {
                return barriers;
            };
            prev = Some(node);
            node = next;
        }
    }
}

/// Simulates every thread of a block whose x-dimension is `block_x`; `None` when the step budget runs
/// out or too many accesses pile up (what was found is then not complete enough to be compared).
pub(super) fn simulate(p: &Program, shape: &Shape, block_x: u32, budget: &mut u64) -> Option<Run> {
    let kernel = Kernel {
        p,
        shape,
        block_x: u64::from(block_x),
        lane_from_tid: p.warp_aligned_x.holds(),
    };
    let mut accesses = Vec::new();
    let mut first: Option<Vec<InstAt>> = None;
    let mut aligned = u32::MAX;
    for tid in 0..u64::from(block_x) {
        let barriers = kernel.thread(tid, &mut accesses, budget);
        if *budget == 0 || accesses.len() > MAX_ACCESSES {
            return None;
        }
        let reference = first.get_or_insert_with(|| barriers.clone());
        let common = reference
            .iter()
            .zip(&barriers)
            .take_while(|(a, b)| a == b)
            .count();
        aligned = aligned.min(common as u32);
    }
    Some(Run {
        accesses,
        aligned_phases: aligned,
    })
}
