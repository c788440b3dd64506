//! The shape of the control-flow graph the race simulation walks: each branch's taken and
//! fall-through successors, the natural loops (so an access can be named by its loop iteration), and
//! for each branch the region a thread may step over when its condition is not known.
//!
//! Stepping over a branch whose condition the simulation cannot evaluate (it depends on data) is
//! sound when every path from the branch meets again at its immediate post-dominator without a
//! barrier on the way (the thread is in the same barrier phase either way) and without a loop that
//! waits on memory (a spin loop on a flag orders accesses the way a barrier does). The thread then
//! resumes at the meeting point with every variable the region writes unknown; what it accessed inside
//! is not recorded.

use petgraph::algo::dominators::simple_fast;
use petgraph::graph::NodeIndex;
use petgraph::visit::EdgeRef;
use petgraph::Direction;

use crate::control::immediate_post_dominators;
use crate::program::{Op, Program, Terminator, Var};

/// Where a thread goes when it cannot tell which side of a branch it takes.
pub(super) struct Skip {
    /// The branch's immediate post-dominator.
    pub join: NodeIndex,
    /// Every variable the blocks in between write.
    pub defs: Vec<Var>,
}

/// The CFG facts the simulation needs, computed once per kernel.
pub(super) struct Shape {
    /// For a block ending in a branch with two successors: (taken, fall-through).
    pub branch: Vec<Option<(NodeIndex, NodeIndex)>>,
    /// For a block ending in a jump: its successor (`None`: it leaves the kernel).
    pub jump: Vec<Option<NodeIndex>>,
    /// For a branch block: the region a thread may step over.
    pub skip: Vec<Option<Skip>>,
    /// The header of the innermost natural loop each block belongs to.
    pub innermost: Vec<Option<NodeIndex>>,
    /// For a loop header: the blocks of its natural loop.
    pub body: Vec<Option<Vec<bool>>>,
}

/// Successors in the order the front ends add their edges: a branch's taken side first.
fn successors(p: &Program, n: NodeIndex) -> Vec<NodeIndex> {
    let mut edges: Vec<_> = p.cfg.edges(n).map(|e| (e.id(), e.target())).collect();
    edges.sort_by_key(|&(id, _)| id);
    edges.into_iter().map(|(_, t)| t).collect()
}

/// Variables whose value comes from memory, an atomic or an unmodelled instruction, directly or
/// through arithmetic: a loop whose exit tests one may be waiting for another thread.
fn memory_tainted(p: &Program) -> Vec<bool> {
    let mut taint = vec![false; p.var_names.len()];
    loop {
        let mut changed = false;
        for inst in p.cfg.node_weights().flat_map(|b| &b.insts) {
            let source = match inst.op {
                Op::Load { .. } | Op::Atomic { .. } | Op::Unknown(_) => true,
                Op::Arith(_) => inst.uses.iter().any(|&u| taint.get(u) == Some(&true)),
                _ => false,
            };
            if !source {
                continue;
            }
            for &d in &inst.defs {
                if let Some(t) = taint.get_mut(d) {
                    changed |= !*t;
                    *t = true;
                }
            }
        }
        if !changed {
            return taint;
        }
    }
}

/// Whether the blocks marked in `inside` contain a cycle (iterative depth-first search).
fn has_cycle(p: &Program, inside: &[bool]) -> bool {
    // 0: unvisited, 1: on the stack, 2: done.
    let mut state = vec![0u8; inside.len()];
    for start in (0..inside.len()).filter(|&b| inside[b]) {
        if state[start] != 0 {
            continue;
        }
        let mut stack = vec![(start, successors(p, NodeIndex::new(start)), 0usize)];
        state[start] = 1;
        while let Some(top) = stack.last_mut() {
            let Some(&s) = top.1.get(top.2) else {
                state[top.0] = 2;
                stack.pop();
                continue;
            };
            top.2 += 1;
            let s = s.index();
            if !inside[s] {
                continue;
            }
            match state[s] {
                1 => return true,
                0 => {
                    state[s] = 1;
                    stack.push((s, successors(p, NodeIndex::new(s)), 0));
                }
                _ => {}
            }
        }
    }
    false
}

fn skip_region(
    p: &Program,
    a: NodeIndex,
    join: NodeIndex,
    cond: Var,
    taint: &[bool],
) -> Option<Skip> {
    let mut inside = vec![false; p.cfg.node_count()];
    let mut stack: Vec<NodeIndex> = successors(p, a);
    while let Some(n) = stack.pop() {
        if n == join || inside[n.index()] {
            continue;
        }
        inside[n.index()] = true;
        stack.extend(successors(p, n));
    }
    let blocks = || (0..inside.len()).filter(|&b| inside[b]).map(NodeIndex::new);
    let insts = || blocks().flat_map(|b| &p.cfg[b].insts);
    if insts().any(|i| matches!(i.op, Op::Barrier)) {
        return None;
    }
    let tainted = |v: Var| taint.get(v).copied().unwrap_or(true);
    let waits = tainted(cond)
        || blocks()
            .any(|b| matches!(p.cfg[b].term, Terminator::Branch { cond, .. } if tainted(cond)));
    if waits && has_cycle(p, &inside) {
        return None;
    }
    let mut defs: Vec<Var> = insts().flat_map(|i| i.defs.iter().copied()).collect();
    defs.sort_unstable();
    defs.dedup();
    Some(Skip { join, defs })
}

impl Shape {
    /// The shape of `p`'s CFG.
    pub(super) fn of(p: &Program) -> Shape {
        let n = p.cfg.node_count();
        let ipdom = immediate_post_dominators(p);
        let taint = memory_tainted(p);
        let mut shape = Shape {
            branch: vec![None; n],
            jump: vec![None; n],
            skip: (0..n).map(|_| None).collect(),
            innermost: vec![None; n],
            body: vec![None; n],
        };
        for node in p.cfg.node_indices() {
            let succ = successors(p, node);
            match p.cfg[node].term {
                Terminator::Branch { cond, .. } => {
                    if let [taken, fall] = succ[..] {
                        shape.branch[node.index()] = Some((taken, fall));
                    }
                    shape.skip[node.index()] = ipdom[node.index()]
                        .and_then(|join| skip_region(p, node, join, cond, &taint));
                }
                Terminator::Jump => shape.jump[node.index()] = succ.first().copied(),
                Terminator::Return => {}
            }
        }
        // Natural loops: a back edge u → h where h dominates u; the body is h and every block that
        // reaches u without passing h.
        let dom = simple_fast(&p.cfg, p.entry);
        for e in p.cfg.edge_references() {
            let (u, h) = (e.source(), e.target());
            if !dom.dominators(u).is_some_and(|mut d| d.any(|x| x == h)) {
                continue;
            }
            let body = shape.body[h.index()].get_or_insert_with(|| vec![false; n]);
            body[h.index()] = true;
            let mut stack = vec![u];
            while let Some(b) = stack.pop() {
                if body[b.index()] {
                    continue;
                }
                body[b.index()] = true;
                stack.extend(p.cfg.neighbors_directed(b, Direction::Incoming));
            }
        }
        let headers: Vec<(usize, &Vec<bool>)> = shape
            .body
            .iter()
            .enumerate()
            .filter_map(|(h, b)| Some((h, b.as_ref()?)))
            .collect();
        for b in 0..n {
            shape.innermost[b] = headers
                .iter()
                .filter(|(_, body)| body[b])
                .min_by_key(|(h, body)| (body.iter().filter(|&&x| x).count(), *h))
                .map(|&(h, _)| NodeIndex::new(h));
        }
        shape
    }
}
