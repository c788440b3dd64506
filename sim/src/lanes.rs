//! Per-lane computation (`let`) and the warp collectives, with synccheck's rule for their masks: the
//! mask must name exactly the lanes executing the collective, and every lane must pass the same mask.

use warpforge_ir::{ScalarType, ShuffleMode, Special, VoteMode};

use super::block::{BlockRun, Stop};
use super::decode::{Inst, LaneMask, Op, Reg};
use super::eval;
use super::finding::{lane_list, FindingKind};
use super::profile::Sites;
use super::warp::Warp;

/// Lanes of `mask`, in ascending order.
pub(crate) fn lanes(mask: u32) -> impl Iterator<Item = usize> {
    Lanes(mask)
}

/// The set bits of a mask, lowest first (one step per lane present, not per lane of the warp).
struct Lanes(u32);

impl Iterator for Lanes {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        if self.0 == 0 {
            return None;
        }
        let l = self.0.trailing_zeros();
        self.0 &= self.0 - 1;
        Some(l as usize)
    }
}

/// The mask a collective passes: one value, or each lane's register.
#[derive(Clone, Copy, Debug)]
pub(crate) enum MaskArg<'a> {
    Const(u32),
    PerLane(&'a [u64; 32]),
}

impl<P: Sites> BlockRun<'_, P> {
    /// The mask the `active` lanes of warp `warp` pass (`mask`: one value, or each lane's column),
    /// checked against the lanes executing the collective: every lane must pass the same mask, the
    /// mask must name every executing lane, and every lane it names must execute it — except, with
    /// `exited_ok` (PTX's `.sync` collectives act on the non-exited lanes of their mask), lanes that
    /// have exited.
    pub(crate) fn collective_mask(
        &mut self,
        pc: usize,
        (warp, active, exited): (u32, u32, u32),
        mask: MaskArg<'_>,
        exited_ok: bool,
    ) -> Result<u32, Stop> {
        let bad = |this: &mut Self, lanes: u32, detail: String| {
            let f = this.finding(
                FindingKind::CollectiveMask,
                pc as u32,
                warp,
                lanes,
                None,
                detail,
            );
            this.report(FindingKind::CollectiveMask, pc as u32, 0, f)
                .map(|()| 0)
        };
        let mask = match mask {
            MaskArg::Const(m) => m,
            MaskArg::PerLane(col) => {
                let first = col[active.trailing_zeros() as usize] as u32;
                let differ: u32 = lanes(active)
                    .filter(|&l| col[l] as u32 != first)
                    .fold(0, |m, l| m | 1 << l);
                if differ != 0 {
                    let l = differ.trailing_zeros() as usize;
                    return bad(
                        self,
                        differ,
                        format!(
                            "the lanes pass different masks: lane {} passes {first:#010x}, lane {l} \
                             passes {:#010x}",
                            active.trailing_zeros(),
                            col[l] as u32
                        ),
                    );
                }
                first
            }
        };
        let absent = mask & !active & if exited_ok { !exited } else { u32::MAX };
        if absent != 0 {
            let elsewhere = absent & !exited;
            let exited = absent & exited;
            let mut why = Vec::new();
            if exited != 0 {
                why.push(format!("lanes {} returned", lane_list(exited)));
            }
            if elsewhere != 0 {
                why.push(format!(
                    "lanes {} are on another path",
                    lane_list(elsewhere)
                ));
            }
            return bad(
                self,
                absent,
                format!(
                    "the mask {mask:#010x} names lanes that do not execute it ({}); active lanes: {}",
                    why.join(", "),
                    lane_list(active)
                ),
            );
        }
        let outside = active & !mask;
        if outside != 0 {
            return bad(
                self,
                outside,
                format!(
                    "lanes {} execute it but the mask {mask:#010x} leaves them out",
                    lane_list(outside)
                ),
            );
        }
        Ok(mask)
    }
}

