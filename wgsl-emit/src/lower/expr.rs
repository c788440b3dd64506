//! Lowering of pure expressions. WGSL already defines integer `x / 0 == x` and `x % 0 == 0` and wraps
//! integer overflow; the lowering still guards division explicitly (so no back end can differ), keeps
//! 8/16-bit values zero-extended in their `u32`, takes shift amounts modulo the width, and builds
//! `mul_hi` from half-width products (WGSL has no high multiply).

use naga::{BinaryOperator as Op, Expression, Handle, Literal, MathFunction, Scalar, ScalarKind};
use warpforge_ir::{
    BinaryOp, CastKind, CmpOp, Expr, ParamKind, ScalarType, Special, UnaryOp, Value,
};

use super::builder::scalar_of;
use super::Lowerer;

type H = Handle<Expression>;

/// The mask that keeps an 8- or 16-bit value (a half's bits too) zero-extended.
pub(crate) fn narrow_mask(t: ScalarType) -> Option<u32> {
    match t {
        ScalarType::U8 => Some(0xff),
        ScalarType::U16 | ScalarType::F16 | ScalarType::BF16 => Some(0xffff),
        _ => None,
    }
}

/// A literal of IR type `t` (8/16-bit types as `u32`) from its bits.
pub(crate) fn literal_of(t: ScalarType, bits: u64) -> Literal {
    match t {
        ScalarType::Bool => Literal::Bool(bits & 1 != 0),
        ScalarType::U8 | ScalarType::U16 | ScalarType::U32 | ScalarType::F16 | ScalarType::BF16 => {
            Literal::U32(bits as u32)
        }
        ScalarType::F64 => Literal::F64(f64::from_bits(bits)),
        ScalarType::I32 => Literal::I32(bits as u32 as i32),
        ScalarType::U64 => Literal::U64(bits),
        ScalarType::I64 => Literal::I64(bits as i64),
        ScalarType::F32 => Literal::F32(f32::from_bits(bits as u32)),
    }
}

