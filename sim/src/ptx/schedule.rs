//! The order in which a block's warps run, and the proof that warps waiting on each other through
//! memory never will stop waiting.
//!
//! Warps take turns: each runs until it waits at a barrier, finishes, executes `nanosleep`, or has
//! issued [`TURN`] warp-instructions, then the next warp runs; barriers are released when no warp is
//! running. The order is fixed, so every run of a launch is the same. A warp that spins on a flag
//! another warp of its block sets (a lock, a producer/consumer hand-off) therefore lets that warp run
//! and finishes.
//!
//! A spin that nothing will ever end is a **deadlock** finding, not a hang: after a round of turns in
//! which no write changed a byte of memory, the scheduler fingerprints the block (every warp's state,
//! SIMT stack and registers, the barrier arrivals). Execution is a function of that state and memory,
//! so when a fingerprint comes back with memory unchanged since it was taken, the warps are in a cycle
//! they cannot leave. That proof needs memory no one else writes: it is made only when the blocks of
//! the launch run one after another (one worker thread, or a kernel with global atomics); otherwise a
//! spin that never ends meets the step limit. A spin with a counter (a timeout) changes its registers
//! every round and is not a deadlock: it ends on its own, or at the step limit.

use std::collections::HashSet;
use std::hash::{DefaultHasher, Hash, Hasher};

use super::block::{PtxBlock, PtxWarp, WarpState};
use crate::block::Stop;
use crate::finding::{lane_list, FindingKind};

/// Warp-instructions a warp issues in one turn before the next running warp gets its turn.
pub(crate) const TURN: u32 = 1024;

/// Quiet rounds per fingerprint.
const SAMPLE: u32 = 8;

/// Fingerprints remembered since memory last changed (the set is cleared past this, which only
/// delays a deadlock finding).
const REMEMBERED: usize = 4096;

impl PtxBlock<'_> {
    /// Runs every warp to its end, in turns.
    pub(super) fn schedule(&mut self, warps: &mut [PtxWarp]) -> Result<(), Stop> {
        let mut seen: HashSet<u64> = HashSet::new();
        // Rounds in a row without a change of memory: a fingerprint is taken every [`SAMPLE`]th
        // (a state that repeats with period p also repeats at sampled rounds, p·SAMPLE rounds
        // apart at most, so a deadlock is still proven, a little later, and a spin that changes
        // nothing costs a hash of every register only now and then).
        let mut quiet = 0u32;
        loop {
            self.run.changed = false;
            for warp in warps.iter_mut() {
                self.turn(warp)?;
            }
            if warps.iter().all(|w| w.state == WarpState::Done) {
                return Ok(());
            }
            if !warps.iter().any(|w| w.state == WarpState::Running) {
                seen.clear();
                self.release_barriers(warps)?;
                continue;
            }
            if self.run.changed || !self.launch.serial {
                seen.clear();
                quiet = 0;
                continue;
            }
            quiet += 1;
            if quiet % SAMPLE != 0 {
                continue;
            }
            if seen.len() >= REMEMBERED {
                seen.clear();
            }
            if !seen.insert(self.fingerprint(warps)) {
                return self.deadlock(warps);
            }
        }
    }

    /// One turn of `warp`: up to [`TURN`] warp-instructions while it runs.
    fn turn(&mut self, warp: &mut PtxWarp) -> Result<(), Stop> {
        for _ in 0..TURN {
            if warp.state != WarpState::Running {
                return Ok(());
            }
            self.run.steps += 1;
            if self.run.steps > self.run.options.step_limit {
                let pc = warp.stack.top().map_or(0, |t| t.pc);
                let f = self.run.finding(
                    FindingKind::StepLimit,
                    pc,
                    warp.index,
                    warp.stack.top().map_or(0, |t| t.mask),
                    None,
                    format!(
                        "the block ran more than {} warp-instructions without finishing (an \
                         endless loop, or warps waiting on memory that other blocks running at \
                         the same time may write?); it was stopped here (SimOptions::step_limit \
                         raises the limit)",
                        self.run.options.step_limit
                    ),
                );
                return self.run.report(FindingKind::StepLimit, pc, 0, f);
            }
            if self.run.options.profile {
                let pc = warp.stack.top().map_or(0, |t| t.pc as usize);
                let before = self.run.counters;
                let stepped = self.step(warp);
                self.run.attribute(pc, &before);
                stepped?;
            } else {
                self.step(warp)?;
            }
            if std::mem::take(&mut warp.yield_turn) {
                return Ok(());
            }
        }
        Ok(())
    }

    /// Everything the block's next steps depend on, besides memory.
    fn fingerprint(&self, warps: &[PtxWarp]) -> u64 {
        let mut h = DefaultHasher::new();
        self.arrivals.hash(&mut h);
        for w in warps {
            match w.state {
                WarpState::Running => 0u32.hash(&mut h),
                WarpState::AtBarrier { id, pc, .. } => (1u32, id, pc).hash(&mut h),
                WarpState::Done => 2u32.hash(&mut h),
            }
            w.exited.hash(&mut h);
            for e in &w.stack.entries {
                (e.pc, e.rpc, e.mask).hash(&mut h);
            }
            if w.state == WarpState::Running {
                w.regs.hash(&mut h);
            }
        }
        h.finish()
    }

    /// The deadlock finding: the spinning warps with their lines and lanes, and the warps waiting
    /// at barriers.
    fn deadlock(&mut self, warps: &[PtxWarp]) -> Result<(), Stop> {
        let running: Vec<&PtxWarp> = warps
            .iter()
            .filter(|w| w.state == WarpState::Running)
            .collect();
        let describe = |w: &PtxWarp| {
            let top = w.stack.entries.last().map_or((0, 0), |t| (t.pc, t.mask));
            format!(
                "warp {} ({}, lanes {})",
                w.index,
                self.launch.describe(top.0 as usize),
                lane_list(top.1)
            )
        };
        let spinning: Vec<String> = running.iter().map(|w| describe(w)).collect();
        let barriers: Vec<String> = warps
            .iter()
            .filter_map(|w| match w.state {
                WarpState::AtBarrier { id, pc, .. } => Some(format!(
                    "warp {} at barrier {id} ({})",
                    w.index,
                    self.launch.describe(pc as usize)
                )),
                _ => None,
            })
            .collect();
        let finished = warps.iter().filter(|w| w.state == WarpState::Done).count();
        let mut detail = format!(
            "deadlock: {} wait{} on memory that no thread will change: {}; each came back to a \
             state it had been in with no byte of memory written in between",
            if spinning.len() == 1 {
                "one warp"
            } else {
                "the warps"
            },
            if spinning.len() == 1 { "s" } else { "" },
            spinning.join(", ")
        );
        if !barriers.is_empty() {
            detail += &format!("; waiting at barriers: {}", barriers.join(", "));
        }
        if finished > 0 {
            detail += &format!("; {finished} warp(s) of the block finished");
        }
        let first = running[0];
        let top = first
            .stack
            .entries
            .last()
            .map_or((0, 0), |t| (t.pc, t.mask));
        let f = self.run.finding(
            FindingKind::Deadlock,
            top.0,
            first.index,
            top.1,
            None,
            detail,
        );
        self.run.report(FindingKind::Deadlock, top.0, 0, f)
    }
}
