//! The typing rules of expressions: which operand types each operator accepts and what it yields.
//!
//! Shared by the builder's checks and the verifier. Every function here returns an error message instead
//! of panicking, on dangling handles too.

use crate::expr::{BinaryOp, CastKind, Expr, UnaryOp};
use crate::kernel::{Kernel, ParamKind, Value};
use crate::types::ScalarType;

/// The operands of an expression, in order.
pub fn expr_operands(expr: &Expr) -> Vec<Value> {
    match *expr {
        Expr::Literal(_) | Expr::Param(_) | Expr::Special(_) | Expr::Local(_) => Vec::new(),
        Expr::Unary(_, a) | Expr::Cast(_, a, _) => vec![a],
        Expr::Binary(_, a, b) | Expr::MulWide(a, b) | Expr::Compare(_, a, b) => vec![a, b],
        Expr::MulAdd(a, b, c) | Expr::FunnelShr(a, b, c) => vec![a, b, c],
        Expr::Select {
            cond,
            if_true,
            if_false,
        } => vec![cond, if_true, if_false],
    }
}

fn ty(kernel: &Kernel, value: Value) -> Result<ScalarType, String> {
    kernel
        .value_type(value)
        .ok_or_else(|| format!("value %{} does not exist", value.index()))
}

/// The type `expr` produces, or a message saying what was expected.
pub fn expr_type(kernel: &Kernel, expr: &Expr) -> Result<ScalarType, String> {
    use ScalarType as T;
    match *expr {
        Expr::Literal(lit) => Ok(lit.ty()),
        Expr::Param(p) => match kernel.params.get(p).map(|p| p.kind) {
            Some(ParamKind::Scalar(t)) => Ok(t),
            Some(ParamKind::Buffer { .. }) => Err(format!(
                "parameter `{}` is a buffer; only scalar parameters can be read as values",
                kernel.params[p].name
            )),
            None => Err(format!("parameter #{} does not exist", p.index())),
        },
        Expr::Special(_) => Ok(T::U32),
        Expr::Local(l) => kernel
            .locals
            .get(l)
            .map(|l| l.ty)
            .ok_or_else(|| format!("local #{} does not exist", l.index())),
        Expr::Unary(op, a) => unary_type(op, ty(kernel, a)?),
        Expr::Binary(op, a, b) => binary_type(op, ty(kernel, a)?, ty(kernel, b)?),
        Expr::MulWide(a, b) => match (ty(kernel, a)?, ty(kernel, b)?) {
            (T::U32, T::U32) => Ok(T::U64),
            (T::I32, T::I32) => Ok(T::I64),
            (x, y) => Err(format!(
                "mul_wide expects two u32 or two i32 operands, found {x} and {y}"
            )),
        },
        Expr::Compare(_, a, b) => {
            let (x, y) = (ty(kernel, a)?, ty(kernel, b)?);
            if x != y {
                Err(format!("comparison operands differ in type: {x} and {y}"))
            } else if x == T::Bool {
                Err("comparison of bool values: use xor / not instead".into())
            } else if x.is_half() {
                Err(half_message("comparison", x))
            } else {
                Ok(T::Bool)
            }
        }
        Expr::Select {
            cond,
            if_true,
            if_false,
        } => {
            let c = ty(kernel, cond)?;
            if c != T::Bool {
                return Err(format!("select condition must be bool, found {c}"));
            }
            let (x, y) = (ty(kernel, if_true)?, ty(kernel, if_false)?);
            if x == y {
                Ok(x)
            } else {
                Err(format!("select arms differ in type: {x} and {y}"))
            }
        }
        Expr::Cast(kind, a, to) => cast_type(kind, ty(kernel, a)?, to),
        Expr::FunnelShr(a, b, c) => match (ty(kernel, a)?, ty(kernel, b)?, ty(kernel, c)?) {
            (T::U32, T::U32, T::U32) => Ok(T::U32),
            (x, y, z) => Err(format!(
                "funnel_shr expects three u32 operands, found {x}, {y} and {z}"
            )),
        },
        Expr::MulAdd(a, b, c) => match (ty(kernel, a)?, ty(kernel, b)?, ty(kernel, c)?) {
            (x, y, z) if x == y && y == z && computes_float(x) => Ok(x),
            (x, y, z) => Err(format!(
                "mul_add expects three f32 or three f64 operands, found {x}, {y} and {z}"
            )),
        },
    }
}

/// The float types the IR computes on: `f32` and `f64` (halves are widened by the builder).
fn computes_float(t: ScalarType) -> bool {
    matches!(t, ScalarType::F32 | ScalarType::F64)
}

/// What an operator on a half says: the IR stores and converts halves, and computes in `f32`.
fn half_message(what: &str, t: ScalarType) -> String {
    format!(
        "{what} on {t}: the IR computes on f32 and f64 only; widen with `fconv` to f32, compute, and \
         narrow once (the builder and `#[kernel]` do this for you)"
    )
}

/// Whether `op` takes and yields a float with an exact (correctly rounded) result: the rounding
/// functions, `sqrt` and `recip`, on `f32` and `f64`.
fn exact_float_to_float(op: UnaryOp) -> bool {
    matches!(
        op,
        UnaryOp::Floor
            | UnaryOp::Ceil
            | UnaryOp::FloatTrunc
            | UnaryOp::RoundEven
            | UnaryOp::Sqrt
            | UnaryOp::Recip
    )
}