impl Lowerer<'_> {
    /// The low 32 bits of a 64-bit value as `u32`. Masking before the conversion keeps naga's constant
    /// evaluator from rejecting `u32(x)` when `x` is a literal that does not fit.
    pub(super) fn low_u32(&mut self, x: H, signed: bool) -> H {
        let unsigned = if signed {
            self.b.cast(x, Scalar::U64, true)
        } else {
            x
        };
        let mask = self.b.literal(Literal::U64(0xffff_ffff));
        let low = self.b.binary(Op::And, unsigned, mask);
        self.b.cast(low, Scalar::U32, false)
    }

    /// An `i32` widened to `i64` without naga's `i64(i32)`: found by the sim-vs-lavapipe differential
    /// test, `i64(x)` of a run-time negative `i32` came back zero-extended (and `i64(u32)` of a large
    /// `u32` sign-extended). Only the unsigned widening `u64(u32)` is trusted: the high word is filled
    /// from the sign by hand.
    pub(super) fn widen_i32(&mut self, x: H) -> H {
        let bits = self.b.cast(x, Scalar::U32, true);
        let wide = self.b.cast(bits, Scalar::U64, false);
        let zero = self.b.literal(Literal::I32(0));
        let negative = self.b.binary(Op::Less, x, zero);
        let (high, none) = (
            self.b.literal(Literal::U64(0xffff_ffff_0000_0000)),
            self.b.literal(Literal::U64(0)),
        );
        let fill = self.b.select(negative, high, none);
        let extended = self.b.binary(Op::InclusiveOr, wide, fill);
        self.b.cast(extended, Scalar::I64, true)
    }

    /// `x << amount` (amount already below the width) computed on unsigned bits with the bits that
    /// would be shifted out cleared first: the same result, and never a constant-evaluation overflow.
    fn shift_left(&mut self, x: H, amount: H, t: ScalarType) -> H {
        let wide = t.bits() == 64;
        let unsigned = if wide { Scalar::U64 } else { Scalar::U32 };
        let ux = if scalar_of(t) == unsigned {
            x
        } else {
            self.b.cast(x, unsigned, true)
        };
        let all = self.b.literal(if wide {
            Literal::U64(u64::MAX)
        } else {
            Literal::U32(u32::MAX)
        });
        let keep = self.b.binary(Op::ShiftRight, all, amount);
        let kept = self.b.binary(Op::And, ux, keep);
        let shifted = self.b.binary(Op::ShiftLeft, kept, amount);
        if scalar_of(t) == unsigned {
            shifted
        } else {
            self.b.cast(shifted, scalar_of(t), true)
        }
    }

    /// Re-zero-extends an 8/16-bit result.
    pub(super) fn normalize(&mut self, h: H, t: ScalarType) -> H {
        match narrow_mask(t) {
            Some(mask) => {
                let m = self.b.u32(mask);
                self.b.binary(Op::And, h, m)
            }
            None => h,
        }
    }

    pub(super) fn thread_index(&mut self) -> H {
        self.b
            .builtin_arg("local_index", naga::BuiltIn::LocalInvocationIndex, false)
    }

    pub(super) fn let_expr(&mut self, value: Value, expr: &Expr) {
        let t = self.kernel.values[value].ty;
        let h = match *expr {
            Expr::Literal(lit) if t == ScalarType::F32 => {
                // WGSL constant folding rejects float results that overflow to infinity (legal at run
                // time in the IR), and WGSL has no NaN or infinity literals: f32 constants are loaded
                // from a variable as bits and reinterpreted at run time.
                let bits = self
                    .b
                    .temp_with("nonfinite", Literal::U32(lit.to_bits() as u32));
                let loaded = self.b.load(bits);
                self.b.cast(loaded, Scalar::F32, true)
            }
            Expr::Literal(lit) => self.b.literal(literal_of(t, lit.to_bits())),
            Expr::Param(p) => {
                let member = self.params.member[p.index()]
                    .expect("verified: only scalar parameters are read");
                let raw = self.param_member(member);
                match self.kernel.params[p].kind {
                    ParamKind::Scalar(ScalarType::Bool) => {
                        let zero = self.b.u32(0);
                        self.b.binary(Op::NotEqual, raw, zero)
                    }
                    _ => raw,
                }
            }
            Expr::Special(s) => self.special(s),
            Expr::Local(l) => {
                let ptr = self.b.local_ptr(l);
                self.b.load(ptr)
            }
            Expr::Unary(op, a) => self.unary(op, a, t),
            Expr::Binary(op, a, b) => self.binary(op, a, b, t),
            Expr::MulWide(a, b) => {
                let to = scalar_of(t);
                let (x, y) = (self.b.value(a), self.b.value(b));
                let (x, y) = if to == Scalar::I64 {
                    (self.widen_i32(x), self.widen_i32(y))
                } else {
                    (self.b.cast(x, to, false), self.b.cast(y, to, false))
                };
                self.b.binary(Op::Multiply, x, y)
            }
            // WGSL's `fma` may be computed unfused (its accuracy is inherited from `x * y + z`).
            Expr::MulAdd(a, b, c) => {
                let (x, y, z) = (self.b.value(a), self.b.value(b), self.b.value(c));
                self.b.emit(Expression::Math {
                    fun: MathFunction::Fma,
                    arg: x,
                    arg1: Some(y),
                    arg2: Some(z),
                    arg3: None,
                })
            }
            // No funnel shift in WGSL: `(lo >> s) | (hi << (32 − s))`, and `lo` for `s` = 0 (where
            // the second shift would be by 32).
            Expr::FunnelShr(lo, hi, shift) => {
                let (x, y, n) = (self.b.value(lo), self.b.value(hi), self.b.value(shift));
                let mask = self.b.u32(31);
                let s = self.b.binary(Op::And, n, mask);
                let low = self.b.binary(Op::ShiftRight, x, s);
                let width = self.b.u32(32);
                let back = self.b.binary(Op::Subtract, width, s);
                let back = self.b.binary(Op::And, back, mask);
                let high = self.shift_left(y, back, ScalarType::U32);
                let joined = self.b.binary(Op::InclusiveOr, low, high);
                let zero = self.b.u32(0);
                let aligned = self.b.binary(Op::Equal, s, zero);
                self.b.select(aligned, x, joined)
            }
            Expr::Compare(op, a, b) => {
                let op = match op {
                    CmpOp::Eq => Op::Equal,
                    CmpOp::Ne => Op::NotEqual,
                    CmpOp::Lt => Op::Less,
                    CmpOp::Le => Op::LessEqual,
                    CmpOp::Gt => Op::Greater,
                    CmpOp::Ge => Op::GreaterEqual,
                };
                let (x, y) = (self.b.value(a), self.b.value(b));
                self.b.binary(op, x, y)
            }
            Expr::Select {
                cond,
                if_true,
                if_false,
            } => {
                let (c, x, y) = (
                    self.b.value(cond),
                    self.b.value(if_true),
                    self.b.value(if_false),
                );
                self.b.select(c, x, y)
            }
            Expr::Cast(kind, a, to) => self.cast(kind, a, to),
        };
        self.b.set_value(value, h);
    }

    /// Coordinate `d` of linear index `t` in a box of `bx × by × …`: `t % bx`, `t / bx % by`,
    /// `t / (bx·by)` (constants folded; a 1-D box gives `t`, 0, 0).
    fn coordinate(&mut self, t: H, d: usize, bx: u32, by: u32) -> H {
        match d {
            0 if bx == self.kernel.block_size => t,
            0 => {
                let m = self.b.u32(bx);
                self.b.binary(Op::Modulo, t, m)
            }
            1 => {
                let m = self.b.u32(bx);
                let q = self.b.binary(Op::Divide, t, m);
                let n = self.b.u32(by);
                self.b.binary(Op::Modulo, q, n)
            }
            _ => {
                let m = self.b.u32(bx * by);
                self.b.binary(Op::Divide, t, m)
            }
        }
    }

    /// The grid's x and y extents from the parameter block (a kernel that reads the grid's shape
    /// has them).
    fn grid_xy(&mut self) -> (H, H) {
        let first = self.params.grid_member + 1;
        (self.param_member(first), self.param_member(first + 1))
    }

    fn special(&mut self, s: Special) -> H {
        match s {
            Special::ThreadIndex => self.thread_index(),
            Special::LaneId | Special::WarpIndex => {
                let tid = self.thread_index();
                if s == Special::LaneId {
                    let m = self.b.u32(31);
                    self.b.binary(Op::And, tid, m)
                } else {
                    let five = self.b.u32(5);
                    self.b.binary(Op::ShiftRight, tid, five)
                }
            }
            Special::BlockIndex => self
                .block_index
                .expect("the prologue computes the block index"),
            Special::BlockSize => self.b.u32(self.kernel.block_size),
            Special::GridSize => self.param_member(self.params.grid_member),
            Special::WarpSize => self.b.u32(32),
            // The workgroup is one-dimensional (x·y·z invocations): the coordinates come from the
            // linear index in CUDA's order, x fastest.
            Special::ThreadIndexX | Special::ThreadIndexY | Special::ThreadIndexZ => {
                let dims = self.kernel.block_dims();
                let d = s.dimension().unwrap_or(0);
                if dims[d] == 1 {
                    // A dimension of extent 1: the coordinate is 0 (and uniform, for naga too).
                    self.b.u32(0)
                } else {
                    let t = self.thread_index();
                    self.coordinate(t, d, dims[0], dims[1])
                }
            }
            Special::BlockIndexX | Special::BlockIndexY | Special::BlockIndexZ => {
                let b = self
                    .block_index
                    .expect("the prologue computes the block index");
                let (gx, gy) = self.grid_xy();
                match s.dimension().unwrap_or(0) {
                    0 => self.b.binary(Op::Modulo, b, gx),
                    1 => {
                        let q = self.b.binary(Op::Divide, b, gx);
                        self.b.binary(Op::Modulo, q, gy)
                    }
                    _ => {
                        let plane = self.b.binary(Op::Multiply, gx, gy);
                        self.b.binary(Op::Divide, b, plane)
                    }
                }
            }
            Special::GridSizeX => self.grid_xy().0,
            Special::GridSizeY => self.grid_xy().1,
            Special::GridSizeZ => {
                let (gx, gy) = self.grid_xy();
                let plane = self.b.binary(Op::Multiply, gx, gy);
                let blocks = self.param_member(self.params.grid_member);
                self.b.binary(Op::Divide, blocks, plane)
            }
        }
    }

    /// Bit functions of a `u64` from its 32-bit halves (naga cannot constant-fold the 64-bit forms, and
    /// drivers need not support them).
    fn unary_u64(&mut self, op: UnaryOp, x: H) -> H {
        let lo = self.low_u32(x, false);
        let k = self.b.u32(32);
        let high = self.b.binary(Op::ShiftRight, x, k);
        let hi = self.low_u32(high, false);
        let zero = self.b.u32(0);
        let thirty_two = self.b.u32(32);
        match op {
            UnaryOp::PopCount => {
                let (a, b) = (
                    self.b.math(MathFunction::CountOneBits, lo, None),
                    self.b.math(MathFunction::CountOneBits, hi, None),
                );
                self.b.binary(Op::Add, a, b)
            }
            UnaryOp::CountLeadingZeros => {
                let in_hi = self.b.math(MathFunction::CountLeadingZeros, hi, None);
                let in_lo = self.b.math(MathFunction::CountLeadingZeros, lo, None);
                let below = self.b.binary(Op::Add, thirty_two, in_lo);
                let hi_set = self.b.binary(Op::NotEqual, hi, zero);
                self.b.select(hi_set, in_hi, below)
            }
            UnaryOp::FindFirstSet => {
                let in_lo = self.b.math(MathFunction::FirstTrailingBit, lo, None);
                let in_hi = self.b.math(MathFunction::FirstTrailingBit, hi, None);
                let above = self.b.binary(Op::Add, thirty_two, in_hi);
                let none = self.b.u32(u32::MAX);
                let hi_set = self.b.binary(Op::NotEqual, hi, zero);
                let from_hi = self.b.select(hi_set, above, none);
                let lo_set = self.b.binary(Op::NotEqual, lo, zero);
                self.b.select(lo_set, in_lo, from_hi)
            }
            _ => {
                // Bit reverse: the reversed low half becomes the high half.
                let (rl, rh) = (
                    self.b.math(MathFunction::ReverseBits, lo, None),
                    self.b.math(MathFunction::ReverseBits, hi, None),
                );
                let (rl, rh) = (
                    self.b.cast(rl, Scalar::U64, false),
                    self.b.cast(rh, Scalar::U64, false),
                );
                let up = self.b.binary(Op::ShiftLeft, rl, k);
                self.b.binary(Op::InclusiveOr, up, rh)
            }
        }
    }

    fn unary(&mut self, op: UnaryOp, a: Value, t: ScalarType) -> H {
        let at = self.kernel.values[a].ty;
        let x = self.b.value(a);
        if at == ScalarType::U64 && !matches!(op, UnaryOp::Not | UnaryOp::Neg) {
            return self.unary_u64(op, x);
        }
        match op {
            UnaryOp::Not if t == ScalarType::Bool => self.b.emit(Expression::Unary {
                op: naga::UnaryOperator::LogicalNot,
                expr: x,
            }),
            UnaryOp::Not => {
                let n = self.b.emit(Expression::Unary {
                    op: naga::UnaryOperator::BitwiseNot,
                    expr: x,
                });
                self.normalize(n, t)
            }
            UnaryOp::Neg => self.b.emit(Expression::Unary {
                op: naga::UnaryOperator::Negate,
                expr: x,
            }),
            UnaryOp::PopCount => self.b.math(MathFunction::CountOneBits, x, None),
            UnaryOp::CountLeadingZeros => self.b.math(MathFunction::CountLeadingZeros, x, None),
            UnaryOp::BitReverse => self.b.math(MathFunction::ReverseBits, x, None),
            // firstTrailingBit returns 0xffffffff for zero, as the IR requires.
            UnaryOp::FindFirstSet => self.b.math(MathFunction::FirstTrailingBit, x, None),
            UnaryOp::Abs
            | UnaryOp::Floor
            | UnaryOp::Ceil
            | UnaryOp::FloatTrunc
            | UnaryOp::RoundEven => self.float_math(op, x, t),
            // Bounded, not exact: WGSL's accuracy table inherits it from `1.0 / inverseSqrt(x)`.
            UnaryOp::Sqrt => self.b.math(MathFunction::Sqrt, x, None),
            UnaryOp::IsNan | UnaryOp::IsFinite => self.float_class(op, x),
            // The bounded primitives (WGSL's accuracy table: docs/kernels.md, "Math functions").
            UnaryOp::Recip => {
                let one = self.b.literal(naga::Literal::F32(1.0));
                self.b.binary(Op::Divide, one, x)
            }
            UnaryOp::Rsqrt => self.b.math(MathFunction::InverseSqrt, x, None),
            UnaryOp::Exp2 => self.b.math(MathFunction::Exp2, x, None),
            UnaryOp::Log2 => self.b.math(MathFunction::Log2, x, None),
            UnaryOp::Sin => self.b.math(MathFunction::Sin, x, None),
            UnaryOp::Cos => self.b.math(MathFunction::Cos, x, None),
        }
    }

    fn binary(&mut self, op: BinaryOp, a: Value, b: Value, t: ScalarType) -> H {
        let (x, y) = (self.b.value(a), self.b.value(b));
        match op {
            BinaryOp::CopySign => self.copysign(x, y),
            BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul => {
                let op = match op {
                    BinaryOp::Add => Op::Add,
                    BinaryOp::Sub => Op::Subtract,
                    _ => Op::Multiply,
                };
                let r = self.b.binary(op, x, y);
                self.normalize(r, t)
            }
            BinaryOp::MulHi => self.mul_hi(x, y, t),
            BinaryOp::Div | BinaryOp::Rem if t == ScalarType::F32 => {
                self.b.binary(Op::Divide, x, y)
            }
            BinaryOp::Div | BinaryOp::Rem => {
                let zero = self.b.literal(literal_of(t, 0));
                let one = self.b.literal(literal_of(t, 1));
                let is_zero = self.b.binary(Op::Equal, y, zero);
                let safe = self.b.select(is_zero, one, y);
                let (op, if_zero) = if op == BinaryOp::Div {
                    (Op::Divide, x)
                } else {
                    (Op::Modulo, zero)
                };
                let r = self.b.binary(op, x, safe);
                self.b.select(is_zero, if_zero, r)
            }
            BinaryOp::And if t == ScalarType::Bool => self.b.binary(Op::LogicalAnd, x, y),
            BinaryOp::Or if t == ScalarType::Bool => self.b.binary(Op::LogicalOr, x, y),
            BinaryOp::Xor if t == ScalarType::Bool => self.b.binary(Op::NotEqual, x, y),
            BinaryOp::And => self.b.binary(Op::And, x, y),
            BinaryOp::Or => self.b.binary(Op::InclusiveOr, x, y),
            BinaryOp::Xor => self.b.binary(Op::ExclusiveOr, x, y),
            BinaryOp::Shl | BinaryOp::Shr => {
                let width = self.b.u32(t.bits() - 1);
                let amount = self.b.binary(Op::And, y, width);
                let r = if op == BinaryOp::Shl {
                    self.shift_left(x, amount, t)
                } else {
                    self.b.binary(Op::ShiftRight, x, amount)
                };
                self.normalize(r, t)
            }
            BinaryOp::Min => self.b.math(MathFunction::Min, x, Some(y)),
            BinaryOp::Max => self.b.math(MathFunction::Max, x, Some(y)),
        }
    }

    /// High half of `x * y` from four half-width products (schoolbook), for 32- and 64-bit integers;
    /// signed results are corrected from the unsigned one: `hi_s = hi_u - (x < 0 ? y : 0) - (y < 0 ? x : 0)`.
    fn mul_hi(&mut self, x: H, y: H, t: ScalarType) -> H {
        let signed = t.is_signed();
        let wide = t.bits() == 64;
        let unsigned = if wide { Scalar::U64 } else { Scalar::U32 };
        let (ux, uy) = if signed {
            (
                self.b.cast(x, unsigned, true),
                self.b.cast(y, unsigned, true),
            )
        } else {
            (x, y)
        };
        let half = t.bits() / 2;
        let lit = |l: &mut Self, v: u64| {
            l.b.literal(if wide {
                Literal::U64(v)
            } else {
                Literal::U32(v as u32)
            })
        };
        let mask = lit(self, (1u64 << half) - 1);
        let shift = self.b.u32(half);
        let (xl, xh) = (
            self.b.binary(Op::And, ux, mask),
            self.b.binary(Op::ShiftRight, ux, shift),
        );
        let (yl, yh) = (
            self.b.binary(Op::And, uy, mask),
            self.b.binary(Op::ShiftRight, uy, shift),
        );
        let ll = self.b.binary(Op::Multiply, xl, yl);
        let hl = self.b.binary(Op::Multiply, xh, yl);
        let lh = self.b.binary(Op::Multiply, xl, yh);
        let hh = self.b.binary(Op::Multiply, xh, yh);
        let ll_hi = self.b.binary(Op::ShiftRight, ll, shift);
        let hl_lo = self.b.binary(Op::And, hl, mask);
        let cross = self.b.binary(Op::Add, ll_hi, hl_lo);
        let cross = self.b.binary(Op::Add, cross, lh);
        let hl_hi = self.b.binary(Op::ShiftRight, hl, shift);
        let cross_hi = self.b.binary(Op::ShiftRight, cross, shift);
        let hi = self.b.binary(Op::Add, hh, hl_hi);
        let hi = self.b.binary(Op::Add, hi, cross_hi);
        if !signed {
            return hi;
        }
        let zero_u = lit(self, 0);
        let zero_s = self.b.literal(literal_of(t, 0));
        let x_neg = self.b.binary(Op::Less, x, zero_s);
        let y_neg = self.b.binary(Op::Less, y, zero_s);
        let fix_x = self.b.select(x_neg, uy, zero_u);
        let fix_y = self.b.select(y_neg, ux, zero_u);
        let hi = self.b.binary(Op::Subtract, hi, fix_x);
        let hi = self.b.binary(Op::Subtract, hi, fix_y);
        self.b.cast(hi, scalar_of(t), true)
    }

    fn cast(&mut self, kind: CastKind, a: Value, to: ScalarType) -> H {
        let from = self.kernel.values[a].ty;
        let x = self.b.value(a);
        let target = scalar_of(to);
        match kind {
            CastKind::ZeroExtend if from == ScalarType::Bool => {
                let (one, zero) = (
                    self.b.literal(literal_of(to, 1)),
                    self.b.literal(literal_of(to, 0)),
                );
                self.b.select(x, one, zero)
            }
            CastKind::ZeroExtend => {
                // The source's bits as unsigned (8/16-bit values are already zero-extended in a u32).
                let unsigned = if from.bits() == 64 {
                    Scalar::U64
                } else {
                    Scalar::U32
                };
                let u = if scalar_of(from) == unsigned {
                    x
                } else {
                    self.b.cast(x, unsigned, true)
                };
                if target == unsigned {
                    u
                } else if target.width == unsigned.width {
                    self.b.cast(u, target, true)
                } else if target == Scalar::I64 {
                    // `i64(u32)` must zero-extend, but naga 30 lowers it to SPIR-V `OpSConvert`
                    // (found by the sim-vs-lavapipe differential test: `zext` of 0xffffffff gave -1).
                    // Widen unsigned to unsigned (`OpUConvert`), then reinterpret.
                    let wide = self.b.cast(u, Scalar::U64, false);
                    self.b.cast(wide, Scalar::I64, true)
                } else {
                    self.b.cast(u, target, false)
                }
            }
            CastKind::SignExtend => {
                // Move the sign bit to bit 31, shift back arithmetically, then widen.
                let extended = if from.bits() < 32 {
                    // The value is zero-extended in a u32, so the unsigned shift loses no set bit.
                    let k = self.b.u32(32 - from.bits());
                    let up = self.b.binary(Op::ShiftLeft, x, k);
                    let signed = self.b.cast(up, Scalar::I32, true);
                    self.b.binary(Op::ShiftRight, signed, k)
                } else if scalar_of(from) == Scalar::I32 {
                    x
                } else {
                    self.b.cast(x, Scalar::I32, true)
                };
                let r = match to.bits() {
                    64 => {
                        let wide = self.widen_i32(extended);
                        if to == ScalarType::I64 {
                            wide
                        } else {
                            self.b.cast(wide, Scalar::U64, true)
                        }
                    }
                    _ if target.kind == ScalarKind::Sint => extended,
                    _ => self.b.cast(extended, target, true),
                };
                self.normalize(r, to)
            }
            CastKind::Truncate => {
                let narrowed = if from.bits() == 64 {
                    let low = self.low_u32(x, from == ScalarType::I64);
                    if target == Scalar::U32 {
                        low
                    } else {
                        self.b.cast(low, target, true)
                    }
                } else if scalar_of(from) == target {
                    x
                } else {
                    self.b.cast(x, target, true)
                };
                self.normalize(narrowed, to)
            }
            // f16/bf16 and u16 share the u32 that holds their bits.
            CastKind::Bitcast if scalar_of(from) == target => x,
            CastKind::Bitcast => self.b.cast(x, target, true),
            CastKind::IntToFloat => self.int_to_float(x, from),
            CastKind::FloatToInt => self.float_to_int(x, to),
            CastKind::FloatConvert => self.float_convert(x, from, to),
        }
    }
}
