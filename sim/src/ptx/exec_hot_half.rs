//! `cvt.f32.f16` and `cvt.f32.bf16` (without `.ftz`/`.sat`) over the warp: the halves widened in
//! one slice conversion (the CPU's F16C where it has it) rather than lane by lane through the
//! general path. NaNs keep their payload with the quiet bit set, as on the general path
//! (`HFmt::to_f32_bits`): F16C and the `half` crate's fallback both widen them so;
//! `exec_hot_tests.rs` compares both paths, signaling NaNs included.

use half::slice::HalfFloatSliceExt;

use super::block::PtxWarp;
use super::exec_int::ones;
use super::inst_half::{CvtTy, FloatX, HFmt};
use super::lanes;

/// Executes `x` on `mask`'s lanes when it is a widening of one half to `f32` without modifiers;
/// `false` otherwise (nothing done).
pub(super) fn widen(reg_bits: &[u32], warp: &mut PtxWarp, x: &FloatX, mask: u32) -> bool {
    let FloatX::Cvt {
        to: CvtTy::F32,
        from: CvtTy::Half(fmt),
        mods,
        d,
        a,
        b: None,
        ..
    } = *x
    else {
        return false;
    };
    if mods.ftz || mods.sat {
        return false;
    }
    let (d, keep) = (d as usize, ones(reg_bits[d as usize]));
    let halves: [u16; 32] = std::array::from_fn(|l| warp.regs[a as usize][l] as u16);
    let widened: [u32; 32] = match fmt {
        HFmt::F16 => {
            let src = halves.map(half::f16::from_bits);
            let mut out = [0f32; 32];
            src.convert_to_f32_slice(&mut out);
            out.map(f32::to_bits)
        }
        HFmt::Bf16 => halves.map(|h| fmt.to_f32_bits(h)),
    };
    let col = &mut warp.regs[d];
    if mask == u32::MAX {
        for (v, w) in col.iter_mut().zip(widened) {
            *v = u64::from(w) & keep;
        }
    } else {
        for l in lanes(mask) {
            col[l] = u64::from(widened[l]) & keep;
        }
    }
    true
}
