//! Shared memory that is settled when a load reads it: every thread reads the same bytes at a
//! uniform address after a barrier, with no store to that shared array (nor an atomic on it, a
//! store through a generic address, or an instruction the analysis does not model) anywhere
//! between that barrier and the next one — on the load's own paths or on any other thread's. Such a load gives every thread the same value: the "am I the
//! last block" flag that one thread stores before `__syncthreads()` and all read after it.

use std::collections::HashSet;

use petgraph::graph::NodeIndex;
use petgraph::Direction;

use crate::facts::Fact;
use crate::program::{Address, Op, Program, Space};

/// The shared array an address points into, when known: named by its symbol, or the array its
/// register's facts say it is an address into (`mov.u32 %r, sdata; add …`).
fn array_of(addr: &Address, facts: &[Fact]) -> Option<usize> {
    match addr.space {
        Space::Shared(Some(a)) => Some(a),
        Space::Shared(None) | Space::Generic => addr
            .byte_var
            .and_then(|v| facts.get(v))
            .and_then(|f| f.base),
        Space::Global => None,
    }
}

/// Whether `op` may change shared array `array` (`None`: an array the load's address does not
/// name): a store or atomic to it, to an unknown shared array or through a generic address, or an
/// instruction the analysis does not model.
fn clobbers(op: &Op, array: Option<usize>, facts: &[Fact]) -> bool {
    match op {
        Op::Store { addr, .. } | Op::Atomic { addr } => {
            if addr.space == Space::Global {
                return false;
            }
            match (array_of(addr, facts), array) {
                (Some(a), Some(b)) => a == b,
                _ => true,
            }
        }
        Op::Unknown(_) => true,
        _ => false,
    }
}

/// Whether `p` loads from shared memory at all (else there is nothing to settle).
pub(crate) fn has_shared_loads(p: &Program) -> bool {
    p.cfg.node_weights().any(|b| {
        b.insts.iter().any(
            |i| matches!(&i.op, Op::Load { addr, .. } if matches!(addr.space, Space::Shared(_))),
        )
    })
}

/// The shared loads (block, instruction index) that read settled memory; `facts` are `p`'s.
pub(crate) fn settled_shared_loads(p: &Program, facts: &[Fact]) -> HashSet<(usize, usize)> {
    let mut out = HashSet::new();
    for node in p.cfg.node_indices() {
        for (k, inst) in p.cfg[node].insts.iter().enumerate() {
            let Op::Load { addr, .. } = &inst.op else {
                continue;
            };
            if !matches!(addr.space, Space::Shared(_)) {
                continue;
            }
            let array = array_of(addr, facts);
            if let Some(barriers) = barriers_before(p, node, k, array, facts) {
                if barriers
                    .iter()
                    .all(|&b| interval_is_clean(p, b, array, facts))
                {
                    out.insert((node.index(), k));
                }
            }
        }
    }
    out
}

/// The barriers (block, instruction index) that every backward path from instruction `k` of `node`
/// meets before any shared clobber; `None` when a path meets a clobber or the kernel's start first.
fn barriers_before(
    p: &Program,
    node: NodeIndex,
    k: usize,
    array: Option<usize>,
    facts: &[Fact],
) -> Option<Vec<(NodeIndex, usize)>> {
    let mut found = Vec::new();
    let mut seen = HashSet::new();
    // (block, instructions of it to look at: those before this index)
    let mut stack = vec![(node, k)];
    while let Some((b, end)) = stack.pop() {
        let insts = &p.cfg[b].insts;
        let mut met = None;
        for j in (0..end.min(insts.len())).rev() {
            if matches!(insts[j].op, Op::Barrier) {
                met = Some(j);
                break;
            }
            if clobbers(&insts[j].op, array, facts) {
                return None;
            }
        }
        if let Some(j) = met {
            found.push((b, j));
            continue;
        }
        if b == p.entry {
            return None;
        }
        let preds: Vec<NodeIndex> = p.cfg.neighbors_directed(b, Direction::Incoming).collect();
        if preds.is_empty() {
            return None;
        }
        for pred in preds {
            if seen.insert(pred) {
                stack.push((pred, p.cfg[pred].insts.len()));
            }
        }
    }
    Some(found)
}

/// Whether nothing reachable from the barrier at (block, index), up to the next barrier on each
/// path, may change shared memory.
fn interval_is_clean(
    p: &Program,
    (node, k): (NodeIndex, usize),
    array: Option<usize>,
    facts: &[Fact],
) -> bool {
    let mut seen = HashSet::new();
    let mut stack = vec![(node, k + 1)];
    while let Some((b, start)) = stack.pop() {
        let insts = &p.cfg[b].insts;
        let mut ended = false;
        for inst in insts.iter().skip(start) {
            if matches!(inst.op, Op::Barrier) {
                ended = true;
                break;
            }
            if clobbers(&inst.op, array, facts) {
                return false;
            }
        }
        if ended {
            continue;
        }
        for next in p.cfg.neighbors_directed(b, Direction::Outgoing) {
            if seen.insert(next) {
                stack.push((next, 0));
            }
        }
    }
    true
}
