//! The warp-level matrix instructions on a warp (`inst_mma.rs` has the fragment layouts).
//!
//! **Convergence.** They are `.sync.aligned`: every lane of the warp executes the same instruction
//! together. A warp with an exited lane, a divergent warp (only some lanes at the instruction) or a
//! guard that holds some lanes back is a synccheck error (`collective-mask`, the block stops); a
//! guard that holds every lane back skips it.
//!
//! **Memory.** `ldmatrix`/`stmatrix` access 16-byte rows at the addresses lanes `0..8·count` give
//! (each row 16-byte aligned, in shared memory; a generic address outside the shared window is an
//! illegal address); `wmma.load`/`wmma.store` access each element at its own address. Every access
//! goes through the same path as `ld`/`st` (bounds, alignment, racecheck, initcheck), attributed
//! to the lane giving the address.
//!
//! **Arithmetic** (the ISA does not define the order or the rounding of the accumulation; this is
//! the simulator's definition): the inputs are taken exactly (`.f16`, `.bf16`, `.f32`; `.tf32`
//! with its low 13 mantissa bits cleared; integers), the products are exact, and
//! `d = c + a0·b0 + a1·b1 + …` is summed in `f64` in `k` order — exact for these inputs unless the
//! terms span more than about 2^29 in magnitude — then rounded once, to nearest even, to D's type.
//! So an `f32` result is within half an ulp of the exact `c + Σ a·b` in the common case, and within
//! `2^-24·(|c| + Σ|a·b|)` always. A NaN result is the canonical NaN (`0x7fffffff`, `0x7fff`).
//! `.f64` (`m8n8k4`) is a chain of fused multiply-adds in `k` order. Integer products are exact;
//! the sum wraps to 32 bits, or with `.satfinite` is clamped to the `s32` range.

use super::block::{PtxBlock, PtxWarp};
use super::exec_mem::{effective_address, Fault, Place};
use super::inst::{Addr, MemSpace, Op, Rnd, R};
use super::inst_half::HFmt;
use super::inst_mma::{coords, El, Frag, MmaOp, MmaTypes, Shape, Tf32Round};
use crate::block::{Stop, Who};
use crate::finding::{lane_list, FindingKind};
use crate::race::Strength;

/// A fragment's element from its raw bits, as an exact `f64`.
fn value(el: El, raw: u64) -> f64 {
    match el {
        El::F16 => half::f16::from_bits(raw as u16).to_f64(),
        El::Bf16 => half::bf16::from_bits(raw as u16).to_f64(),
        El::Tf32 => f64::from(f32::from_bits(raw as u32 & 0xffff_e000)),
        El::F32 => f64::from(f32::from_bits(raw as u32)),
        El::F64 => f64::from_bits(raw),
        El::S8 => f64::from(raw as u8 as i8),
        El::U8 => f64::from(raw as u8),
        El::S32 => f64::from(raw as u32 as i32),
    }
}

/// A result rounded to `el`'s bits.
fn encode(el: El, v: f64, satfinite: bool) -> u64 {
    match el {
        El::F16 if v.is_nan() => 0x7fff,
        // HFmt's narrowing, not `half`'s `from_f64`, which drops the low 32 bits of the significand
        // before rounding (a value just above a tie rounded down).
        El::F16 => u64::from(HFmt::F16.narrow(v, Rnd::None, false)),
        El::Bf16 if v.is_nan() => 0x7fff,
        El::Bf16 => u64::from(HFmt::Bf16.narrow(v, Rnd::None, false)),
        El::F32 | El::Tf32 if v.is_nan() => 0x7fff_ffff,
        El::F32 | El::Tf32 => u64::from((v as f32).to_bits()),
        El::F64 => v.to_bits(),
        // Integer sums are exact in f64 (|v| < 2^40).
        El::S32 if satfinite => u64::from(v.clamp(-2_147_483_648.0, 2_147_483_647.0) as i32 as u32),
        El::S32 | El::S8 | El::U8 => u64::from((v as i64) as u32) & ones(el.bits()),
    }
}

fn ones(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1 << bits) - 1
    }
}

