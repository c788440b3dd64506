//! The IR's `CastKind::FloatConvert`, defined as the `cvt` instructions the PTX emitter writes for it
//! compute (this module's functions are those instructions' own), so the IR simulator and the PTX
//! simulator agree bit for bit: widening is exact (a NaN keeps its sign and payload, quiet), narrowing
//! rounds once to nearest even (`f64` → half directly: the emitter's round-to-odd `f32` step gives
//! the same result), and a NaN narrowed to a half is the canonical `0x7fff`.

use warpforge_ir::ScalarType;

use super::exec_cvt::cvt;
use super::inst::{FMods, Rnd, Ty};
use super::inst_half::HFmt;

fn half(t: ScalarType) -> Option<HFmt> {
    match t {
        ScalarType::F16 => Some(HFmt::F16),
        ScalarType::BF16 => Some(HFmt::Bf16),
        _ => None,
    }
}

/// The exact value of `bits` of float type `t` as an `f64` (NaNs as `cvt` widens them).
fn to_f64_bits(t: ScalarType, bits: u64) -> u64 {
    let f32_bits = match half(t) {
        Some(h) => u64::from(h.to_f32_bits(bits as u16)),
        None if t == ScalarType::F64 => return bits,
        None => bits,
    };
    cvt(Ty::F64, Ty::F32, Rnd::None, FMods::default(), f32_bits)
}

/// `bits` of float type `from` converted to float type `to`.
pub(crate) fn float_convert(from: ScalarType, to: ScalarType, bits: u64) -> u64 {
    use ScalarType as T;
    match (from, to) {
        (T::F16 | T::BF16, T::F32) => {
            u64::from(half(from).map_or(0, |h| h.to_f32_bits(bits as u16)))
        }
        (_, T::F64) => to_f64_bits(from, bits),
        (T::F64, T::F32) => cvt(Ty::F32, Ty::F64, Rnd::Nearest, FMods::default(), bits),
        (_, T::F16 | T::BF16) => {
            let x = f64::from_bits(to_f64_bits(from, bits));
            u64::from(half(to).map_or(0, |h| h.narrow(x, Rnd::None, false)))
        }
        // The verifier admits only pairs of distinct float types.
        _ => bits,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ScalarType as T;

    #[test]
    fn conversions_round_to_nearest_even_and_keep_nan() {
        // 1 + 2^-11 is a tie between 1 and 1 + 2^-10: to even (1.0).
        let tie = u64::from((1.0f32 + f32::EPSILON * 1024.0 / 2.0).to_bits());
        assert_eq!(float_convert(T::F32, T::F16, tie), 0x3c00);
        assert_eq!(
            float_convert(T::F32, T::F16, u64::from(65520.0f32.to_bits())),
            0x7c00
        );
        assert_eq!(
            float_convert(T::F32, T::F16, u64::from(f32::NAN.to_bits())),
            0x7fff
        );
        assert_eq!(float_convert(T::F32, T::BF16, 0x3f80_8000), 0x3f80);
        // the smallest f16 subnormal widens exactly
        assert_eq!(
            float_convert(T::F16, T::F32, 1),
            u64::from(2f32.powi(-24).to_bits())
        );
        assert_eq!(float_convert(T::BF16, T::F32, 0x7f81), 0x7fc1_0000);
        assert_eq!(float_convert(T::F64, T::F16, 1.0f64.to_bits()), 0x3c00);
        // Just above a tie, the excess in the low 32 bits of the f64 significand: rounds up
        // (`half`'s `from_f64` drops those bits and gives 0x3c00).
        let above_tie = 1.0 + 2f64.powi(-11) + 2f64.powi(-40);
        assert_eq!(float_convert(T::F64, T::F16, above_tie.to_bits()), 0x3c01);
        assert_eq!(
            float_convert(
                T::F64,
                T::BF16,
                (1.0 + 2f64.powi(-8) + 2f64.powi(-45)).to_bits()
            ),
            0x3f81
        );
        assert_eq!(
            float_convert(T::F32, T::F64, u64::from(1.5f32.to_bits())),
            1.5f64.to_bits()
        );
    }
}
