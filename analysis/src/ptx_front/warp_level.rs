//! The PTX instructions of modern CUDA code that the analysis models by what it cares about, rather
//! than as unknown (N001): `activemask` (a per-warp value), `nanosleep` and `cp.async` group fences
//! (no effect on the facts), `cp.async` copies (a shared-memory store of the copied bytes), `mbarrier`
//! operations (atomics on a shared word), and the warp-synchronous matrix instructions (`ldmatrix`,
//! `stmatrix`, `wmma`, `mma`, `wgmma`), which need their whole warp converged like a full-mask
//! collective. A `call` to a device function of the module counts as the barrier or full-mask
//! collective the function reaches (`calls.rs`).

use super::*;

impl Entry {
    /// Models `base` if it is one of the instructions above; `false` leaves it to the caller.
    pub(super) fn warp_level(
        &mut self,
        base: &O,
        mods: &[M],
        ops: &[String],
        loc: &Location,
        guard: Option<Var>,
    ) -> bool {
        match base {
            O::Activemask => {
                // The mask of the lanes executing it: the same in every such lane, unknown in value.
                let defs = ops.first().map(|d| self.registers(d)).unwrap_or_default();
                let mask = MaskInfo::Var(self.temp_named(O::Activemask.name()));
                let op = Op::Collective {
                    kind: Collective::Ballot,
                    mask,
                };
                self.push(loc, op, defs, vec![], guard);
            }
            // Sleeps and memory fences order or delay; nothing for the facts.
            O::Nanosleep | O::Fence | O::Membar => {}
            O::Call => {
                let args = ops.join(", ");
                let Some(summary) = calls::callee(&args).and_then(|c| self.funcs.get(&c).cloned())
                else {
                    return false; // an unknown or external function: N001
                };
                if summary.barrier {
                    self.push(loc, Op::Barrier, vec![], vec![], guard);
                }
                if summary.warp_sync {
                    let op = Op::Collective {
                        kind: Collective::Sync,
                        mask: MaskInfo::Const(u32::MAX),
                    };
                    self.push(loc, op, vec![], vec![], guard);
                }
            }
            O::Cp if mods.first() == Some(&M::Async) => {
                if let (Some(dst), Some(_src)) = (ops.first(), ops.get(1)) {
                    if dst.starts_with('[') {
                        let width = ops
                            .get(2)
                            .and_then(|n| parse_imm(n))
                            .map_or(16, |n| n as u32);
                        let space = if mods.iter().any(|m| m.space() == Some(StateSpace::Shared)) {
                            Space::Shared(None)
                        } else {
                            Space::Generic
                        };
                        let (addr, uses) = self.address(dst, space, loc);
                        let op = Op::Store {
                            addr,
                            width,
                            values: Vec::new(),
                        };
                        self.push(loc, op, vec![], uses, guard);
                    }
                }
                // commit_group / wait_group / wait_all order the copies: nothing for the facts.
            }
            O::Mbarrier => {
                let addr_at = ops.iter().position(|o| o.starts_with('['));
                let defs = match addr_at {
                    Some(k) if k > 0 => self.registers(&ops[0]),
                    _ => Vec::new(),
                };
                if let Some(k) = addr_at {
                    let (addr, uses) = self.address(&ops[k], Space::Shared(None), loc);
                    self.push(loc, Op::Atomic { addr }, defs, uses, guard);
                }
            }
            O::Ldmatrix | O::Stmatrix | O::Wmma | O::Mma | O::Wgmma => {
                // Warp-synchronous (`.sync.aligned`): every lane of the warp must execute it.
                let defs = match base {
                    O::Stmatrix => Vec::new(),
                    _ => ops.first().map(|d| self.registers(d)).unwrap_or_default(),
                };
                let uses: Vec<Var> = ops
                    .iter()
                    .skip(usize::from(!defs.is_empty()))
                    .flat_map(|o| {
                        o.trim_start_matches('{')
                            .trim_end_matches('}')
                            .split(',')
                            .map(str::trim)
                            .filter(|r| r.starts_with('%'))
                            .map(str::to_owned)
                            .collect::<Vec<_>>()
                    })
                    .map(|r| self.var(&r))
                    .collect();
                let op = Op::Collective {
                    kind: Collective::Match,
                    mask: MaskInfo::Const(u32::MAX),
                };
                self.push(loc, op, defs, uses, guard);
            }
            _ => return false,
        }
        true
    }
}
