//! Lowering of pure expressions (`let`), with the IR's defined semantics made explicit: 8/16-bit
//! results are re-masked, shift amounts are taken modulo the width, unsigned `x / 0 == x` and
//! `x % 0 == 0`, `f32` arithmetic uses `.rn` so ptxas cannot contract it into an FMA the other
//! backends would not perform.

use warpforge_ir::{
    BinaryOp, CastKind, CmpOp, Expr, Literal, ParamKind, ScalarType, Special, UnaryOp, Value,
};

use super::{mov_op, param_symbol, Lowerer};
use crate::ast::Operand;
use crate::regs::{Reg, RegClass};

/// The arithmetic type suffix of `t` (8/16-bit values compute as `u32`).
fn arith(t: ScalarType) -> &'static str {
    match t {
        ScalarType::U8 | ScalarType::U16 | ScalarType::U32 => "u32",
        ScalarType::I32 => "s32",
        ScalarType::U64 => "u64",
        ScalarType::I64 => "s64",
        ScalarType::F32 => "f32",
        ScalarType::Bool => "pred",
    }
}

/// The bit type suffix of `t`.
fn bits(t: ScalarType) -> &'static str {
    match RegClass::of(t) {
        RegClass::Pred => "pred",
        RegClass::B64 => "b64",
        RegClass::B32 | RegClass::F32 => "b32",
    }
}

/// The mask that keeps an 8- or 16-bit value zero-extended in its 32-bit register.
pub(super) fn narrow_mask(t: ScalarType) -> Option<i64> {
    match t {
        ScalarType::U8 => Some(0xff),
        ScalarType::U16 => Some(0xffff),
        _ => None,
    }
}

fn imm(bits: u64) -> Operand {
    if bits < 0x1_0000 {
        Operand::Imm(bits as i64)
    } else {
        Operand::Bits(bits)
    }
}

