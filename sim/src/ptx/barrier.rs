//! The block barriers of a PTX launch (`barrier`/`bar`, PTX ISA semantics): a warp arrives once all
//! its non-exited lanes are at the barrier; barrier `a` completes when every thread that has not
//! exited has arrived (or, with a thread count `b`, when `b` threads have: warps arrive whole);
//! `bar.arrive` counts without waiting; `bar.red` reduces a predicate over the threads that arrive.
//! A barrier that can never complete is reported (the threads missing and where they are) instead
//! of hanging.

use super::block::{guarded, PtxBlock, PtxWarp, WarpState};
use super::inst::{BarKind, BarRed, Inst, Op};
use crate::block::Stop;
use crate::finding::{lane_list, FindingKind};

impl PtxBlock<'_> {
    /// `bar`/`barrier`: the warp arrives once all its non-exited lanes are here.
    pub(super) fn exec_barrier(
        &mut self,
        warp: &mut PtxWarp,
        pc: usize,
        active: u32,
        lanes: u32,
    ) -> Result<(), Stop> {
        let Op::Bar {
            kind,
            aligned,
            id,
            count,
            d,
            pred,
        } = self.launch.program.insts[pc].op
        else {
            return Ok(());
        };
        if lanes != active && lanes != 0 {
            let detail = format!(
                "the guard lets lanes {} arrive and holds lanes {} back: a warp arrives at a \
                 barrier whole",
                lane_list(lanes),
                lane_list(active & !lanes)
            );
            return self.barrier_error(warp, pc, active, detail);
        }
        if lanes == 0 {
            warp.stack.advance();
            return Ok(());
        }
        let need = !warp.exited;
        let active = match warp.stack.gather(need) {
            super::simt::Gather::Ready => {
                if warp.stack.top().map_or(0, |t| t.mask) != active {
                    return Ok(()); // lanes joined: evaluate again with all of them
                }
                active
            }
            super::simt::Gather::Yielded => return Ok(()),
            super::simt::Gather::Together(others) => {
                // Lanes of other activations of this function wait at this barrier: they arrive
                // with the running entry, which goes on when the barrier completes.
                if guarded(warp, self.launch.program.insts[pc].guard, others) != others {
                    let detail = "the guard holds back lanes that wait at it in another call of \
                                  the function"
                        .to_owned();
                    return self.barrier_error(warp, pc, others, detail);
                }
                warp.stack.release_waiting(others);
                active | others
            }
            super::simt::Gather::Stuck { elsewhere, at_sync } => {
                let insts = &self.launch.program.insts;
                if at_sync == 0 && warp.stack.run_ahead(elsewhere, |pc| leaves(insts, pc)) {
                    return Ok(()); // they exit first; the barrier is evaluated again after
                }
                let detail = self.absent(warp, elsewhere, at_sync);
                return self.barrier_error(
                    warp,
                    pc,
                    active,
                    format!(
                    "the warp reaches the barrier divergent: {detail}; a barrier waits for every \
                     non-exited thread of the warp, and these cannot arrive"
                ),
                );
            }
        };
        warp.step += 1;
        self.run.counters.barrier += 1;
        self.run.counters.active_lanes += u64::from(active.count_ones());
        let first = active.trailing_zeros() as usize;
        let id_value = warp.regs[id as usize][first];
        let count_value = count.map(|c| warp.regs[c as usize][first] as u32);
        if id_value >= 16 {
            let detail = format!("barrier {id_value} does not exist (barriers are 0 to 15)");
            return self.barrier_error(warp, pc, active, detail);
        }
        let id_value = id_value as u32;
        if kind == BarKind::Arrive {
            self.arrivals[id_value as usize] += 32;
            warp.stack.advance();
            return Ok(());
        }
        let red = match (kind, d, pred) {
            (BarKind::Red(op), Some(d), Some((p, negated))) => {
                let col = &warp.regs[p as usize];
                let bits = super::lanes(active)
                    .filter(|&l| (col[l] & 1 == 1) != negated)
                    .fold(0u32, |m, l| m | 1 << l);
                Some((op, bits, d))
            }
            _ => None,
        };
        warp.state = WarpState::AtBarrier {
            id: id_value,
            count: count_value,
            pc: pc as u32,
            aligned,
            red,
        };
        Ok(())
    }

    /// Where lanes the warp waits for are, in words.
    pub(crate) fn absent(&self, warp: &PtxWarp, elsewhere: u32, at_sync: u32) -> String {
        let mut why = Vec::new();
        if elsewhere != 0 {
            why.push(format!(
                "lanes {} wait where their paths reconverge or are on another path",
                lane_list(elsewhere)
            ));
        }
        if at_sync != 0 {
            let first = at_sync.trailing_zeros();
            let at = warp.stack.pc_of(first).map_or_else(String::new, |pc| {
                format!(" ({})", self.launch.describe(pc as usize))
            });
            why.push(format!(
                "lanes {} wait at another sync instruction{at}",
                lane_list(at_sync)
            ));
        }
        why.join(", ")
    }

    fn barrier_error(
        &mut self,
        warp: &PtxWarp,
        pc: usize,
        lanes: u32,
        detail: String,
    ) -> Result<(), Stop> {
        let f = self.run.finding(
            FindingKind::PartialBarrier,
            pc as u32,
            warp.index,
            lanes,
            None,
            detail,
        );
        self.run
            .report(FindingKind::PartialBarrier, pc as u32, 0, f)
    }

    /// Every running warp waits at a barrier or is done: complete the barriers that can complete,
    /// or report the block as stuck.
    pub(super) fn release_barriers(&mut self, warps: &mut [PtxWarp]) -> Result<(), Stop> {
        let live = warps.iter().filter(|w| w.state != WarpState::Done).count() as u32;
        let mut released = false;
        for id in 0..16u32 {
            let waiting: Vec<usize> = (0..warps.len())
                .filter(
                    |&i| matches!(warps[i].state, WarpState::AtBarrier { id: b, .. } if b == id),
                )
                .collect();
            let Some(&first) = waiting.first() else {
                continue;
            };
            let WarpState::AtBarrier {
                count, pc, aligned, ..
            } = warps[first].state
            else {
                continue;
            };
            let arrived = 32 * waiting.len() as u32 + self.arrivals[id as usize];
            let complete = match count {
                Some(b) => arrived >= b,
                None => waiting.len() as u32 == live,
            };
            if !complete {
                continue;
            }
            let other_pc = waiting.iter().find_map(|&i| match warps[i].state {
                WarpState::AtBarrier { pc: p, .. } if p != pc => Some(p),
                _ => None,
            });
            if let (true, Some(other)) = (aligned, other_pc) {
                let detail = format!(
                    "warps wait for barrier {id} at two different instructions ({} and {}): an \
                     aligned barrier (`bar.sync`, `barrier.sync.aligned`) must be the same \
                     instruction for every thread",
                    self.launch.describe(pc as usize),
                    self.launch.describe(other as usize)
                );
                let w = &warps[first];
                return self.barrier_error(w, pc as usize, !w.exited, detail);
            }
            let mut total = (0u32, true, false); // popc, and, or
            for &i in &waiting {
                if let WarpState::AtBarrier {
                    red: Some((_, bits, _)),
                    ..
                } = warps[i].state
                {
                    let present = !warps[i].exited;
                    total.0 += bits.count_ones();
                    total.1 &= bits & present == present;
                    total.2 |= bits != 0;
                }
            }
            for &i in &waiting {
                let w = &mut warps[i];
                if let WarpState::AtBarrier {
                    red: Some((op, _, d)),
                    ..
                } = w.state
                {
                    let value = match op {
                        BarRed::Popc => u64::from(total.0),
                        BarRed::And => u64::from(total.1),
                        BarRed::Or => u64::from(total.2),
                    };
                    for l in super::lanes(!w.exited) {
                        w.regs[d as usize][l] = value;
                    }
                }
                w.state = WarpState::Running;
                w.stack.advance();
            }
            self.arrivals[id as usize] = 0;
            self.run.counters.barriers += 1;
            if let Some(race) = &mut self.run.race {
                race.barrier();
            }
            released = true;
        }
        if released {
            return Ok(());
        }
        self.stuck(warps)
    }

    /// No barrier can complete: report who waits where and who is missing.
    fn stuck(&mut self, warps: &[PtxWarp]) -> Result<(), Stop> {
        let Some(first) = warps
            .iter()
            .find(|w| matches!(w.state, WarpState::AtBarrier { .. }))
        else {
            return Err(Stop);
        };
        let WarpState::AtBarrier { id, count, pc, .. } = first.state else {
            return Err(Stop);
        };
        let arrived: u32 = warps
            .iter()
            .filter(|w| matches!(w.state, WarpState::AtBarrier { id: b, .. } if b == id))
            .map(|w| (!w.exited).count_ones())
            .sum();
        let mut missing = Vec::new();
        for w in warps {
            match w.state {
                WarpState::AtBarrier { id: b, .. } if b == id => {}
                WarpState::AtBarrier { id: b, pc: p, .. } => missing.push(format!(
                    "warp {} waits at barrier {b} ({})",
                    w.index,
                    self.launch.describe(p as usize)
                )),
                _ => {}
            }
        }
        let needed = match count {
            Some(b) => format!("{b} threads"),
            None => "every thread that has not exited".into(),
        };
        let detail = format!(
            "{arrived} of {} threads arrived at barrier {id}, which needs {needed}; {}; the block \
             was stopped instead of hanging",
            self.launch.shape.threads,
            if missing.is_empty() {
                "the others exited or arrive at no barrier".to_owned()
            } else {
                missing.join("; ")
            }
        );
        let lanes = !first.exited;
        let f = self.run.finding(
            FindingKind::PartialBarrier,
            pc,
            first.index,
            lanes,
            None,
            detail,
        );
        self.run.report(FindingKind::PartialBarrier, pc, 0, f)?;
        Err(Stop)
    }
}

