//! Which threads skip a barrier and what becomes of them: the PTX ISA releases a barrier that only
//! exited threads hold up (`exit`: "if the exiting threads are holding up the barrier, the barrier
//! is released"; `barrier`: it waits for the *non-exited* threads), so a barrier that the other
//! threads skip on their way out of the kernel — `if (i >= n) return; … __syncthreads();` — works on
//! NVIDIA GPUs, while the CUDA C++ Programming Guide calls `__syncthreads()` in conditional code
//! undefined unless the condition is the same in the whole block. B001 is an error only when the
//! threads that skip a barrier can reach a barrier (another one, or this one again) before they
//! exit: then the block waits at barriers that do not match.

use std::cell::OnceCell;
use std::collections::HashSet;

use petgraph::graph::NodeIndex;
use petgraph::Direction;

use crate::control::{control_dependence, immediate_post_dominators};
use crate::program::{Op, Program};

/// For the barrier blocks of one program: whether the threads skipping each one only exit. The
/// post-dominators and control dependence are computed at the first divergent barrier asked about.
pub(crate) struct Skippers {
    graphs: OnceCell<Graphs>,
}

struct Graphs {
    ipdom: Vec<Option<NodeIndex>>,
    deps: Vec<Vec<NodeIndex>>,
}

impl Skippers {
    pub(crate) fn new() -> Skippers {
        Skippers {
            graphs: OnceCell::new(),
        }
    }

    /// Whether every thread that skips the barrier in block `b` (leaving a branch `b` depends on by
    /// a side from which `b` can be avoided) reaches the kernel's exit without meeting a barrier:
    /// neither another one nor `b` again.
    pub(crate) fn only_exit(&self, p: &Program, b: usize) -> bool {
        let g = self.graphs.get_or_init(|| Graphs {
            ipdom: immediate_post_dominators(p),
            deps: control_dependence(p),
        });
        let target = NodeIndex::new(b);
        let Some(branches) = g.deps.get(b) else {
            return false;
        };
        if branches.is_empty() {
            return false;
        }
        branches.iter().all(|&a| {
            p.cfg
                .neighbors_directed(a, Direction::Outgoing)
                .filter(|&s| !post_dominated_by(&g.ipdom, s, target))
                .all(|s| !reaches_a_barrier(p, s, target))
        })
    }
}

/// Whether every path from `s` to the exit passes through `b` (`ipdom`: immediate post-dominators).
fn post_dominated_by(ipdom: &[Option<NodeIndex>], s: NodeIndex, b: NodeIndex) -> bool {
    let mut at = Some(s);
    let mut steps = 0;
    while let Some(x) = at {
        if x == b {
            return true;
        }
        steps += 1;
        if steps > ipdom.len() {
            return false;
        }
        at = ipdom.get(x.index()).copied().flatten();
    }
    false
}

/// Whether a path from `s` reaches a barrier: one in a block other than `b`, or `b` itself again.
fn reaches_a_barrier(p: &Program, s: NodeIndex, b: NodeIndex) -> bool {
    let mut seen = HashSet::new();
    let mut stack = vec![s];
    while let Some(x) = stack.pop() {
        if x == b {
            return true;
        }
        if !seen.insert(x) {
            continue;
        }
        if p.cfg[x].insts.iter().any(|i| matches!(i.op, Op::Barrier)) {
            return true;
        }
        stack.extend(p.cfg.neighbors_directed(x, Direction::Outgoing));
    }
    false
}
