//! Reconvergence points: the immediate post-dominator of every branch, on the control-flow graph of
//! the decoded instructions (one node per instruction, plus a virtual exit that `ret` and `exit`
//! lead to). A divergent warp's paths meet again at the first instruction every path from the
//! branch to the exit goes through, as in GPGPU-Sim's functional model. Instructions that cannot
//! reach the exit (an endless loop) have no post-dominator; their branches reconverge at [`EXIT`]
//! (never), and the step limit stops them.

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
/// the exit itself or for none).
pub(crate) fn post_dominators(flows: &[Flow]) -> Vec<u32> {
    let n = flows.len();
    let exit = n; // node index of the virtual exit
    let next = |i: usize| if i + 1 < n { i + 1 } else { exit };
    // Successors; predecessors are the reverse graph's successors.
    let mut succ: Vec<Vec<usize>> = Vec::with_capacity(n);
    for (i, flow) in flows.iter().enumerate() {
        succ.push(match *flow {
            Flow::Next => vec![next(i)],
            Flow::Branch {
                target,
                conditional,
            } => {
                let mut s = vec![(target as usize).min(exit)];
                if conditional {
                    s.push(next(i));
                }
                s
            }
            Flow::Exit { conditional } => {
                let mut s = vec![exit];
                if conditional {
                    s.push(next(i));
                }
                s
            }
            Flow::Multi {
                ref targets,
                conditional,
            } => {
                let mut s: Vec<usize> = targets.iter().map(|&t| (t as usize).min(exit)).collect();
                if conditional {
                    s.push(next(i));
                }
                s.sort_unstable();
                s.dedup();
                s
            }
        });
    }
    let mut pred: Vec<Vec<usize>> = vec![Vec::new(); n + 1];
    for (i, s) in succ.iter().enumerate() {
        for &t in s {
            pred[t].push(i);
        }
    }
    // Post-order of the reverse graph from the exit (iterative DFS).
    let mut order = Vec::with_capacity(n + 1);
    let mut seen = vec![false; n + 1];
    let mut stack: Vec<(usize, usize)> = vec![(exit, 0)];
    seen[exit] = true;
    while let Some(&mut (node, ref mut child)) = stack.last_mut() {
        if let Some(&p) = pred[node].get(*child) {
            *child += 1;
            if !seen[p] {
                seen[p] = true;
                stack.push((p, 0));
            }
        } else {
            order.push(node);
            stack.pop();
        }
    }
    let mut rank = vec![usize::MAX; n + 1];
    for (i, &node) in order.iter().enumerate() {
        rank[node] = i;
    }
    // Cooper, Harvey and Kennedy's iteration on the reverse graph (successors become predecessors).
    const NONE: usize = usize::MAX;
    let mut ipdom = vec![NONE; n + 1];
    ipdom[exit] = exit;
    let intersect = |ipdom: &[usize], mut a: usize, mut b: usize| {
        while a != b {
            while rank[a] < rank[b] {
                a = ipdom[a];
            }
            while rank[b] < rank[a] {
                b = ipdom[b];
            }
        }
        a
    };
    let mut changed = true;
    while changed {
        changed = false;
        for &node in order.iter().rev() {
            if node == exit {
                continue;
            }
            let mut new = NONE;
            for &s in &succ[node] {
                if ipdom[s] == NONE {
                    continue;
                }
                new = if new == NONE {
                    s
                } else {
                    intersect(&ipdom, s, new)
                };
            }
            if new != NONE && ipdom[node] != new {
                ipdom[node] = new;
                changed = true;
            }
        }
    }
    ipdom[..n]
        .iter()
        .map(|&d| {
            if d == NONE || d == exit {
                EXIT
            } else {
                d as u32
            }
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
}
