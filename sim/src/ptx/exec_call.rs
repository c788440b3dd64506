//! `call`, `ret` and `brx.idx` on a warp (PTX ISA, "Control Flow Instructions"). A call pushes,
//! for each calling lane, a frame on the thread's local memory (aligned as the callee's frame
//! needs): the arguments are copied into the callee's parameters by value, the callee's registers
//! are saved (a recursive activation must not clobber its caller's), and the lane's frame register
//! points at the new frame. The SIMT stack runs the calling lanes in the callee while the others
//! wait after the call (`simt.rs`). `ret` copies the return parameters back into the caller's
//! variables or registers, restores the registers and drops the frame; the lanes wait after their
//! call until every lane of the activation has returned or exited.
//!
//! The simulator's limits on calls — [`MAX_CALL_DEPTH`] calls in progress per thread,
//! [`MAX_THREAD_STACK`] bytes of frames and saved registers per thread, [`MAX_BLOCK_STACK`] per
//! block — are a stack-overflow finding naming the limit (the block stops), never the host's stack:
//! nothing here recurses. A `brx.idx` index past its `.branchtargets` list (undefined in the ISA) is
//! a finding too.

use super::block::{Frame, PtxBlock, PtxWarp};
use super::inst::{CallArg, Op, Slot};
use super::lanes as each_lane;
use crate::block::Stop;
use crate::finding::{lane_list, FindingKind};

/// Calls in progress per thread.
pub(crate) const MAX_CALL_DEPTH: usize = 1024;
/// Bytes of call frames and saved registers per thread.
pub(crate) const MAX_THREAD_STACK: u64 = 256 << 10;
/// Bytes of call frames and saved registers per block.
pub(crate) const MAX_BLOCK_STACK: u64 = 64 << 20;

/// The low `size` bytes of `v`, little-endian.
fn le_bytes(v: u64, size: u32) -> Vec<u8> {
    v.to_le_bytes()[..(size as usize).min(8)].to_vec()
}

/// `bytes` as a little-endian value (at most 8 of them).
fn from_le(bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .take(8)
        .enumerate()
        .fold(0, |v, (i, b)| v | u64::from(*b) << (8 * i))
}