/// The most instructions [`leaves`] looks at.
const LEAVES_SEARCH: usize = 4096;

/// Whether every path from instruction `pc` leaves the kernel (`exit`, `trap`, a failed assert)
/// without meeting a barrier, a warp collective, a call or an indirect branch — what lanes running
/// ahead of their warp may do alone.
fn leaves(insts: &[Inst], pc: u32) -> bool {
    let mut seen = std::collections::HashSet::new();
    let mut stack = vec![pc as usize];
    while let Some(at) = stack.pop() {
        if !seen.insert(at) {
            continue;
        }
        if seen.len() > LEAVES_SEARCH {
            return false;
        }
        let Some(inst) = insts.get(at) else {
            return false;
        };
        let guarded = inst.guard.is_some();
        match &inst.op {
            Op::Exit | Op::Trap | Op::AssertFail { .. } if !guarded => continue,
            Op::Exit | Op::Trap | Op::AssertFail { .. } => stack.push(at + 1),
            &Op::Bra { target, .. } => {
                stack.push(target as usize);
                if guarded {
                    stack.push(at + 1);
                }
            }
            Op::Bar { .. }
            | Op::WarpSync { .. }
            | Op::Shfl { .. }
            | Op::Vote { .. }
            | Op::Match { .. }
            | Op::Activemask { .. }
            | Op::Redux { .. }
            | Op::Call { .. }
            | Op::Ret
            | Op::Brx { .. }
            | Op::Async(_)
            | Op::Mma(_) => return false,
            _ => stack.push(at + 1),
        }
    }
    true
}
