//! The warp-level `.sync` instructions: `shfl.sync`, `vote.sync`, `match.sync`, `redux.sync` and
//! `bar.warp.sync`. Each lane passes a membermask; per the PTX ISA the lane waits until every
//! non-exited lane of its mask executes the same instruction with the same mask, and the operation
//! acts on those lanes. Lanes of one warp may pass different masks (16-lane tiles): each distinct
//! mask is one group. A lane outside its own mask, a mask naming a lane that passes another mask or
//! is guarded off, or lanes that can never arrive (`simt.rs`) are synccheck errors; a shuffle reading
//! a lane outside the mask or an exited one (undefined in PTX) gives the lane its own value, marked
//! as poison (`poison.rs`): reported only where the value is used.

use super::block::{guarded, PtxBlock, PtxWarp};
use super::inst::{Op, ReduxOp, ShflMode, VoteMode};
use super::lanes;
use super::simt::Gather;
use crate::block::Stop;
use crate::finding::{lane_list, FindingKind};

impl PtxBlock<'_> {
    fn collective_error(
        &mut self,
        warp: &PtxWarp,
        pc: usize,
        lanes_bad: u32,
        detail: String,
    ) -> Result<(), Stop> {
        let f = self.run.finding(
            FindingKind::CollectiveMask,
            pc as u32,
            warp.index,
            lanes_bad,
            None,
            detail,
        );
        self.run
            .report(FindingKind::CollectiveMask, pc as u32, 0, f)
    }

    /// Executes the collective at `pc`: `active` lanes are at it, the guard lets `mask` through.
    pub(crate) fn exec_collective(
        &mut self,
        warp: &mut PtxWarp,
        pc: usize,
        active: u32,
        mask: u32,
    ) -> Result<(), Stop> {
        let program = self.launch.program;
        let inst = &program.insts[pc];
        let op = &inst.op;
        let Some(mask_reg) = op.sync_mask() else {
            return Ok(());
        };
        if mask == 0 {
            warp.stack.advance();
            return Ok(());
        }
        let masks = warp.regs[mask_reg as usize];
        let Some(need) = self.need(warp, pc, &masks, active, mask)? else {
            return Ok(());
        };
        let (active, mask, together) = match warp.stack.gather(need) {
            Gather::Ready => (active, mask, 0),
            Gather::Yielded => return Ok(()),
            Gather::Together(lanes) => {
                // Lanes of other activations wait here too: one execution for all of them.
                let (active, mask) = (active | lanes, mask | guarded(warp, inst.guard, lanes));
                if self.need(warp, pc, &masks, active, mask)?.is_none() {
                    return Ok(());
                }
                (active, mask, lanes)
            }
            Gather::Stuck { elsewhere, at_sync } => {
                let detail = format!(
                    "the membermask names lanes that cannot execute it: {}",
                    self.absent(warp, elsewhere, at_sync)
                );
                return self.collective_error(warp, pc, elsewhere | at_sync, detail);
            }
        };
        if together == 0 && warp.stack.top().map_or(0, |t| t.mask) != active {
            return Ok(()); // lanes joined: evaluate again with all of them
        }
        // Groups: the lanes passing each distinct mask must be exactly its non-exited lanes.
        let (mut groups, mut count) = ([(0u32, 0u32); 32], 0);
        for l in lanes(mask) {
            let m = masks[l] as u32;
            match groups[..count].iter_mut().find(|g| g.0 == m) {
                Some(g) => g.1 |= 1 << l,
                None => {
                    groups[count] = (m, 1 << l);
                    count += 1;
                }
            }
        }
        let groups = &groups[..count];
        for &(m, members) in groups {
            let stray = m & !warp.exited & !members;
            if stray != 0 {
                let k = stray.trailing_zeros();
                let detail = format!(
                    "lanes {} pass the membermask {m:#010x}, which names lane {k}, but lane {k} \
                     passes {:#010x}",
                    lane_list(members),
                    masks[k as usize] as u32
                );
                return self.collective_error(warp, pc, stray, detail);
            }
        }
        warp.step += 1;
        self.run.counters.collective += 1;
        self.run.counters.active_lanes += u64::from(active.count_ones());
        for &(m, members) in groups {
            self.group(warp, pc, op, m, members)?;
        }
        warp.stack.advance_together(together);
        Ok(())
    }

    /// The lanes the collective at `pc` waits for (`None` after reporting a finding): every lane
    /// the guard lets through (`mask`, of the `active` lanes at it) must be in its own membermask,
    /// and every non-exited lane a membermask names must execute it.
    fn need(
        &mut self,
        warp: &PtxWarp,
        pc: usize,
        masks: &[u64; 32],
        active: u32,
        mask: u32,
    ) -> Result<Option<u32>, Stop> {
        let mut need = 0u32;
        for l in lanes(mask) {
            let m = masks[l] as u32;
            if m >> l & 1 == 0 {
                let detail = format!(
                    "lane {l} executes it but its membermask {m:#010x} leaves it out (undefined in \
                     PTX)"
                );
                self.collective_error(warp, pc, 1 << l, detail)?;
                return Ok(None);
            }
            need |= m;
        }
        let need = need & !warp.exited;
        let held_back = need & active & !mask;
        if held_back != 0 {
            let detail = format!(
                "the membermask names lanes {} whose guard keeps them from executing it",
                lane_list(held_back)
            );
            self.collective_error(warp, pc, held_back, detail)?;
            return Ok(None);
        }
        Ok(Some(need))
    }

    /// One group of lanes (`members`, passing membermask `m`) executes `op`.
    fn group(
        &mut self,
        warp: &mut PtxWarp,
        pc: usize,
        op: &Op,
        m: u32,
        members: u32,
    ) -> Result<(), Stop> {
        match *op {
            Op::WarpSync { .. } => {
                if let Some(race) = &mut self.run.race {
                    race.warp_sync(warp.index, warp.step, m);
                }
            }
            Op::Shfl {
                mode,
                d,
                p,
                a,
                b,
                c,
                ..
            } => {
                let (src, bs, cs) = (
                    warp.regs[a as usize],
                    warp.regs[b as usize],
                    warp.regs[c as usize],
                );
                let mut outside = 0u32;
                for l in lanes(members) {
                    let lane = l as i64;
                    let bval = (bs[l] & 31) as i64;
                    let cval = (cs[l] & 31) as i64;
                    let seg = ((cs[l] >> 8) & 31) as i64;
                    let max_lane = (lane & seg) | (cval & !seg);
                    let min_lane = lane & seg;
                    let (j, in_range) = match mode {
                        ShflMode::Up => (lane - bval, lane - bval >= max_lane),
                        ShflMode::Down => (lane + bval, lane + bval <= max_lane),
                        ShflMode::Bfly => (lane ^ bval, (lane ^ bval) <= max_lane),
                        ShflMode::Idx => {
                            let j = min_lane | (bval & !seg);
                            (j, j <= max_lane)
                        }
                    };
                    let j = if in_range { j as usize } else { l };
                    let value = if members >> j & 1 == 1 {
                        src[j]
                    } else {
                        outside |= 1 << l;
                        src[l]
                    };
                    warp.regs[d as usize][l] = value & 0xffff_ffff;
                    if let Some(p) = p {
                        warp.regs[p as usize][l] = u64::from(in_range);
                    }
                }
                // The stray values are poison (`poison.rs`): an error only where they are used.
                if self.run.options.sanitize {
                    warp.poison.assign(d, members, outside, pc as u32);
                }
            }
            Op::Vote {
                mode, d, a, negate, ..
            } => {
                let pred = warp.regs[a as usize];
                let truth = lanes(members)
                    .filter(|&l| (pred[l] & 1 == 1) != negate)
                    .fold(0u32, |t, l| t | 1 << l);
                let value = match mode {
                    VoteMode::All => u64::from(truth == members),
                    VoteMode::Any => u64::from(truth != 0),
                    VoteMode::Uni => u64::from(truth == members || truth == 0),
                    VoteMode::Ballot => u64::from(truth),
                };
                for l in lanes(members) {
                    warp.regs[d as usize][l] = value;
                }
            }
            Op::Match {
                all, bits, d, p, a, ..
            } => {
                let src = warp.regs[a as usize];
                let keep = super::exec_int::ones(bits);
                let first = src[members.trailing_zeros() as usize] & keep;
                let same = lanes(members).all(|l| src[l] & keep == first);
                for l in lanes(members) {
                    let value = if all {
                        if same {
                            members
                        } else {
                            0
                        }
                    } else {
                        lanes(members)
                            .filter(|&k| src[k] & keep == src[l] & keep)
                            .fold(0u32, |v, k| v | 1 << k)
                    };
                    warp.regs[d as usize][l] = u64::from(value);
                    if let Some(p) = p {
                        warp.regs[p as usize][l] = u64::from(same);
                    }
                }
            }
            Op::Redux { op, ty, d, a, .. } => {
                let src = warp.regs[a as usize];
                let values = lanes(members).map(|l| src[l] & 0xffff_ffff);
                let value = match op {
                    ReduxOp::Add => values.fold(0u64, |s, v| s.wrapping_add(v)) & 0xffff_ffff,
                    ReduxOp::And => values.fold(0xffff_ffff, |s, v| s & v),
                    ReduxOp::Or => values.fold(0, |s, v| s | v),
                    ReduxOp::Xor => values.fold(0, |s, v| s ^ v),
                    ReduxOp::Min => values.min_by_key(|&v| ty.value(v)).unwrap_or(0),
                    ReduxOp::Max => values.max_by_key(|&v| ty.value(v)).unwrap_or(0),
                };
                for l in lanes(members) {
                    warp.regs[d as usize][l] = value;
                }
            }
            _ => {}
        }
        Ok(())
    }
}
