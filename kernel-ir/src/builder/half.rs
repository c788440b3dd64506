//! `f16` and `bf16` arithmetic: the IR computes on `f32` and `f64` only, so the builder widens half
//! operands to `f32` (exact), emits the operation there and rounds the result once back to the half
//! (`CastKind::FloatConvert`, nearest even). For `+ - * /` and `sqrt` this is the correctly rounded
//! half result (`f32` carries more than twice a half's precision plus two bits, so the double
//! rounding is innocuous); comparisons, `min`/`max` and the roundings to an integer are exact;
//! `mul_add` is fused in `f32` and then rounded (two roundings); the transcendental functions carry
//! their `f32` bound plus half an ulp of the half. Negation, `abs` and `copysign` work on the sign bit,
//! as Rust's do.

use super::typed::{ScalarKind, Val};
use super::KernelBuilder;
use crate::expr::{BinaryOp, CastKind, Expr, UnaryOp};
use crate::kernel::Value;
use crate::types::{Literal, ScalarType};

impl KernelBuilder {
    fn bind_typed(&mut self, ty: ScalarType, expr: Expr) -> Value {
        let value = self.fresh_of(ty);
        self.push(crate::stmt::Stmt::Let { value, expr });
        value
    }

    /// `v` through `steps` (`as`'s conversions: `CastTo::STEPS`), each yielding its type.
    pub(crate) fn convert_steps(
        &mut self,
        mut v: Value,
        steps: &[(CastKind, ScalarType)],
    ) -> Value {
        for &(kind, to) in steps {
            v = self.bind_typed(to, Expr::Cast(kind, v, to));
        }
        v
    }

    /// `v` of type `from` converted to float type `to`.
    pub(crate) fn convert_value(&mut self, v: Value, from: ScalarType, to: ScalarType) -> Value {
        if from == to {
            return v;
        }
        self.bind_typed(to, Expr::Cast(CastKind::FloatConvert, v, to))
    }

    /// The expression `op` builds from `operands` (of kind `T`), with a result of kind `Out`: as is on
    /// every type but the halves; on halves computed in `f32`, a half result rounded once.
    pub(crate) fn in_f32<T: ScalarKind, Out: ScalarKind>(
        &mut self,
        operands: &[Value],
        op: impl Fn(&[Value]) -> Expr,
    ) -> Val<Out> {
        if !T::TYPE.is_half() {
            return self.bind(op(operands));
        }
        let expr = op(operands);
        if let Some(bits) = self.half_sign_op(&expr, T::TYPE) {
            return Val::new(bits);
        }
        let wide: Vec<Value> = operands
            .iter()
            .map(|&v| self.convert_value(v, T::TYPE, ScalarType::F32))
            .collect();
        let out = if Out::TYPE == T::TYPE {
            ScalarType::F32
        } else {
            Out::TYPE
        };
        let r = self.bind_typed(out, op(&wide));
        Val::new(self.convert_value(r, out, Out::TYPE))
    }

    /// Negation, `abs` and `copysign` of halves on their sign bit (NaN payloads kept, as in Rust).
    fn half_sign_op(&mut self, expr: &Expr, t: ScalarType) -> Option<Value> {
        let u16 = ScalarType::U16;
        let bits =
            |b: &mut Self, v: Value| b.bind_typed(u16, Expr::Cast(CastKind::Bitcast, v, u16));
        let r = match *expr {
            Expr::Unary(op @ (UnaryOp::Neg | UnaryOp::Abs), a) => {
                let a = bits(self, a);
                let (bin, mask) = if op == UnaryOp::Neg {
                    (BinaryOp::Xor, 0x8000)
                } else {
                    (BinaryOp::And, 0x7fff)
                };
                let m = self.bind_typed(u16, Expr::Literal(Literal::U16(mask)));
                self.bind_typed(u16, Expr::Binary(bin, a, m))
            }
            Expr::Binary(BinaryOp::CopySign, a, b) => {
                let (a, b) = (bits(self, a), bits(self, b));
                let low = self.bind_typed(u16, Expr::Literal(Literal::U16(0x7fff)));
                let high = self.bind_typed(u16, Expr::Literal(Literal::U16(0x8000)));
                let a = self.bind_typed(u16, Expr::Binary(BinaryOp::And, a, low));
                let b = self.bind_typed(u16, Expr::Binary(BinaryOp::And, b, high));
                self.bind_typed(u16, Expr::Binary(BinaryOp::Or, a, b))
            }
            _ => return None,
        };
        Some(self.bind_typed(t, Expr::Cast(CastKind::Bitcast, r, t)))
    }
}