/// `cvt.{rna,rn,rz}{.relu}{.satfinite}.tf32.f32` of `bits`.
pub(crate) fn to_tf32(bits: u32, round: Tf32Round, relu: bool, satfinite: bool) -> u32 {
    const KEEP: u32 = 0xffff_e000;
    let x = f32::from_bits(bits);
    if x.is_nan() {
        return 0x7fff_ffff;
    }
    let (sign, mag) = (bits & 0x8000_0000, bits & 0x7fff_ffff);
    // Below infinity the magnitude's bits are monotone: adding to them rounds (a carry into the
    // exponent is the next binade, or infinity).
    let mag = if x.is_infinite() {
        mag
    } else {
        match round {
            Tf32Round::Rna => (mag + 0x1000) & KEEP,
            Tf32Round::Rn => (mag + 0xfff + ((mag >> 13) & 1)) & KEEP,
            Tf32Round::Rz => mag & KEEP,
        }
    };
    let mag = if satfinite && mag == 0x7f80_0000 {
        0x7f7f_e000
    } else {
        mag
    };
    if relu && sign != 0 {
        0
    } else {
        sign | mag
    }
}

/// The matrix (row-major) a fragment holds; where an element is held twice, the first copy.
fn gather(warp: &PtxWarp, regs: &[R], shape: Shape, frag: Frag, el: El) -> Vec<f64> {
    let (rows, cols) = frag.dims(shape);
    let mut m = vec![0.0; rows * cols];
    let (per, bits) = (el.per_reg(), el.bits());
    for lane in 0..32 {
        for e in (0..frag.elems(shape, el)).rev() {
            let (r, c) = coords(shape, frag, el, lane, e);
            let word = warp.regs[regs[e / per] as usize][lane];
            let raw = (word >> ((e % per) as u32 * bits)) & ones(bits);
            m[r * cols + c] = value(el, raw);
        }
    }
    m
}

/// D = A·B + C (see the module's comment).
fn multiply(shape: Shape, t: MmaTypes, a: &[f64], b: &[f64], c: &[f64]) -> Vec<f64> {
    let (m, n, k) = shape.mnk();
    let mut d = vec![0.0; m * n];
    for i in 0..m {
        for j in 0..n {
            let mut acc = c[i * n + j];
            for x in 0..k {
                let (p, q) = (a[i * k + x], b[x * n + j]);
                acc = if t.d == El::F64 {
                    p.mul_add(q, acc)
                } else {
                    acc + p * q
                };
            }
            d[i * n + j] = acc;
        }
    }
    d
}

