//! R001: a shared-memory race between warps. Two accesses to one shared array, at least one a store,
//! that can run with no barrier between them (one reachable from the other on a barrier-free path,
//! loops included), both reached by every thread of the block, whose addresses are exact functions of
//! `%tid.x` (sums, products, shifts, `xor`, `and` of the thread index, constants and the array base,
//! through single-definition values) — and some thread of one warp touches a byte that a thread of
//! another warp touches. Warps run in no defined order, so without a barrier the result depends on
//! scheduling. Only what is proved for threads that exist is reported (the block size must be known:
//! `.reqntid`, the IR, or `.maxntid` of a one-dimensional kernel), as an error; an access whose address
//! the analysis cannot follow is left alone, so the rule adds no warnings.

use std::collections::{HashMap, HashSet, VecDeque};

use petgraph::graph::NodeIndex;

use crate::program::{Address, Arith, Inst, Op, Program, Space, Special, Var};

/// An address as a function of the thread index.
#[derive(Clone, Debug)]
enum Sym {
    Tid,
    Const(u64),
    Base(usize),
    Bin(Arith, Box<Sym>, Box<Sym>),
}

/// A byte offset into `Option<array>` for thread `t`, or `None` when it is not an affine-like value.
fn eval(s: &Sym, t: u64) -> Option<(Option<usize>, u64)> {
    Some(match s {
        Sym::Tid => (None, t),
        Sym::Const(c) => (None, *c),
        Sym::Base(a) => (Some(*a), 0),
        Sym::Bin(op, a, b) => {
            let ((ba, x), (bb, y)) = (eval(a, t)?, eval(b, t)?);
            match (op, ba, bb) {
                (Arith::Add, ba, bb) if ba.is_none() || bb.is_none() => {
                    (ba.or(bb), x.wrapping_add(y))
                }
                (Arith::Sub, ba, None) => (ba, x.wrapping_sub(y)),
                (_, Some(_), _) | (_, _, Some(_)) => return None,
                (Arith::Mul, ..) => (None, x.wrapping_mul(y)),
                (Arith::Shl, ..) if y < 64 => (None, x << y),
                (Arith::Xor, ..) => (None, x ^ y),
                (Arith::And, ..) => (None, x & y),
                _ => return None,
            }
        }
    })
}

/// The single, unguarded definition of each variable that has one.
fn single_defs(p: &Program) -> HashMap<Var, &Inst> {
    let mut defs: HashMap<Var, Option<&Inst>> = HashMap::new();
    for b in p.cfg.node_weights() {
        for i in &b.insts {
            for &d in &i.defs {
                defs.entry(d)
                    .and_modify(|e| *e = None)
                    .or_insert((i.guard.is_none()).then_some(i));
            }
        }
    }
    defs.into_iter()
        .filter_map(|(v, i)| i.map(|i| (v, i)))
        .collect()
}

fn sym_of(v: Var, defs: &HashMap<Var, &Inst>, depth: u32) -> Option<Sym> {
    let inst = defs.get(&v)?;
    if depth > 24 {
        return None;
    }
    let arg = |k: usize| sym_of(*inst.uses.get(k)?, defs, depth + 1);
    match &inst.op {
        Op::Const(c) => Some(Sym::Const(*c)),
        Op::SharedAddr(a) => Some(Sym::Base(*a)),
        Op::Special(Special::Thread) => Some(Sym::Tid),
        Op::Arith(Arith::Mov | Arith::Sext32) => arg(0),
        Op::Arith(
            op @ (Arith::Add | Arith::Sub | Arith::Mul | Arith::Shl | Arith::Xor | Arith::And),
        ) => Some(Sym::Bin(*op, Box::new(arg(0)?), Box::new(arg(1)?))),
        _ => None,
    }
}

/// One shared access the rule can follow.
struct Access<'p> {
    inst: &'p Inst,
    array: usize,
    store: bool,
    width: u64,
    /// Byte offset in the array for each thread.
    offsets: Vec<u64>,
}

fn access<'p>(
    p: &Program,
    defs: &HashMap<Var, &Inst>,
    inst: &'p Inst,
    threads: u64,
) -> Option<Access<'p>> {
    let (addr, width, store): (&Address, u32, bool) = match &inst.op {
        Op::Load { addr, width, .. } => (addr, *width, false),
        Op::Store { addr, width, .. } => (addr, *width, true),
        _ => return None,
    };
    let Space::Shared(named) = addr.space else {
        return None;
    };
    let (sym, scale) = match (addr.byte_var, addr.index_var) {
        (Some(v), _) => (sym_of(v, defs, 0)?, 1),
        (None, Some(v)) => (sym_of(v, defs, 0)?, u64::from(addr.elem_bytes)),
        (None, None) => (Sym::Const(0), 1),
    };
    let mut array = named;
    let mut offsets = Vec::with_capacity(threads as usize);
    for t in 0..threads {
        let (base, off) = eval(&sym, t)?;
        if base.is_some() {
            if array.is_some_and(|a| Some(a) != base) {
                return None;
            }
            array = base;
        }
        offsets.push(off.wrapping_mul(scale).wrapping_add(addr.offset as u64));
    }
    let array = array?;
    p.shared.get(array)?;
    Some(Access {
        inst,
        array,
        store,
        width: u64::from(width.max(1)),
        offsets,
    })
}

