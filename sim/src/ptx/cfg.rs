//! Reconvergence points: the immediate post-dominator of every branch, on the control-flow graph of
//! the decoded instructions (one node per instruction, plus a virtual exit that `ret` and `exit`
//! lead to). A divergent warp's paths meet again at the first instruction every path from the
//! branch to the exit goes through, as in GPGPU-Sim's functional model. Instructions that cannot
//! reach the exit (an endless loop) have no post-dominator; their branches reconverge at [`EXIT`]
//! (never), and the step limit stops them.

use petgraph::algo::dominators::simple_fast;
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::Reversed;

/// The virtual exit node: "never reconverges" as a reconvergence point.
pub(crate) const EXIT: u32 = u32::MAX;

/// How control leaves an instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Flow {
    /// To the next instruction.
    Next,
    /// To `target`, and also to the next instruction when `conditional`.
    Branch { target: u32, conditional: bool },
    /// To the exit, and also to the next instruction when `conditional`.
    Exit { conditional: bool },
    /// To each of `targets` (`brx.idx`), and also to the next instruction when `conditional`.
    Multi {
        targets: Vec<u32>,
        conditional: bool,
    },
}

/// The immediate post-dominator of each of `n` instructions with the given `flows` ([`EXIT`] for
/// the exit itself or for none): petgraph's dominators (Cooper, Harvey and Kennedy) of the reversed
/// graph from the exit. Instructions that cannot reach the exit are not in that graph, so a branch
/// with one side in an endless loop reconverges where its other side's paths meet.
pub(crate) fn post_dominators(flows: &[Flow]) -> Vec<u32> {
    let n = flows.len();
    let exit = n; // node index of the virtual exit
    let mut graph = DiGraph::<(), ()>::with_capacity(n + 1, n * 2);
    for _ in 0..=n {
        graph.add_node(());
    }
    for (i, flow) in flows.iter().enumerate() {
        let next = if i + 1 < n { i + 1 } else { exit };
        let (targets, conditional): (Vec<usize>, bool) = match *flow {
            Flow::Next => (vec![next], false),
            Flow::Branch {
                target,
                conditional,
            } => (vec![(target as usize).min(exit)], conditional),
            Flow::Exit { conditional } => (vec![exit], conditional),
            Flow::Multi {
                ref targets,
                conditional,
            } => (
                targets.iter().map(|&t| (t as usize).min(exit)).collect(),
                conditional,
            ),
        };
        let from = NodeIndex::new(i);
        for t in targets.into_iter().chain(conditional.then_some(next)) {
            graph.update_edge(from, NodeIndex::new(t), ());
        }
    }
    let pdom = simple_fast(Reversed(&graph), NodeIndex::new(exit));
    (0..n)
        .map(|i| match pdom.immediate_dominator(NodeIndex::new(i)) {
            Some(d) if d.index() != exit => d.index() as u32,
            _ => EXIT,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn if_else_reconverges_at_the_join() {
        // 0: @p bra 3; 1: a; 2: bra 4; 3: b; 4: c; 5: ret
        let flows = vec![
            Flow::Branch {
                target: 3,
                conditional: true,
            },
            Flow::Next,
            Flow::Branch {
                target: 4,
                conditional: false,
            },
            Flow::Next,
            Flow::Next,
            Flow::Exit { conditional: false },
        ];
        let ipdom = post_dominators(&flows);
        assert_eq!(ipdom[0], 4);
        assert_eq!(ipdom[4], 5);
        assert_eq!(ipdom[5], EXIT);
    }

    #[test]
    fn a_loop_with_a_break_reconverges_after_it_and_an_early_return_never() {
        // 0: head; 1: @p bra 4 (break); 2: @q ret; 3: bra 0; 4: after; 5: ret
        let flows = vec![
            Flow::Next,
            Flow::Branch {
                target: 4,
                conditional: true,
            },
            Flow::Exit { conditional: true },
            Flow::Branch {
                target: 0,
                conditional: false,
            },
            Flow::Next,
            Flow::Exit { conditional: false },
        ];
        let ipdom = post_dominators(&flows);
        assert_eq!(ipdom[1], EXIT, "the loop may leave by the return");
        assert_eq!(ipdom[2], EXIT);
        // An endless loop has no post-dominator.
        let endless = vec![Flow::Branch {
            target: 0,
            conditional: false,
        }];
        assert_eq!(post_dominators(&endless), vec![EXIT]);
    }

    #[test]
    fn a_branch_into_an_endless_loop_reconverges_where_the_other_side_goes() {
        // 0: @p bra 3; 1: a; 2: ret; 3: bra 3 (forever)
        let flows = vec![
            Flow::Branch {
                target: 3,
                conditional: true,
            },
            Flow::Next,
            Flow::Exit { conditional: false },
            Flow::Branch {
                target: 3,
                conditional: false,
            },
        ];
        assert_eq!(post_dominators(&flows), vec![1, 2, EXIT, EXIT]);
    }
}
