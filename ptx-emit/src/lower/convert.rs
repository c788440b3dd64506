//! Conversions between float types (`CastKind::FloatConvert`), each exactly as the IR defines it:
//! widening is exact, narrowing rounds once to nearest even, a NaN narrowed to a half is `0x7fff`.
//!
//! - `f16` ↔ `f32` use the hardware's `cvt` (sm_53+) through a `.b16` temporary;
//! - `bf16` ↔ `f32` are integer sequences on the bits (`cvt.rn.bf16.f32` needs sm_80 and
//!   `cvt.f32.bf16` sm_90; the bits give the same answer on every target);
//! - `f64` → a half goes through `f32` rounded to odd (`cvt.rz` with the sticky bit set when inexact),
//!   which has more than twice the half's precision plus two bits, so the second rounding is the
//!   only one that shows: the result is the correctly rounded half of the `f64`.

use warpforge_ir::ScalarType;

use super::expr::imm;
use super::{Lowerer, B32, F16, F32, F64, U16, U32};
use crate::ast::Operand;
use crate::isa::{Modifier as M, Opcode as O};
use crate::regs::{Reg, RegClass};

/// The quiet bit of an `f32` NaN.
const QUIET: u64 = 0x0040_0000;

impl Lowerer<'_> {
    pub(super) fn float_convert(
        &mut self,
        dst: Reg,
        src: Operand,
        from: ScalarType,
        to: ScalarType,
    ) {
        use ScalarType as T;
        let d = Operand::Reg(dst);
        match (from, to) {
            (T::F32, T::F64) => self.inst((O::Cvt, &[F64, F32]), vec![d, src]),
            (T::F64, T::F32) => self.inst((O::Cvt, &[M::Rn, F32, F64]), vec![d, src]),
            (T::F32, _) => self.narrow_f32(dst, src, to),
            (_, T::F32) => self.widen_to_f32(dst, src, from),
            (T::F64, _) => {
                let odd = self.f64_to_f32_odd(src);
                self.narrow_f32(dst, Operand::Reg(odd), to);
            }
            (_, T::F64) => {
                let wide = self.fresh(RegClass::F32);
                self.widen_to_f32(wide, src, from);
                self.inst((O::Cvt, &[F64, F32]), vec![d, Operand::Reg(wide)]);
            }
            // f16 ↔ bf16: widening to f32 is exact, so one rounding.
            _ => {
                let wide = self.fresh(RegClass::F32);
                self.widen_to_f32(wide, src, from);
                self.narrow_f32(dst, Operand::Reg(wide), to);
            }
        }
    }

    /// An `f16`/`bf16` (bits in a b32 register) widened exactly to `f32`.
    fn widen_to_f32(&mut self, dst: Reg, src: Operand, from: ScalarType) {
        let d = Operand::Reg(dst);
        if from == ScalarType::F16 {
            let h = self.fresh(RegClass::B16);
            self.inst((O::Cvt, &[U16, U32]), vec![Operand::Reg(h), src]);
            self.inst((O::Cvt, &[F32, F16]), vec![d, Operand::Reg(h)]);
            return;
        }
        // bf16: the upper half of the f32; a NaN made quiet.
        let bits = self.fresh(RegClass::B32);
        let b = Operand::Reg(bits);
        self.inst((O::Shl, &[B32]), vec![b.clone(), src, Operand::Imm(16)]);
        let nan = self.is_nan_bits(b.clone());
        let quiet = self.fresh(RegClass::B32);
        self.inst(
            (O::Or, &[B32]),
            vec![Operand::Reg(quiet), b.clone(), imm(QUIET)],
        );
        let chosen = self.fresh(RegClass::B32);
        self.inst(
            (O::Selp, &[B32]),
            vec![
                Operand::Reg(chosen),
                Operand::Reg(quiet),
                b,
                Operand::Reg(nan),
            ],
        );
        self.inst((O::Mov, &[B32]), vec![d, Operand::Reg(chosen)]);
    }

    /// An `f32` rounded to nearest even as an `f16`/`bf16`, its bits zero-extended into `dst`.
    fn narrow_f32(&mut self, dst: Reg, src: Operand, to: ScalarType) {
        let d = Operand::Reg(dst);
        if to == ScalarType::F16 {
            let h = self.fresh(RegClass::B16);
            self.inst((O::Cvt, &[M::Rn, F16, F32]), vec![Operand::Reg(h), src]);
            self.inst((O::Cvt, &[U32, U16]), vec![d, Operand::Reg(h)]);
            return;
        }
        // bf16: add half an ulp less one, plus the lowest kept bit (ties to even), keep the top half;
        // the carry rounds up into the exponent and to infinity as it should. A NaN is 0x7fff.
        let bits = self.fresh(RegClass::B32);
        let b = Operand::Reg(bits);
        self.inst((O::Mov, &[B32]), vec![b.clone(), src]);
        let lsb = self.fresh(RegClass::B32);
        let l = Operand::Reg(lsb);
        self.inst(
            (O::Shr, &[U32]),
            vec![l.clone(), b.clone(), Operand::Imm(16)],
        );
        self.inst(
            (O::And, &[B32]),
            vec![l.clone(), l.clone(), Operand::Imm(1)],
        );
        let sum = self.fresh(RegClass::B32);
        let s = Operand::Reg(sum);
        self.inst((O::Add, &[U32]), vec![s.clone(), b.clone(), imm(0x7fff)]);
        self.inst((O::Add, &[U32]), vec![s.clone(), s.clone(), l]);
        self.inst(
            (O::Shr, &[U32]),
            vec![s.clone(), s.clone(), Operand::Imm(16)],
        );
        let nan = self.is_nan_bits(b);
        self.inst(
            (O::Selp, &[B32]),
            vec![d, imm(0x7fff), s, Operand::Reg(nan)],
        );
    }

    /// Whether the `f32` bits in `bits` are a NaN.
    fn is_nan_bits(&mut self, bits: Operand) -> Reg {
        let magnitude = self.fresh(RegClass::B32);
        self.inst(
            (O::And, &[B32]),
            vec![Operand::Reg(magnitude), bits, imm(0x7fff_ffff)],
        );
        let nan = self.fresh(RegClass::Pred);
        self.inst(
            (O::Setp, &[M::Gt, U32]),
            vec![Operand::Reg(nan), Operand::Reg(magnitude), imm(0x7f80_0000)],
        );
        nan
    }

    /// An `f64` rounded to odd as an `f32` (truncated, the lowest bit set when that was inexact).
    fn f64_to_f32_odd(&mut self, src: Operand) -> Reg {
        let truncated = self.fresh(RegClass::F32);
        let t = Operand::Reg(truncated);
        self.inst((O::Cvt, &[M::Rz, F32, F64]), vec![t.clone(), src.clone()]);
        let back = self.fresh(RegClass::F64);
        self.inst((O::Cvt, &[F64, F32]), vec![Operand::Reg(back), t.clone()]);
        let inexact = self.fresh(RegClass::Pred);
        self.inst(
            (O::Setp, &[M::Neu, F64]),
            vec![Operand::Reg(inexact), Operand::Reg(back), src],
        );
        let bits = self.fresh(RegClass::B32);
        let b = Operand::Reg(bits);
        self.inst((O::Mov, &[B32]), vec![b.clone(), t]);
        let odd = self.fresh(RegClass::B32);
        self.inst(
            (O::Or, &[B32]),
            vec![Operand::Reg(odd), b.clone(), Operand::Imm(1)],
        );
        let chosen = self.fresh(RegClass::B32);
        self.inst(
            (O::Selp, &[B32]),
            vec![
                Operand::Reg(chosen),
                Operand::Reg(odd),
                b,
                Operand::Reg(inexact),
            ],
        );
        let out = self.fresh(RegClass::F32);
        self.inst(
            (O::Mov, &[B32]),
            vec![Operand::Reg(out), Operand::Reg(chosen)],
        );
        out
    }
}