/// Whether `op` is one of the target's approximate primitives, defined on `f32` only.
fn bounded_float_to_float(op: UnaryOp) -> bool {
    matches!(
        op,
        UnaryOp::Rsqrt | UnaryOp::Exp2 | UnaryOp::Log2 | UnaryOp::Sin | UnaryOp::Cos
    )
}

/// The result type of a unary operator on `t`, or what it expects instead.
pub fn unary_type(op: UnaryOp, t: ScalarType) -> Result<ScalarType, String> {
    use ScalarType as T;
    let bit_op = matches!(t, T::U32 | T::U64);
    if t.is_half() {
        return Err(half_message(op.name(), t));
    }
    match op {
        UnaryOp::Not if t.is_integer() || t == T::Bool => Ok(t),
        UnaryOp::Neg if t.is_signed() || computes_float(t) => Ok(t),
        UnaryOp::PopCount | UnaryOp::CountLeadingZeros | UnaryOp::FindFirstSet if bit_op => {
            Ok(T::U32)
        }
        UnaryOp::BitReverse if bit_op => Ok(t),
        UnaryOp::Abs if t.is_signed() || computes_float(t) => Ok(t),
        UnaryOp::IsNan | UnaryOp::IsFinite if computes_float(t) => Ok(T::Bool),
        _ if exact_float_to_float(op) && computes_float(t) => Ok(t),
        _ if bounded_float_to_float(op) && t == T::F32 => Ok(t),
        _ => {
            let wanted = match op {
                UnaryOp::Not => "an integer or bool",
                UnaryOp::Neg | UnaryOp::Abs => "a signed integer, f32 or f64",
                UnaryOp::IsNan | UnaryOp::IsFinite => "f32 or f64",
                _ if exact_float_to_float(op) => "f32 or f64",
                _ if bounded_float_to_float(op) && t == T::F64 => {
                    "f32 (the targets' approximate instructions are f32 only: convert the f64 to \
                     f32, or compute it from exact operations)"
                }
                _ if bounded_float_to_float(op) => "f32",
                _ => "u32 or u64",
            };
            Err(format!("{} expects {wanted}, found {t}", op.name()))
        }
    }
}

/// The result type of a binary operator on `a` and `b`, or what it expects instead.
pub fn binary_type(op: BinaryOp, a: ScalarType, b: ScalarType) -> Result<ScalarType, String> {
    use ScalarType as T;
    if matches!(op, BinaryOp::Shl | BinaryOp::Shr) {
        return if a.is_integer() && b == T::U32 {
            Ok(a)
        } else {
            Err(format!(
                "{} expects an integer shifted by a u32, found {a} by {b}",
                op.name()
            ))
        };
    }
    if a != b {
        return Err(format!(
            "{} operands differ in type: {a} and {b}",
            op.name()
        ));
    }
    if a.is_half() {
        return Err(half_message(op.name(), a));
    }
    let ok = match op {
        BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Min | BinaryOp::Max => {
            a.is_integer() || computes_float(a)
        }
        BinaryOp::MulHi => matches!(a, T::U32 | T::U64 | T::I32 | T::I64),
        BinaryOp::Div => a.is_unsigned() || computes_float(a),
        BinaryOp::Rem => a.is_unsigned(),
        BinaryOp::And | BinaryOp::Or | BinaryOp::Xor => a.is_integer() || a == T::Bool,
        BinaryOp::CopySign => computes_float(a),
        BinaryOp::Shl | BinaryOp::Shr => unreachable!("handled above"),
    };
    if ok {
        Ok(a)
    } else {
        let wanted = match op {
            BinaryOp::MulHi => "32- or 64-bit integers",
            BinaryOp::Div => "unsigned integers, f32 or f64",
            BinaryOp::Rem => "unsigned integers",
            BinaryOp::And | BinaryOp::Or | BinaryOp::Xor => "integers or bool",
            BinaryOp::CopySign => "f32 or f64",
            _ => "integers, f32 or f64",
        };
        Err(format!("{} expects {wanted}, found {a}", op.name()))
    }
}

/// The result type of a cast from `from` to `to`, or what the cast allows instead.
pub fn cast_type(kind: CastKind, from: ScalarType, to: ScalarType) -> Result<ScalarType, String> {
    use ScalarType as T;
    let ok = match kind {
        CastKind::ZeroExtend => {
            (from.is_integer() || from == T::Bool) && to.is_integer() && from.bits() < to.bits()
        }
        CastKind::SignExtend => from.is_integer() && to.is_integer() && from.bits() < to.bits(),
        CastKind::Truncate => from.is_integer() && to.is_integer() && from.bits() > to.bits(),
        CastKind::Bitcast => {
            from != to && from != T::Bool && to != T::Bool && from.bits() == to.bits()
        }
        CastKind::IntToFloat => from.is_integer() && computes_float(to),
        CastKind::FloatToInt => computes_float(from) && to.is_integer(),
        CastKind::FloatConvert => from.is_float() && to.is_float() && from != to,
    };
    if ok {
        Ok(to)
    } else {
        let rule = match kind {
            CastKind::ZeroExtend => "from an integer or bool to a wider integer",
            CastKind::SignExtend => "from an integer to a wider integer",
            CastKind::Truncate => "from an integer to a narrower integer",
            CastKind::Bitcast => "between different non-bool types of the same width",
            CastKind::IntToFloat => "from an integer to f32 or f64",
            CastKind::FloatToInt => "from f32 or f64 to an integer",
            CastKind::FloatConvert => "between two different float types",
        };
        Err(format!("{} goes {rule}, not {from} to {to}", kind.name()))
    }
}