impl Lowerer<'_> {
    /// Re-zero-extends an 8/16-bit result.
    fn normalize(&mut self, r: Reg, t: ScalarType) {
        if let Some(mask) = narrow_mask(t) {
            self.inst(
                "and.b32",
                vec![Operand::Reg(r), Operand::Reg(r), Operand::Imm(mask)],
            );
        }
    }

    pub(super) fn let_expr(&mut self, value: Value, expr: &Expr) {
        let t = self.ty(value);
        match *expr {
            Expr::Literal(lit) => {
                let dst = self.def(value);
                self.consts[value.index()] = Some(lit.to_bits());
                let src = match lit {
                    Literal::Bool(b) => Operand::Imm(i64::from(b)),
                    Literal::F32Bits(b) => Operand::F32(b),
                    other => imm(other.to_bits()),
                };
                self.inst(mov_op(dst.class), vec![Operand::Reg(dst), src]);
            }
            Expr::Param(p) => self.scalar_param(value, p),
            Expr::Special(s) => self.special(value, s),
            Expr::Local(l) => {
                let src = self.local(l);
                let dst = self.def(value);
                self.inst(
                    mov_op(dst.class),
                    vec![Operand::Reg(dst), Operand::Reg(src)],
                );
            }
            Expr::Unary(op, a) => self.unary(value, op, a),
            Expr::Binary(op, a, b) => self.binary(value, op, a, b),
            Expr::MulWide(a, b) => {
                let (a, b) = (self.op(a), self.op(b));
                let dst = self.def(value);
                let op = if t == ScalarType::I64 {
                    "mul.wide.s32"
                } else {
                    "mul.wide.u32"
                };
                self.inst(op, vec![Operand::Reg(dst), a, b]);
            }
            Expr::Compare(op, a, b) => {
                let operand_t = self.ty(a);
                let name = match (op, operand_t) {
                    (CmpOp::Ne, ScalarType::F32) => "neu", // true when either is NaN, like Rust's `!=`
                    (CmpOp::Eq, _) => "eq",
                    (CmpOp::Ne, _) => "ne",
                    (CmpOp::Lt, _) => "lt",
                    (CmpOp::Le, _) => "le",
                    (CmpOp::Gt, _) => "gt",
                    (CmpOp::Ge, _) => "ge",
                };
                let (a, b) = (self.op(a), self.op(b));
                let dst = self.def(value);
                self.inst(
                    format!("setp.{name}.{}", arith(operand_t)),
                    vec![Operand::Reg(dst), a, b],
                );
            }
            Expr::Select {
                cond,
                if_true,
                if_false,
            } => {
                let (c, a, b) = (self.reg(cond), self.op(if_true), self.op(if_false));
                let dst = self.def(value);
                if t == ScalarType::Bool {
                    self.guarded(c, false, "mov.pred", vec![Operand::Reg(dst), a]);
                    self.guarded(c, true, "mov.pred", vec![Operand::Reg(dst), b]);
                } else {
                    let op = if t == ScalarType::F32 {
                        "selp.f32".into()
                    } else {
                        format!("selp.{}", bits(t))
                    };
                    self.inst(op, vec![Operand::Reg(dst), a, b, Operand::Reg(c)]);
                }
            }
            Expr::Cast(kind, a, to) => self.cast(value, kind, a, to),
        }
    }

    fn scalar_param(&mut self, value: Value, p: warpforge_ir::ParamId) {
        let param = &self.kernel.params[p];
        let ParamKind::Scalar(t) = param.kind else {
            unreachable!("verified: only scalar parameters are read as values")
        };
        let addr = Operand::Addr(Box::new(Operand::Sym(param_symbol(&param.name).0)), 0);
        let ld = format!("ld.param.{}", super::param_type(t));
        if t == ScalarType::Bool {
            let byte = self.fresh(RegClass::B32);
            self.inst(ld, vec![Operand::Reg(byte), addr]);
            let dst = self.def(value);
            self.inst(
                "setp.ne.u32",
                vec![Operand::Reg(dst), Operand::Reg(byte), Operand::Imm(0)],
            );
        } else {
            let dst = self.def(value);
            self.inst(ld, vec![Operand::Reg(dst), addr]);
        }
    }

    fn special(&mut self, value: Value, s: Special) {
        let sreg = |name: &str| Operand::Sym(name.into());
        match s {
            Special::LaneId | Special::WarpIndex => {
                // Derived from %tid.x: %laneid is equivalent, %warpid is not stable across a kernel's life.
                let tid = self.fresh(RegClass::B32);
                self.inst("mov.u32", vec![Operand::Reg(tid), sreg("%tid.x")]);
                let dst = self.def(value);
                let (op, amount) = if s == Special::LaneId {
                    ("and.b32", 31)
                } else {
                    ("shr.u32", 5)
                };
                self.inst(
                    op,
                    vec![Operand::Reg(dst), Operand::Reg(tid), Operand::Imm(amount)],
                );
            }
            Special::WarpSize => {
                let dst = self.def(value);
                self.inst("mov.u32", vec![Operand::Reg(dst), Operand::Imm(32)]);
            }
            _ => {
                let name = match s {
                    Special::ThreadIndex => "%tid.x",
                    Special::BlockIndex => "%ctaid.x",
                    Special::BlockSize => "%ntid.x",
                    _ => "%nctaid.x",
                };
                let dst = self.def(value);
                self.inst("mov.u32", vec![Operand::Reg(dst), sreg(name)]);
            }
        }
    }

    fn unary(&mut self, value: Value, op: UnaryOp, a: Value) {
        let (t, at) = (self.ty(value), self.ty(a));
        let src = self.op(a);
        let dst = self.def(value);
        let d = Operand::Reg(dst);
        match op {
            UnaryOp::Not => {
                self.inst(format!("not.{}", bits(t)), vec![d, src]);
                self.normalize(dst, t);
            }
            UnaryOp::Neg => self.inst(format!("neg.{}", arith(t)), vec![d, src]),
            UnaryOp::PopCount => self.inst(format!("popc.{}", bits(at)), vec![d, src]),
            UnaryOp::CountLeadingZeros => self.inst(format!("clz.{}", bits(at)), vec![d, src]),
            UnaryOp::BitReverse => self.inst(format!("brev.{}", bits(at)), vec![d, src]),
            UnaryOp::FindFirstSet => {
                // The lowest set bit is the highest set bit of the reversed word, counted from the top;
                // bfind yields 0xffffffff for zero, as the IR requires.
                let reversed = self.fresh(RegClass::of(at));
                self.inst(
                    format!("brev.{}", bits(at)),
                    vec![Operand::Reg(reversed), src],
                );
                let u = if at == ScalarType::U64 { "u64" } else { "u32" };
                self.inst(
                    format!("bfind.shiftamt.{u}"),
                    vec![d, Operand::Reg(reversed)],
                );
            }
        }
    }

    fn binary(&mut self, value: Value, op: BinaryOp, a: Value, b: Value) {
        let t = self.ty(value);
        let (x, y) = (self.op(a), self.op(b));
        let float = t == ScalarType::F32;
        if matches!(op, BinaryOp::Shl | BinaryOp::Shr) {
            let amount = self.masked_u32(b, t.bits());
            let dst = self.def(value);
            // shr.s* shifts arithmetically, shr.u* logically: the IR's rule for signed and unsigned.
            let name = if op == BinaryOp::Shl {
                format!("shl.{}", bits(t))
            } else {
                format!("shr.{}", arith(t))
            };
            self.inst(name, vec![Operand::Reg(dst), x, amount]);
            self.normalize(dst, t);
            return;
        }
        if matches!(op, BinaryOp::Div | BinaryOp::Rem) && !float {
            // Division by zero is defined: x / 0 == x, x % 0 == 0.
            let raw = self.fresh(RegClass::of(t));
            let zero = self.fresh(RegClass::Pred);
            let name = if op == BinaryOp::Div { "div" } else { "rem" };
            self.inst(
                format!("{name}.{}", arith(t)),
                vec![Operand::Reg(raw), x.clone(), y.clone()],
            );
            self.inst(
                format!("setp.eq.{}", arith(t)),
                vec![Operand::Reg(zero), y, Operand::Imm(0)],
            );
            let dst = self.def(value);
            let when_zero = if op == BinaryOp::Div {
                x
            } else {
                Operand::Imm(0)
            };
            let sel = format!("selp.{}", bits(t));
            self.inst(
                sel,
                vec![
                    Operand::Reg(dst),
                    when_zero,
                    Operand::Reg(raw),
                    Operand::Reg(zero),
                ],
            );
            return;
        }
        let name = match op {
            BinaryOp::Add if float => "add.rn.f32".into(),
            BinaryOp::Sub if float => "sub.rn.f32".into(),
            BinaryOp::Mul if float => "mul.rn.f32".into(),
            BinaryOp::Div => "div.rn.f32".into(),
            BinaryOp::Add => format!("add.{}", arith(t)),
            BinaryOp::Sub => format!("sub.{}", arith(t)),
            BinaryOp::Mul => format!("mul.lo.{}", arith(t)),
            BinaryOp::MulHi => format!("mul.hi.{}", arith(t)),
            BinaryOp::Min => format!("min.{}", arith(t)),
            BinaryOp::Max => format!("max.{}", arith(t)),
            BinaryOp::And => format!("and.{}", bits(t)),
            BinaryOp::Or => format!("or.{}", bits(t)),
            BinaryOp::Xor => format!("xor.{}", bits(t)),
            BinaryOp::Rem | BinaryOp::Shl | BinaryOp::Shr => unreachable!("handled above"),
        };
        let dst = self.def(value);
        self.inst(name, vec![Operand::Reg(dst), x, y]);
        if matches!(op, BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul) {
            self.normalize(dst, t);
        }
    }

    fn cast(&mut self, value: Value, kind: CastKind, a: Value, to: ScalarType) {
        let from = self.ty(a);
        let src = self.op(a);
        let dst = self.def(value);
        let d = Operand::Reg(dst);
        let wide_to = RegClass::of(to) == RegClass::B64;
        let wide_from = RegClass::of(from) == RegClass::B64;
        match kind {
            CastKind::ZeroExtend if from == ScalarType::Bool => {
                let op = if wide_to { "selp.u64" } else { "selp.u32" };
                self.inst(op, vec![d, Operand::Imm(1), Operand::Imm(0), src]);
            }
            CastKind::ZeroExtend if wide_to => self.inst("cvt.u64.u32", vec![d, src]),
            CastKind::ZeroExtend => self.inst("mov.b32", vec![d, src]),
            CastKind::SignExtend => {
                let source = match from.bits() {
                    8 => "s8",
                    16 => "s16",
                    _ => "s32",
                };
                let target = if wide_to { "s64" } else { "s32" };
                self.inst(format!("cvt.{target}.{source}"), vec![d, src]);
                self.normalize(dst, to);
            }
            CastKind::Truncate if wide_from => {
                self.inst("cvt.u32.u64", vec![d, src]);
                self.normalize(dst, to);
            }
            CastKind::Truncate => {
                let mask =
                    narrow_mask(to).expect("verified: a 32-bit truncation targets u8 or u16");
                self.inst("and.b32", vec![d, src, Operand::Imm(mask)]);
            }
            CastKind::Bitcast => self.inst(format!("mov.{}", bits(to)), vec![d, src]),
        }
    }
}
