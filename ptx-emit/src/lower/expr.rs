//! Lowering of pure expressions (`let`), with the IR's defined semantics made explicit: 8/16-bit
//! results are re-masked, shift amounts are taken modulo the width, unsigned `x / 0 == x` and
//! `x % 0 == 0`, `f32` arithmetic uses `.rn` so ptxas cannot contract it into an FMA the other
//! backends would not perform.

use warpforge_ir::{
    BinaryOp, CastKind, CmpOp, Expr, Literal, ParamKind, ScalarType, Special, UnaryOp, Value,
};

use super::{mov_op, param_symbol, Lowerer, B32, B64, F32, F64, PRED, S16, S32, S64, S8, U32, U64};
use crate::ast::Operand;
use crate::isa::{Dim, Modifier as M, Opcode as O, SpecialReg, WARP_SZ};
use crate::regs::{Reg, RegClass};

/// The arithmetic type suffix of `t` (8/16-bit values compute as `u32`).
pub(super) fn arith(t: ScalarType) -> M {
    match t {
        // Halves are bits in a b32 register: only moved, selected and converted.
        ScalarType::U8 | ScalarType::U16 | ScalarType::U32 | ScalarType::F16 | ScalarType::BF16 => {
            U32
        }
        ScalarType::I32 => S32,
        ScalarType::U64 => U64,
        ScalarType::I64 => S64,
        ScalarType::F32 => F32,
        ScalarType::F64 => F64,
        ScalarType::Bool => PRED,
    }
}

/// The sign bit of a float type's register (`f32`, `f64`).
fn sign_bit(t: ScalarType) -> u64 {
    if t == ScalarType::F64 {
        1 << 63
    } else {
        0x8000_0000
    }
}