impl BlockRun<'_> {
    /// `dst = op` on every active lane.
    pub(crate) fn exec_let(&mut self, warp: &mut Warp, dst: Reg, op: Op) {
        let active = warp.active;
        let mut out = *warp.reg(dst);
        match op {
            Op::Const(bits) => out = [bits; 32],
            Op::Special(s) => {
                let [bx, by, _] = self.program.block_dims.map(u64::from);
                let [gx, gy, _] = self.program.grid_dims.map(u64::from);
                let block = u64::from(self.block);
                for (lane, v) in out.iter_mut().enumerate() {
                    let lane = lane as u64;
                    let warp_index = u64::from(warp.index);
                    let t = warp_index * 32 + lane;
                    *v = match s {
                        // CUDA's order: x fastest, for threads in the block and blocks in the grid.
                        Special::ThreadIndexX => t % bx,
                        Special::ThreadIndexY => t / bx % by,
                        Special::ThreadIndexZ => t / (bx * by),
                        Special::BlockIndexX => block % gx,
                        Special::BlockIndexY => block / gx % gy,
                        Special::BlockIndexZ => block / (gx * gy),
                        Special::GridSizeX => gx,
                        Special::GridSizeY => gy,
                        Special::GridSizeZ => u64::from(self.program.grid_dims[2]),
                        Special::ThreadIndex => warp_index * 32 + lane,
                        Special::LaneId => lane,
                        Special::WarpIndex => warp_index,
                        Special::BlockIndex => u64::from(self.block),
                        Special::BlockSize => u64::from(self.program.block_size),
                        Special::GridSize => u64::from(self.grid),
                        Special::WarpSize => 32,
                    };
                }
            }
            Op::Copy(a) => out = *warp.reg(a),
            Op::Unary(op, ty, a) => {
                let a = warp.reg(a);
                for l in lanes(active) {
                    out[l] = eval::unary(op, ty, a[l]);
                }
                self.count_float_special(ty, active, &[a, &out]);
            }
            Op::Binary(op, ty, a, b) => {
                let (a, b) = (warp.reg(a), warp.reg(b));
                for l in lanes(active) {
                    out[l] = eval::binary(op, ty, a[l], b[l]);
                }
                self.count_float_special(ty, active, &[a, b, &out]);
            }
            Op::MulWide { signed, a, b } => {
                let (a, b) = (warp.reg(a), warp.reg(b));
                for l in lanes(active) {
                    out[l] = eval::mul_wide(signed, a[l], b[l]);
                }
            }
            Op::MulAdd(ty, a, b, c) => {
                let (a, b, c) = (warp.reg(a), warp.reg(b), warp.reg(c));
                for l in lanes(active) {
                    out[l] = eval::mul_add(ty, a[l], b[l], c[l]);
                }
                self.count_float_special(ty, active, &[a, b, c, &out]);
            }
            Op::FunnelShr(lo, hi, shift) => {
                let (lo, hi, shift) = (warp.reg(lo), warp.reg(hi), warp.reg(shift));
                for l in lanes(active) {
                    out[l] = eval::funnel_shr(lo[l], hi[l], shift[l]);
                }
            }
            Op::Compare(op, ty, a, b) => {
                let (a, b) = (warp.reg(a), warp.reg(b));
                for l in lanes(active) {
                    out[l] = eval::compare(op, ty, a[l], b[l]);
                }
                self.count_float_special(ty, active, &[a, b]);
            }
            Op::Select { cond, a, b } => {
                let (c, a, b) = (warp.reg(cond), warp.reg(a), warp.reg(b));
                for l in lanes(active) {
                    out[l] = if c[l] & 1 == 1 { a[l] } else { b[l] };
                }
            }
            Op::Cast { kind, from, to, a } => {
                let a = warp.reg(a);
                for l in lanes(active) {
                    out[l] = eval::cast(kind, from, to, a[l]);
                }
            }
        }
        // Inactive lanes keep their registers (a value defined in one branch is not clobbered by the
        // other lanes' pass over the same statement).
        let old = &mut warp.regs[dst as usize];
        if active == u32::MAX {
            *old = out;
        } else {
            for l in lanes(active) {
                old[l] = out[l];
            }
        }
    }

    /// Counts an `f32` warp-instruction whose `columns` hold a NaN, an infinity or a negative zero on an
    /// active lane (values WGSL does not promise to honour).
    /// Counts an `f32` (or `f64`) operation whose operands or result hold a NaN, an infinity or -0.0.
    fn count_float_special(&mut self, ty: ScalarType, active: u32, columns: &[&[u64; 32]]) {
        let special: fn(u64) -> bool = match ty {
            ScalarType::F32 => {
                |bits| !f32::from_bits(bits as u32).is_finite() || bits as u32 == 0x8000_0000
            }
            ScalarType::F64 => |bits| !f64::from_bits(bits).is_finite() || bits == 1 << 63,
            _ => return,
        };
        let found = columns.iter().any(|c| lanes(active).any(|l| special(c[l])));
        self.counters.f32_special += u64::from(found);
    }

    /// Executes the collective at `pc`.
    pub(crate) fn exec_collective(&mut self, warp: &mut Warp, pc: usize) -> Result<(), Stop> {
        let program = self.program;
        let inst = &program.insts[pc];
        let mask_of = match inst {
            Inst::Shuffle { mask, .. }
            | Inst::Ballot { mask, .. }
            | Inst::Vote { mask, .. }
            | Inst::MatchAny { mask, .. }
            | Inst::WarpSync { mask } => *mask,
            _ => unreachable!("a collective"),
        };
        let mask = match mask_of {
            LaneMask::Const(m) => MaskArg::Const(m),
            LaneMask::Reg(r) => MaskArg::PerLane(warp.reg(r)),
        };
        let executing = (warp.index, warp.active, warp.exited);
        let mask = self.collective_mask(pc, executing, mask, false)?;
        match *inst {
            Inst::Shuffle {
                dst,
                mode,
                src,
                lane,
                ..
            } => {
                let (values, amounts) = (*warp.reg(src), *warp.reg(lane));
                let mut out = *warp.reg(dst);
                let mut outside = 0u32;
                for l in lanes(mask) {
                    let d = (amounts[l] % 32) as usize;
                    let from = match mode {
                        ShuffleMode::Index => d,
                        ShuffleMode::Up if l >= d => l - d,
                        ShuffleMode::Down if l + d < 32 => l + d,
                        ShuffleMode::Up | ShuffleMode::Down => l,
                        ShuffleMode::Xor => l ^ d,
                    };
                    if mask >> from & 1 == 0 {
                        outside |= 1 << l;
                        out[l] = values[l];
                    } else {
                        out[l] = values[from];
                    }
                }
                warp.regs[dst as usize] = out;
                if outside != 0 && self.options.sanitize {
                    let f = self.finding(
                        FindingKind::ShuffleOutsideMask,
                        pc as u32,
                        warp.index,
                        outside,
                        None,
                        format!(
                            "these lanes read a lane outside the mask {mask:#010x}: the value is \
                             unspecified on CUDA (the simulator gives the lane its own value)"
                        ),
                    );
                    self.report(FindingKind::ShuffleOutsideMask, pc as u32, 0, f)?;
                }
            }
            Inst::Ballot { dst, pred, .. } => {
                let p = warp.reg(pred);
                let bits = lanes(mask).fold(0u64, |b, l| b | (p[l] & 1) << l);
                let out = &mut warp.regs[dst as usize];
                for l in lanes(mask) {
                    out[l] = bits;
                }
            }
            Inst::Vote {
                dst, mode, pred, ..
            } => {
                let p = warp.reg(pred);
                let r = match mode {
                    VoteMode::Any => lanes(mask).any(|l| p[l] & 1 == 1),
                    VoteMode::All => lanes(mask).all(|l| p[l] & 1 == 1),
                };
                let out = &mut warp.regs[dst as usize];
                for l in lanes(mask) {
                    out[l] = u64::from(r);
                }
            }
            Inst::MatchAny { dst, src, .. } => {
                let s = *warp.reg(src);
                let out = &mut warp.regs[dst as usize];
                for l in lanes(mask) {
                    out[l] = lanes(mask)
                        .filter(|&k| s[k] == s[l])
                        .fold(0u64, |m, k| m | 1 << k);
                }
            }
            Inst::WarpSync { .. } => {
                if let Some(race) = &mut self.race {
                    race.warp_sync(warp.index, warp.step, mask);
                }
            }
            _ => unreachable!("a collective"),
        }
        Ok(())
    }
}