impl PtxBlock<'_> {
    /// Executes the matrix instruction at `pc`: `active` lanes are at it, the guard lets `lanes`
    /// through.
    pub(crate) fn exec_mma(
        &mut self,
        warp: &mut PtxWarp,
        pc: usize,
        active: u32,
        lanes: u32,
    ) -> Result<(), Stop> {
        let program = self.launch.program;
        let Op::Mma(op) = &program.insts[pc].op else {
            return Ok(());
        };
        if let MmaOp::Tf32 {
            round,
            relu,
            satfinite,
            d,
            a,
        } = **op
        {
            warp.step += 1;
            self.run.counters.arithmetic += 1;
            self.run.counters.active_lanes += u64::from(active.count_ones());
            for l in super::lanes(lanes) {
                let bits = warp.regs[a as usize][l] as u32;
                warp.regs[d as usize][l] = u64::from(to_tf32(bits, round, relu, satfinite));
            }
            warp.stack.advance();
            return Ok(());
        }
        if lanes == 0 {
            warp.stack.advance();
            return Ok(());
        }
        let problem = if warp.exited != 0 {
            Some((warp.exited, "have exited"))
        } else if active != u32::MAX {
            Some((!active, "are not at it (the warp has diverged)"))
        } else if lanes != active {
            Some((active & !lanes, "are held back by its guard"))
        } else {
            None
        };
        if let Some((bad, why)) = problem {
            let detail = format!(
                "lanes {} {why}: all 32 lanes of the warp must execute a `.sync.aligned` matrix \
                 instruction together (undefined in PTX)",
                lane_list(bad)
            );
            let f = self.run.finding(
                FindingKind::CollectiveMask,
                pc as u32,
                warp.index,
                bad,
                None,
                detail,
            );
            self.run
                .report(FindingKind::CollectiveMask, pc as u32, 0, f)?;
            return Err(Stop);
        }
        warp.step += 1;
        self.run.counters.active_lanes += 32;
        match &**op {
            MmaOp::Mma {
                shape,
                types,
                d,
                a,
                b,
                c,
            } => {
                self.run.counters.arithmetic += 1;
                let am = gather(warp, a, *shape, Frag::A, types.a);
                let bm = gather(warp, b, *shape, Frag::B, types.b);
                let cm = gather(warp, c, *shape, Frag::C, types.c);
                let dm = multiply(*shape, *types, &am, &bm, &cm);
                let (per, bits) = (types.d.per_reg(), types.d.bits());
                let cols = shape.mnk().1;
                let mut out = vec![[0u64; 32]; d.len()];
                for e in 0..Frag::C.elems(*shape, types.d) {
                    for (lane, word) in out[e / per].iter_mut().enumerate() {
                        let (r, col) = coords(*shape, Frag::C, types.d, lane, e);
                        let v = encode(types.d, dm[r * cols + col], types.satfinite);
                        *word |= v << ((e % per) as u32 * bits);
                    }
                }
                for (reg, col) in d.iter().zip(out) {
                    warp.regs[*reg as usize] = col;
                }
            }
            MmaOp::Ldmatrix {
                trans,
                space,
                regs,
                addr,
            } => self.ld_st_matrix(warp, pc, false, *trans, *space, regs, *addr)?,
            MmaOp::Stmatrix {
                trans,
                space,
                regs,
                addr,
            } => self.ld_st_matrix(warp, pc, true, *trans, *space, regs, *addr)?,
            MmaOp::Wmma { .. } => self.wmma_access(warp, pc, op)?,
            MmaOp::Tf32 { .. } => {}
        }
        warp.stack.advance();
        Ok(())
    }

    /// Where lane `lane`'s `size`-byte access at `at` lands, or the fault reported.
    #[allow(clippy::too_many_arguments)]
    fn matrix_place(
        &mut self,
        warp: &PtxWarp,
        pc: usize,
        space: MemSpace,
        lane: usize,
        at: u64,
        size: u64,
        shared_only: bool,
    ) -> Result<Place, Stop> {
        let thread = warp.index as usize * 32 + lane;
        let fault = match self.place(space, at, size, thread) {
            Ok(p @ Place::Shared(_)) => return Ok(p),
            Ok(p) if !shared_only => return Ok(p),
            Ok(_) => Fault::Illegal(
                format!("generic address {at:#x}, outside shared memory (the instruction reads and writes shared memory only)"),
                None,
            ),
            Err(f) => f,
        };
        self.lane_fault(warp, pc, lane, size, fault)?;
        Err(Stop)
    }

    /// `ldmatrix` (`store` false) and `stmatrix`.
    #[allow(clippy::too_many_arguments)]
    fn ld_st_matrix(
        &mut self,
        warp: &mut PtxWarp,
        pc: usize,
        store: bool,
        trans: bool,
        space: MemSpace,
        regs: &[R],
        addr: Addr,
    ) -> Result<(), Stop> {
        let rows_total = 8 * regs.len();
        let mut places = [Place::Shared(0); 32];
        for (lane, place) in places.iter_mut().enumerate().take(rows_total) {
            let at = effective_address(self.launch.program, &warp.regs, addr, lane);
            *place = self.matrix_place(warp, pc, space, lane, at, 16, true)?;
        }
        self.run.counters.shared += 1;
        let who = Who {
            warp: warp.index,
            step: warp.step,
        };
        // rows[8m + r][c]: element (r, c) of matrix m.
        let mut rows = [[0u16; 8]; 32];
        // The lane and half holding element (r, c) of a matrix.
        let holder = |r: usize, c: usize| {
            if trans {
                (4 * c + r / 2, r % 2)
            } else {
                (4 * r + c / 2, c % 2)
            }
        };
        if store {
            for (m, &reg) in regs.iter().enumerate() {
                for r in 0..8 {
                    for (c, x) in rows[8 * m + r].iter_mut().enumerate() {
                        let (lane, half) = holder(r, c);
                        *x = (warp.regs[reg as usize][lane] >> (16 * half)) as u16;
                    }
                }
            }
            for (lane, row) in rows.iter().enumerate().take(rows_total) {
                for k in 0..4 {
                    let word = u64::from(row[2 * k]) | u64::from(row[2 * k + 1]) << 16;
                    let (place, k) = (places[lane], k as u64);
                    self.write(
                        who,
                        pc,
                        warp.index,
                        lane,
                        place,
                        k,
                        4,
                        word,
                        Strength::Plain,
                    )?;
                }
            }
            return Ok(());
        }
        for (lane, row) in rows.iter_mut().enumerate().take(rows_total) {
            for k in 0..4 {
                let (place, kk) = (places[lane], k as u64);
                let w = self.read(who, pc, warp.index, lane, place, kk, 4, Strength::Plain)?;
                row[2 * k] = w as u16;
                row[2 * k + 1] = (w >> 16) as u16;
            }
        }
        for (m, &reg) in regs.iter().enumerate() {
            for lane in 0..32 {
                let mut word = 0u64;
                for half in 0..2 {
                    // The element (r, c) this lane's half holds.
                    let (r, c) = if trans {
                        (2 * (lane % 4) + half, lane / 4)
                    } else {
                        (lane / 4, 2 * (lane % 4) + half)
                    };
                    debug_assert_eq!(holder(r, c), (lane, half));
                    word |= u64::from(rows[8 * m + r][c]) << (16 * half);
                }
                warp.regs[reg as usize][lane] = word;
            }
        }
        Ok(())
    }

    /// `wmma.load` and `wmma.store`.
    // Each lane's elements go to the lane's column of several registers: indexed by lane.
    #[allow(clippy::needless_range_loop)]
    fn wmma_access(&mut self, warp: &mut PtxWarp, pc: usize, op: &MmaOp) -> Result<(), Stop> {
        let MmaOp::Wmma {
            store,
            frag,
            shape,
            el,
            col_major,
            space,
            ref regs,
            addr,
            stride,
        } = *op
        else {
            return Ok(());
        };
        let (bytes, bits, per) = (u64::from(el.bits() / 8), el.bits(), el.per_reg());
        let who = Who {
            warp: warp.index,
            step: warp.step,
        };
        let mut out = vec![[0u64; 32]; regs.len()];
        let mut counted = false;
        for lane in 0..32 {
            let base = effective_address(self.launch.program, &warp.regs, addr, lane);
            let stride = warp.regs[stride as usize][lane] & 0xffff_ffff;
            for e in 0..frag.elems(shape, el) {
                let (r, c) = coords(shape, frag, el, lane, e);
                let (r, c) = (r as u64, c as u64);
                let index = if col_major {
                    c * stride + r
                } else {
                    r * stride + c
                };
                let at = base.wrapping_add(index.wrapping_mul(bytes));
                let place = self.matrix_place(warp, pc, space, lane, at, bytes, false)?;
                if !counted {
                    counted = true;
                    match place {
                        Place::Shared(_) => self.run.counters.shared += 1,
                        _ => self.run.counters.global += 1,
                    }
                }
                let shift = (e % per) as u32 * bits;
                let reg = regs[e / per] as usize;
                if store {
                    let v = (warp.regs[reg][lane] >> shift) & ones(bits);
                    let i = warp.index;
                    self.write(who, pc, i, lane, place, 0, bits / 8, v, Strength::Plain)?;
                } else {
                    let i = warp.index;
                    let v = self.read(who, pc, i, lane, place, 0, bits / 8, Strength::Plain)?;
                    out[e / per][lane] |= v << shift;
                }
            }
        }
        if !store {
            for (reg, col) in regs.iter().zip(out) {
                warp.regs[*reg as usize] = col;
            }
        }
        Ok(())
    }
}