/// The shared accesses reachable from instruction `at` of `node` with no barrier in between (the
/// instruction itself when a barrier-free loop leads back to it).
fn barrier_free_successors(p: &Program, node: NodeIndex, at: usize) -> HashSet<(usize, usize)> {
    let mut out = HashSet::new();
    let scan = |n: NodeIndex, from: usize, out: &mut HashSet<(usize, usize)>| -> bool {
        for (k, i) in p.cfg[n].insts.iter().enumerate().skip(from) {
            if matches!(i.op, Op::Barrier) {
                return false;
            }
            if matches!(i.op, Op::Load { .. } | Op::Store { .. }) {
                out.insert((n.index(), k));
            }
        }
        true
    };
    if !scan(node, at + 1, &mut out) {
        return out;
    }
    let mut queue: VecDeque<NodeIndex> = p.cfg.neighbors(node).collect();
    let mut seen = HashSet::new();
    while let Some(n) = queue.pop_front() {
        if !seen.insert(n) {
            continue;
        }
        if scan(n, 0, &mut out) {
            queue.extend(p.cfg.neighbors(n));
        }
    }
    out
}

/// Two threads of different warps touching one byte: `(thread of a, thread of b, byte)`.
fn conflict(a: &Access<'_>, b: &Access<'_>) -> Option<(u64, u64, u64)> {
    let mut warps_at: HashMap<u64, (u64, u64)> = HashMap::new(); // byte → (warp mask, a thread)
    for (t, &off) in b.offsets.iter().enumerate() {
        for byte in off..off.saturating_add(b.width) {
            let e = warps_at.entry(byte).or_insert((0, t as u64));
            e.0 |= 1 << ((t / 32) % 64);
        }
    }
    for (t, &off) in a.offsets.iter().enumerate() {
        let warp = 1u64 << ((t / 32) % 64);
        for byte in off..off.saturating_add(a.width) {
            if let Some(&(mask, other)) = warps_at.get(&byte) {
                if mask & !warp != 0 {
                    // A thread of another warp: find it.
                    let u = b
                        .offsets
                        .iter()
                        .enumerate()
                        .find(|(u, &o)| u / 32 != t / 32 && (o..o + b.width).contains(&byte))
                        .map_or(other, |(u, _)| u as u64);
                    return Some((t as u64, u, byte));
                }
            }
        }
    }
    None
}

/// R001 findings: `(the later access, message)`.
pub(crate) fn races<'p>(p: &'p Program, divergent_block: &[bool]) -> Vec<(&'p Inst, String)> {
    let Some(threads) = p.block_size.filter(|_| p.thread_range_exact) else {
        return Vec::new();
    };
    let threads = u64::from(threads);
    if threads <= 32 {
        return Vec::new(); // one warp: nothing to race with
    }
    let defs = single_defs(p);
    let mut found = Vec::new();
    let mut reported = HashSet::new();
    for node in p.cfg.node_indices() {
        if divergent_block[node.index()] {
            continue;
        }
        for (k, inst) in p.cfg[node].insts.iter().enumerate() {
            if inst.guard.is_some() {
                continue;
            }
            let Some(a) = access(p, &defs, inst, threads) else {
                continue;
            };
            for (n2, k2) in barrier_free_successors(p, node, k) {
                if divergent_block[n2] || reported.contains(&(n2, k2)) {
                    continue;
                }
                let other = &p.cfg[NodeIndex::new(n2)].insts[k2];
                if other.guard.is_some() {
                    continue;
                }
                let Some(b) = access(p, &defs, other, threads) else {
                    continue;
                };
                if a.array != b.array || !(a.store || b.store) {
                    continue;
                }
                if let Some((t, u, byte)) = conflict(&a, &b) {
                    let verb = |s: bool| if s { "writes" } else { "reads" };
                    let name = &p.shared[a.array].name;
                    found.push((
                        other,
                        format!(
                            "thread {u} (warp {}) {} byte {byte} of `{name}`, which thread {t} (warp {}) {} at {} with no barrier in between: a race between warps",
                            u / 32,
                            verb(b.store),
                            t / 32,
                            verb(a.store),
                            a.inst.loc
                        ),
                    ));
                    reported.insert((n2, k2));
                }
            }
        }
    }
    found
}