/// The bit type suffix of `t`.
pub(super) fn bits(t: ScalarType) -> M {
    match RegClass::of(t) {
        RegClass::Pred => PRED,
        RegClass::B64 | RegClass::F64 => B64,
        RegClass::B32 | RegClass::F32 => B32,
        RegClass::B16 => super::B16,
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

pub(super) fn imm(bits: u64) -> Operand {
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
                (O::And, &[B32]),
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
                    Literal::F64Bits(b) => Operand::F64(b),
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
                    (O::Mul, &[M::Wide, S32])
                } else {
                    (O::Mul, &[M::Wide, U32])
                };
                self.inst((op.0, op.1), vec![Operand::Reg(dst), a, b]);
            }
            Expr::MulAdd(a, b, c) => {
                let (a, b, c) = (self.op(a), self.op(b), self.op(c));
                let dst = self.def(value);
                self.inst(
                    (O::Fma, &[M::Rn, arith(t)]),
                    vec![Operand::Reg(dst), a, b, c],
                );
            }
            Expr::FunnelShr(lo, hi, shift) => {
                let (lo, hi, shift) = (self.op(lo), self.op(hi), self.op(shift));
                let dst = self.def(value);
                self.inst(
                    (O::Shf, &[M::R, M::Wrap, B32]),
                    vec![Operand::Reg(dst), lo, hi, shift],
                );
            }
            Expr::Compare(op, a, b) => {
                let operand_t = self.ty(a);
                let cmp = match (op, operand_t) {
                    (CmpOp::Ne, ScalarType::F32 | ScalarType::F64) => M::Neu, // true when either is NaN, like Rust's `!=`
                    (CmpOp::Eq, _) => M::Eq,
                    (CmpOp::Ne, _) => M::Ne,
                    (CmpOp::Lt, _) => M::Lt,
                    (CmpOp::Le, _) => M::Le,
                    (CmpOp::Gt, _) => M::Gt,
                    (CmpOp::Ge, _) => M::Ge,
                };
                let (a, b) = (self.op(a), self.op(b));
                let dst = self.def(value);
                self.inst(
                    (O::Setp, &[cmp, arith(operand_t)]),
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
                    self.guarded(c, false, (O::Mov, &[PRED]), vec![Operand::Reg(dst), a]);
                    self.guarded(c, true, (O::Mov, &[PRED]), vec![Operand::Reg(dst), b]);
                } else {
                    let ty = if matches!(t, ScalarType::F32 | ScalarType::F64) {
                        arith(t)
                    } else {
                        bits(t)
                    };
                    self.inst(
                        (O::Selp, &[ty]),
                        vec![Operand::Reg(dst), a, b, Operand::Reg(c)],
                    );
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
        let param_type = M::Type(super::param_type(t));
        let ld = (O::Ld, &[M::Param, param_type][..]);
        if t == ScalarType::Bool {
            let byte = self.fresh(RegClass::B32);
            self.inst(ld, vec![Operand::Reg(byte), addr]);
            let dst = self.def(value);
            self.inst(
                (O::Setp, &[M::Ne, U32]),
                vec![Operand::Reg(dst), Operand::Reg(byte), Operand::Imm(0)],
            );
        } else {
            let dst = self.def(value);
            self.inst(ld, vec![Operand::Reg(dst), addr]);
        }
    }

    /// `mov.u32 d, %sreg` into a fresh register.
    fn sreg(&mut self, reg: SpecialReg) -> Reg {
        let r = self.fresh(RegClass::B32);
        self.inst(
            (O::Mov, &[U32]),
            vec![Operand::Reg(r), Operand::Sym(reg.to_string())],
        );
        r
    }

    /// `a + b · c` (`mad.lo.u32`) into a fresh register.
    fn mad(&mut self, a: Operand, b: Operand, c: Operand) -> Reg {
        let r = self.fresh(RegClass::B32);
        self.inst((O::Mad, &[M::Lo, U32]), vec![Operand::Reg(r), b, c, a]);
        r
    }

    /// The thread's linear index in its block: `%tid.x`, or `x + y·Bx + z·Bx·By` in a 2-D or 3-D
    /// block (CUDA's order).
    fn linear_tid(&mut self) -> Reg {
        let x = self.sreg(SpecialReg::Tid(Dim::X));
        let Some([bx, by, bz]) = self.kernel.block_shape else {
            return x;
        };
        let y = self.sreg(SpecialReg::Tid(Dim::Y));
        let mut t = self.mad(
            Operand::Reg(x),
            Operand::Reg(y),
            Operand::Imm(i64::from(bx)),
        );
        if bz > 1 {
            let z = self.sreg(SpecialReg::Tid(Dim::Z));
            t = self.mad(
                Operand::Reg(t),
                Operand::Reg(z),
                Operand::Imm(i64::from(bx * by)),
            );
        }
        t
    }

    /// The block's linear index in the grid: `%ctaid.x`, or `x + gx·(y + gy·z)` for a kernel that
    /// reads the grid's shape (only such a kernel is launched with more than one dimension).
    fn linear_ctaid(&mut self) -> Reg {
        let x = self.sreg(SpecialReg::Ctaid(Dim::X));
        if !self.grid_dims {
            return x;
        }
        let (y, z) = (
            self.sreg(SpecialReg::Ctaid(Dim::Y)),
            self.sreg(SpecialReg::Ctaid(Dim::Z)),
        );
        let (gx, gy) = (
            self.sreg(SpecialReg::Nctaid(Dim::X)),
            self.sreg(SpecialReg::Nctaid(Dim::Y)),
        );
        let yz = self.mad(Operand::Reg(y), Operand::Reg(gy), Operand::Reg(z));
        self.mad(Operand::Reg(x), Operand::Reg(gx), Operand::Reg(yz))
    }

    fn special(&mut self, value: Value, s: Special) {
        let dim = |d: usize| [Dim::X, Dim::Y, Dim::Z][d];
        let sreg = |reg: SpecialReg| Operand::Sym(reg.to_string());
        // What the value is moved from (a special register, an immediate, or a computed register),
        // or `None` when it was written to its own register already.
        let src: Option<Operand> = match s {
            Special::ThreadIndex => Some(match self.kernel.block_shape {
                None => sreg(SpecialReg::Tid(Dim::X)),
                Some(_) => Operand::Reg(self.linear_tid()),
            }),
            Special::LaneId | Special::WarpIndex => {
                // From the linear thread index (%tid.x in a 1-D block): %laneid is equivalent,
                // %warpid is not stable across a kernel's life.
                let tid = self.linear_tid();
                let dst = self.def(value);
                let (op, amount) = if s == Special::LaneId {
                    ((O::And, &[B32][..]), 31)
                } else {
                    ((O::Shr, &[U32][..]), 5)
                };
                self.inst(
                    (op.0, op.1),
                    vec![Operand::Reg(dst), Operand::Reg(tid), Operand::Imm(amount)],
                );
                None
            }
            Special::WarpSize => Some(Operand::Imm(i64::from(WARP_SZ))),
            Special::BlockSize => Some(match self.kernel.block_shape {
                None => sreg(SpecialReg::Ntid(Dim::X)),
                Some(_) => Operand::Imm(i64::from(self.kernel.block_size)),
            }),
            Special::BlockIndex if self.grid_dims => Some(Operand::Reg(self.linear_ctaid())),
            Special::BlockIndex => Some(sreg(SpecialReg::Ctaid(Dim::X))),
            Special::GridSize if self.grid_dims => {
                let [x, y, z] = [Dim::X, Dim::Y, Dim::Z].map(|d| self.sreg(SpecialReg::Nctaid(d)));
                let xy = self.fresh(RegClass::B32);
                self.inst(
                    (O::Mul, &[M::Lo, U32]),
                    vec![Operand::Reg(xy), Operand::Reg(x), Operand::Reg(y)],
                );
                let dst = self.def(value);
                self.inst(
                    (O::Mul, &[M::Lo, U32]),
                    vec![Operand::Reg(dst), Operand::Reg(xy), Operand::Reg(z)],
                );
                None
            }
            Special::GridSize => Some(sreg(SpecialReg::Nctaid(Dim::X))),
            Special::ThreadIndexX | Special::ThreadIndexY | Special::ThreadIndexZ => {
                let d = s.dimension().unwrap_or(0);
                Some(if self.kernel.block_dims()[d] == 1 {
                    // A dimension of extent 1: the coordinate is 0.
                    Operand::Imm(0)
                } else {
                    sreg(SpecialReg::Tid(dim(d)))
                })
            }
            Special::BlockIndexX | Special::BlockIndexY | Special::BlockIndexZ => {
                Some(sreg(SpecialReg::Ctaid(dim(s.dimension().unwrap_or(0)))))
            }
            Special::GridSizeX | Special::GridSizeY | Special::GridSizeZ => {
                Some(sreg(SpecialReg::Nctaid(dim(s.dimension().unwrap_or(0)))))
            }
        };
        if let Some(src) = src {
            let dst = self.def(value);
            self.inst((O::Mov, &[U32]), vec![Operand::Reg(dst), src]);
        }
    }

    fn unary(&mut self, value: Value, op: UnaryOp, a: Value) {
        let (t, at) = (self.ty(value), self.ty(a));
        let src = self.op(a);
        let dst = self.def(value);
        let d = Operand::Reg(dst);
        match op {
            UnaryOp::Not => {
                self.inst((O::Not, &[bits(t)]), vec![d, src]);
                self.normalize(dst, t);
            }
            UnaryOp::Neg => self.inst((O::Neg, &[arith(t)]), vec![d, src]),
            UnaryOp::PopCount => self.inst((O::Popc, &[bits(at)]), vec![d, src]),
            UnaryOp::CountLeadingZeros => self.inst((O::Clz, &[bits(at)]), vec![d, src]),
            UnaryOp::BitReverse => self.inst((O::Brev, &[bits(at)]), vec![d, src]),
            UnaryOp::FindFirstSet => {
                // The lowest set bit is the highest set bit of the reversed word, counted from the top;
                // bfind yields 0xffffffff for zero, as the IR requires.
                let reversed = self.fresh(RegClass::of(at));
                self.inst((O::Brev, &[bits(at)]), vec![Operand::Reg(reversed), src]);
                let u = if at == ScalarType::U64 { U64 } else { U32 };
                self.inst(
                    (O::Bfind, &[M::Shiftamt, u]),
                    vec![d, Operand::Reg(reversed)],
                );
            }
            // The sign bit cleared, NaNs included (`abs.f32` need not clear a NaN's).
            UnaryOp::Abs if t.is_float() => {
                self.inst((O::And, &[bits(t)]), vec![d, src, imm(sign_bit(t) - 1)]);
            }
            UnaryOp::Abs => self.inst((O::Abs, &[arith(t)]), vec![d, src]),
            // Rounding to an integer, subnormals kept (no `.ftz`).
            UnaryOp::Floor => self.inst((O::Cvt, &[M::Rmi, arith(t), arith(t)]), vec![d, src]),
            UnaryOp::Ceil => self.inst((O::Cvt, &[M::Rpi, arith(t), arith(t)]), vec![d, src]),
            UnaryOp::FloatTrunc => self.inst((O::Cvt, &[M::Rzi, arith(t), arith(t)]), vec![d, src]),
            UnaryOp::RoundEven => self.inst((O::Cvt, &[M::Rni, arith(t), arith(t)]), vec![d, src]),
            // IEEE-rounded, subnormals kept.
            UnaryOp::Sqrt => self.inst((O::Sqrt, &[M::Rn, arith(t)]), vec![d, src]),
            // setp.nan is true where either operand is a NaN.
            UnaryOp::IsNan => self.inst((O::Setp, &[M::Nan, arith(at)]), vec![d, src.clone(), src]),
            UnaryOp::IsFinite => self.inst((O::Testp, &[M::Finite, arith(at)]), vec![d, src]),
            // IEEE-rounded reciprocal; the approximate primitives (f32 only) without `.ftz`
            // (subnormals kept).
            UnaryOp::Recip => self.inst((O::Rcp, &[M::Rn, arith(t)]), vec![d, src]),
            UnaryOp::Rsqrt => self.inst((O::Rsqrt, &[M::Approx, F32]), vec![d, src]),
            UnaryOp::Exp2 => self.inst((O::Ex2, &[M::Approx, F32]), vec![d, src]),
            UnaryOp::Log2 => self.inst((O::Lg2, &[M::Approx, F32]), vec![d, src]),
            UnaryOp::Sin => self.inst((O::Sin, &[M::Approx, F32]), vec![d, src]),
            UnaryOp::Cos => self.inst((O::Cos, &[M::Approx, F32]), vec![d, src]),
        }
    }

    fn binary(&mut self, value: Value, op: BinaryOp, a: Value, b: Value) {
        let t = self.ty(value);
        let (x, y) = (self.op(a), self.op(b));
        let float = t.is_float();
        if matches!(op, BinaryOp::Shl | BinaryOp::Shr) {
            let amount = self.masked_u32(b, t.bits());
            let dst = self.def(value);
            // shr.s* shifts arithmetically, shr.u* logically: the IR's rule for signed and unsigned.
            let name = if op == BinaryOp::Shl {
                (O::Shl, [bits(t)])
            } else {
                (O::Shr, [arith(t)])
            };
            let name = (name.0, &name.1[..]);
            self.inst(name, vec![Operand::Reg(dst), x, amount]);
            self.normalize(dst, t);
            return;
        }
        if matches!(op, BinaryOp::Div | BinaryOp::Rem) && !float {
            // Division by zero is defined: x / 0 == x, x % 0 == 0.
            let raw = self.fresh(RegClass::of(t));
            let zero = self.fresh(RegClass::Pred);
            let opcode = if op == BinaryOp::Div { O::Div } else { O::Rem };
            self.inst(
                (opcode, &[arith(t)]),
                vec![Operand::Reg(raw), x.clone(), y.clone()],
            );
            self.inst(
                (O::Setp, &[M::Eq, arith(t)]),
                vec![Operand::Reg(zero), y, Operand::Imm(0)],
            );
            let dst = self.def(value);
            let when_zero = if op == BinaryOp::Div {
                x
            } else {
                Operand::Imm(0)
            };
            self.inst(
                (O::Selp, &[bits(t)]),
                vec![
                    Operand::Reg(dst),
                    when_zero,
                    Operand::Reg(raw),
                    Operand::Reg(zero),
                ],
            );
            return;
        }
        if op == BinaryOp::CopySign {
            // x's magnitude, y's sign bit: on the bits (`copysign.f32` takes its operands the
            // other way round, and need not keep a NaN's payload).
            let class = if t == ScalarType::F64 {
                RegClass::B64
            } else {
                RegClass::B32
            };
            let (magnitude, sign) = (self.fresh(class), self.fresh(class));
            let (m, s) = (Operand::Reg(magnitude), Operand::Reg(sign));
            self.inst(
                (O::And, &[bits(t)]),
                vec![m.clone(), x, imm(sign_bit(t) - 1)],
            );
            self.inst((O::And, &[bits(t)]), vec![s.clone(), y, imm(sign_bit(t))]);
            let dst = self.def(value);
            self.inst((O::Or, &[bits(t)]), vec![Operand::Reg(dst), m, s]);
            return;
        }
        let (opcode, modifiers) = match op {
            BinaryOp::Add if float => (O::Add, vec![M::Rn, arith(t)]),
            BinaryOp::Sub if float => (O::Sub, vec![M::Rn, arith(t)]),
            BinaryOp::Mul if float => (O::Mul, vec![M::Rn, arith(t)]),
            BinaryOp::Div => (O::Div, vec![M::Rn, arith(t)]),
            BinaryOp::Add => (O::Add, vec![arith(t)]),
            BinaryOp::Sub => (O::Sub, vec![arith(t)]),
            BinaryOp::Mul => (O::Mul, vec![M::Lo, arith(t)]),
            BinaryOp::MulHi => (O::Mul, vec![M::Hi, arith(t)]),
            BinaryOp::Min => (O::Min, vec![arith(t)]),
            BinaryOp::Max => (O::Max, vec![arith(t)]),
            BinaryOp::And => (O::And, vec![bits(t)]),
            BinaryOp::Or => (O::Or, vec![bits(t)]),
            BinaryOp::Xor => (O::Xor, vec![bits(t)]),
            BinaryOp::Rem | BinaryOp::Shl | BinaryOp::Shr | BinaryOp::CopySign => {
                unreachable!("handled above")
            }
        };
        let dst = self.def(value);
        self.inst((opcode, &modifiers), vec![Operand::Reg(dst), x, y]);
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
                let ty = if wide_to { U64 } else { U32 };
                self.inst(
                    (O::Selp, &[ty]),
                    vec![d, Operand::Imm(1), Operand::Imm(0), src],
                );
            }
            CastKind::ZeroExtend if wide_to => self.inst((O::Cvt, &[U64, U32]), vec![d, src]),
            CastKind::ZeroExtend => self.inst((O::Mov, &[B32]), vec![d, src]),
            CastKind::SignExtend => {
                let source = match from.bits() {
                    8 => S8,
                    16 => S16,
                    _ => S32,
                };
                let target = if wide_to { S64 } else { S32 };
                self.inst((O::Cvt, &[target, source]), vec![d, src]);
                self.normalize(dst, to);
            }
            CastKind::Truncate if wide_from => {
                self.inst((O::Cvt, &[U32, U64]), vec![d, src]);
                self.normalize(dst, to);
            }
            CastKind::Truncate => {
                let mask =
                    narrow_mask(to).expect("verified: a 32-bit truncation targets u8 or u16");
                self.inst((O::And, &[B32]), vec![d, src, Operand::Imm(mask)]);
            }
            CastKind::Bitcast => self.inst((O::Mov, &[bits(to)]), vec![d, src]),
            // `cvt.rn` rounds to nearest even, as Rust's `as f32`; 8/16-bit values are
            // zero-extended in their register, so they convert as `u32`.
            CastKind::IntToFloat => {
                self.inst((O::Cvt, &[M::Rn, arith(to), arith(from)]), vec![d, src])
            }
            CastKind::FloatToInt => self.float_to_int(dst, src, from, to),
            CastKind::FloatConvert => self.float_convert(dst, src, from, to),
        }
    }

    /// `f32`/`f64` → integer as Rust's `as`. `cvt.rzi` truncates and saturates to the destination's
    /// range and gives 0 for an `f32` NaN at 32 bits; u8/u16 saturate by a `min` after a `u32`
    /// conversion, and the conversions whose NaN is `1 << (bits - 1)` in PTX (64-bit destinations,
    /// `f64` sources) select 0 for a NaN.
    fn float_to_int(&mut self, dst: Reg, src: Operand, from: ScalarType, to: ScalarType) {
        let d = Operand::Reg(dst);
        self.inst(
            (O::Cvt, &[M::Rzi, arith(to), arith(from)]),
            vec![d.clone(), src.clone()],
        );
        if let Some(max) = narrow_mask(to) {
            self.inst(
                (O::Min, &[U32]),
                vec![d.clone(), d.clone(), Operand::Imm(max)],
            );
        }
        if RegClass::of(to) == RegClass::B64 || from == ScalarType::F64 {
            let nan = self.fresh(RegClass::Pred);
            self.inst(
                (O::Setp, &[M::Nan, arith(from)]),
                vec![Operand::Reg(nan), src.clone(), src],
            );
            self.inst(
                (O::Selp, &[bits(to)]),
                vec![d.clone(), Operand::Imm(0), d, Operand::Reg(nan)],
            );
        }
    }
}