impl PtxBlock<'_> {
    /// Executes the `call`, `ret` or `brx.idx` at `pc` on lanes `lanes` (of `active`).
    pub(super) fn exec_call(
        &mut self,
        warp: &mut PtxWarp,
        pc: usize,
        active: u32,
        lanes: u32,
    ) -> Result<(), Stop> {
        let program = self.launch.program;
        match &program.insts[pc].op {
            Op::Call { func, args, .. } => self.call(warp, pc, *func, args, lanes),
            Op::Ret => {
                self.ret(warp, lanes);
                warp.stack.ret(lanes);
                if lanes != active {
                    warp.stack.advance();
                }
                Ok(())
            }
            &Op::Brx {
                index,
                table,
                reconverge,
            } => {
                let targets = program
                    .tables
                    .get(table as usize)
                    .map_or(&[][..], Vec::as_slice);
                let mut groups: Vec<(u32, u32)> = vec![(pc as u32 + 1, active & !lanes)];
                let mut bad = 0u32;
                for l in each_lane(lanes) {
                    let i = warp.regs[index as usize][l] as u32;
                    match targets.get(i as usize) {
                        Some(&t) => match groups.iter_mut().find(|g| g.0 == t) {
                            Some(g) => g.1 |= 1 << l,
                            None => groups.push((t, 1 << l)),
                        },
                        None => bad |= 1 << l,
                    }
                }
                if bad != 0 {
                    let first = bad.trailing_zeros() as usize;
                    let detail = format!(
                        "`brx.idx` index {} (lane {first}) is past the {} labels of its \
                         `.branchtargets` list (lanes {}): the PTX ISA leaves the branch undefined",
                        warp.regs[index as usize][first] as u32,
                        targets.len(),
                        lane_list(bad)
                    );
                    let kind = FindingKind::BranchIndex;
                    let f = self
                        .run
                        .finding(kind, pc as u32, warp.index, bad, None, detail);
                    return self.run.report(kind, pc as u32, 0, f);
                }
                // The first target's lanes run first, as the taken side of a `bra` does.
                groups[1..].reverse();
                warp.stack.branch_many(&groups, reconverge);
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// `call` of function `func` by `mask`'s lanes.
    fn call(
        &mut self,
        warp: &mut PtxWarp,
        pc: usize,
        func: u32,
        args: &[CallArg],
        mask: u32,
    ) -> Result<(), Stop> {
        let program = self.launch.program;
        let Some(f) = program.funcs.get(func as usize) else {
            warp.stack.advance();
            return Ok(());
        };
        let (first, end) = (f.regs.0 as usize, f.regs.1 as usize);
        let saved_bytes = 8 * (end - first) as u64;
        let align = u64::from(f.align.max(1));
        // Every lane's new frame, checked against the limits before any lane calls.
        let mut plans = [(0u64, 0u64); 32]; // (base, the thread's stack bytes after the call)
        let mut added = 0u64;
        let (mut deep, mut big) = (0u32, 0u32);
        if warp.frames.is_empty() {
            warp.frames.resize_with(32, Vec::new);
        }
        for l in each_lane(mask) {
            let thread = warp.index as usize * 32 + l;
            let len = self.local[thread].len() as u64;
            let base = len.div_ceil(align) * align;
            let cost = base - len + u64::from(f.frame_bytes) + saved_bytes;
            let used = warp.frames[l].last().map_or(0, |fr| fr.used) + cost;
            if warp.frames[l].len() >= MAX_CALL_DEPTH {
                deep |= 1 << l;
            } else if used > MAX_THREAD_STACK {
                big |= 1 << l;
            }
            plans[l] = (base, used);
            added += cost;
        }
        if deep | big != 0 || self.stack_bytes + added > MAX_BLOCK_STACK {
            let detail = if deep != 0 {
                format!(
                    "stack overflow: lanes {} are {MAX_CALL_DEPTH} calls deep, the simulator's \
                     limit (MAX_CALL_DEPTH in sim/src/ptx/exec_call.rs): unbounded recursion?",
                    lane_list(deep)
                )
            } else if big != 0 {
                format!(
                    "stack overflow: the call would take lanes {} past {} KiB of call frames and \
                     saved registers per thread, the simulator's limit (MAX_THREAD_STACK in \
                     sim/src/ptx/exec_call.rs)",
                    lane_list(big),
                    MAX_THREAD_STACK >> 10
                )
            } else {
                format!(
                    "stack overflow: the block's calls in progress would take more than {} MiB \
                     of call frames and saved registers, the simulator's limit (MAX_BLOCK_STACK in \
                     sim/src/ptx/exec_call.rs)",
                    MAX_BLOCK_STACK >> 20
                )
            };
            let lanes_bad = if deep | big != 0 { deep | big } else { mask };
            let kind = FindingKind::StackOverflow;
            let f = self
                .run
                .finding(kind, pc as u32, warp.index, lanes_bad, None, detail);
            return self.run.report(kind, pc as u32, 0, f);
        }
        self.stack_bytes += added;
        let frame_reg = program.frame_reg as usize;
        for l in each_lane(mask) {
            let thread = warp.index as usize * 32 + l;
            let (base, used) = plans[l];
            let caller_base = warp.regs[frame_reg][l];
            let local = &mut self.local[thread];
            let below = local.len();
            local.resize(base as usize + f.frame_bytes as usize, 0);
            for a in args {
                let to = base as usize + a.callee as usize;
                let bytes = match a.caller {
                    Slot::Frame(off) => {
                        let from = caller_base as usize + off as usize;
                        local
                            .get(from..from + a.size as usize)
                            .map_or_else(Vec::new, <[u8]>::to_vec)
                    }
                    Slot::Reg(r) => le_bytes(warp.regs[r as usize][l], a.size),
                };
                if let Some(dst) = local.get_mut(to..to + bytes.len()) {
                    dst.copy_from_slice(&bytes);
                }
            }
            let saved: Box<[u64]> = warp.regs[first..end].iter().map(|c| c[l]).collect();
            warp.frames[l].push(Frame {
                call: pc as u32,
                below: below as u32,
                base: base as u32,
                caller_base: caller_base as u32,
                used,
                saved,
            });
            warp.regs[frame_reg][l] = base;
        }
        self.run.changed = true;
        warp.stack.call(mask, f.start, pc as u32 + 1);
        Ok(())
    }

    /// `ret` by `mask`'s lanes: each copies its return values to its caller and drops its frame.
    fn ret(&mut self, warp: &mut PtxWarp, mask: u32) {
        let program = self.launch.program;
        let frame_reg = program.frame_reg as usize;
        for l in each_lane(mask) {
            let thread = warp.index as usize * 32 + l;
            let Some(frame) = warp.frames.get_mut(l).and_then(|f| f.pop()) else {
                continue;
            };
            let (func, rets) = match &program.insts.get(frame.call as usize).map(|i| &i.op) {
                Some(Op::Call { func, rets, .. }) => (*func, rets),
                _ => continue,
            };
            let local = &mut self.local[thread];
            let values: Vec<Vec<u8>> = rets
                .iter()
                .map(|r| {
                    let from = frame.base as usize + r.callee as usize;
                    local
                        .get(from..from + r.size as usize)
                        .map_or_else(Vec::new, <[u8]>::to_vec)
                })
                .collect();
            let stack = local.len() as u64 - u64::from(frame.below) + 8 * frame.saved.len() as u64;
            self.stack_bytes = self.stack_bytes.saturating_sub(stack);
            local.truncate(frame.below as usize);
            if let Some(f) = program.funcs.get(func as usize) {
                let regs = &mut warp.regs[f.regs.0 as usize..f.regs.1 as usize];
                for (col, v) in regs.iter_mut().zip(frame.saved.iter()) {
                    col[l] = *v;
                }
            }
            warp.regs[frame_reg][l] = u64::from(frame.caller_base);
            for (r, bytes) in rets.iter().zip(values) {
                match r.caller {
                    Slot::Frame(off) => {
                        let to = frame.caller_base as usize + off as usize;
                        if let Some(dst) = local.get_mut(to..to + bytes.len()) {
                            dst.copy_from_slice(&bytes);
                        }
                    }
                    Slot::Reg(d) => {
                        let bits = program.reg_bits.get(d as usize).copied().unwrap_or(64);
                        let v = from_le(&bytes);
                        warp.regs[d as usize][l] =
                            if bits >= 64 { v } else { v & ((1 << bits) - 1) };
                    }
                }
            }
        }
        self.run.changed = true;
    }
}
