//! Post-dominators and control dependence on a [`Program`]'s CFG.
//!
//! Post-dominators come from petgraph's dominator algorithm on the reversed graph, rooted at a virtual
//! exit that every returning block (and every block that cannot reach a return, such as an infinite
//! loop) flows into. Block `B` is control dependent on a branch in block `A` when `A` has a successor
//! that `B` post-dominates while `B` does not strictly post-dominate `A` — the classic construction:
//! walk from each successor of a branching block up the post-dominator tree until `A`'s immediate
//! post-dominator.

use petgraph::algo::dominators::{simple_fast, Dominators};
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::{Dfs, EdgeRef, Reversed};
use petgraph::Direction;

use crate::program::{Program, Terminator};

/// The post-dominator tree of `p`'s CFG under a virtual exit (the graph's last node, index
/// `p.cfg.node_count()`), which every returning block, every block without successors and every block
/// that cannot reach a return (an infinite loop) flows into.
fn post_dominators(p: &Program) -> (Dominators<NodeIndex>, NodeIndex) {
    let n = p.cfg.node_count();
    // The CFG's shape plus a virtual exit.
    let mut g: DiGraph<(), ()> = DiGraph::with_capacity(n + 1, p.cfg.edge_count() + n);
    for _ in 0..n {
        g.add_node(());
    }
    let exit = g.add_node(());
    for e in p.cfg.edge_references() {
        g.add_edge(e.source(), e.target(), ());
    }
    for node in p.cfg.node_indices() {
        let leaves = p
            .cfg
            .neighbors_directed(node, Direction::Outgoing)
            .next()
            .is_none();
        if matches!(p.cfg[node].term, Terminator::Return) || leaves {
            g.add_edge(node, exit, ());
        }
    }
    // Blocks that cannot reach the exit (infinite loops) get an edge to it, so post-dominance exists.
    let mut reaches = vec![false; n + 1];
    let reversed = Reversed(&g);
    let mut dfs = Dfs::new(reversed, exit);
    while let Some(v) = dfs.next(reversed) {
        reaches[v.index()] = true;
    }
    for node in p.cfg.node_indices() {
        if !reaches[node.index()] {
            g.add_edge(node, exit, ());
        }
    }
    (simple_fast(Reversed(&g), exit), exit)
}

/// For each block, its immediate post-dominator: the first block every path from it to a return goes
/// through (`None` when that is the kernel's exit itself).
pub fn immediate_post_dominators(p: &Program) -> Vec<Option<NodeIndex>> {
    let (pdom, exit) = post_dominators(p);
    p.cfg
        .node_indices()
        .map(|b| pdom.immediate_dominator(b).filter(|&d| d != exit))
        .collect()
}

/// For each block, the branching blocks it is control dependent on.
pub fn control_dependence(p: &Program) -> Vec<Vec<NodeIndex>> {
    let n = p.cfg.node_count();
    let (pdom, exit) = post_dominators(p);
    let mut deps = vec![Vec::new(); n];
    for a in p.cfg.node_indices() {
        if !matches!(p.cfg[a].term, Terminator::Branch { .. }) {
            continue;
        }
        let stop = pdom.immediate_dominator(a);
        for s in p.cfg.neighbors_directed(a, Direction::Outgoing) {
            let mut runner = Some(s);
            while let Some(r) = runner {
                if Some(r) == stop || r == exit {
                    break;
                }
                if !deps[r.index()].contains(&a) {
                    deps[r.index()].push(a);
                }
                runner = pdom.immediate_dominator(r);
            }
        }
    }
    deps
}
