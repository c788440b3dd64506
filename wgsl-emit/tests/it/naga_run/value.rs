//! Values of the interpreter and the operations on them, with WGSL's defined results (integer
//! arithmetic wraps, `x / 0 == x`, `x % 0 == 0`, shift counts taken modulo the bit width, float to
//! integer conversions saturate). Anything else is [`Unsupported`]: the interpreter says what it
//! lacks instead of guessing.

use naga::{
    ArraySize, BinaryOperator as Op, Literal, MathFunction as M, Module, Scalar, ScalarKind,
    TypeInner, UnaryOperator,
};

/// Why a run stopped.
#[derive(Debug)]
pub enum Stop {
    /// Something the interpreter does not model (it names it).
    Unsupported(String),
    /// Something WGSL leaves undefined or forbids (an index out of bounds, a shuffle from an
    /// invocation that is not there, invocations meeting at different barriers).
    Fault(String),
}

pub type R<T> = Result<T, Stop>;

pub fn unsupported<T>(what: impl std::fmt::Debug) -> R<T> {
    Err(Stop::Unsupported(format!("{what:?}")))
}

pub fn fault<T>(what: impl Into<String>) -> R<T> {
    Err(Stop::Fault(what.into()))
}

/// A place in memory: a global variable or a local of a call frame, and the indices into it.
#[derive(Clone, Debug, PartialEq)]
pub enum Root {
    Global(usize),
    Local { frame: usize, var: usize },
}

/// A value. Arrays and structs are `Composite`; `Ptr` is a reference (the value of a
/// `GlobalVariable`, `LocalVariable` or `Access` of a pointer).
#[derive(Clone, Debug, PartialEq)]
pub enum Val {
    Bool(bool),
    U32(u32),
    I32(i32),
    U64(u64),
    I64(i64),
    F32(f32),
    Vector(Vec<Val>),
    Composite(Vec<Val>),
    Ptr(Root, Vec<usize>),
}

impl Val {
    pub fn u32(&self) -> R<u32> {
        match *self {
            Val::U32(x) => Ok(x),
            Val::I32(x) => Ok(x as u32),
            ref v => unsupported(("not a 32-bit integer", v)),
        }
    }

    pub fn bool(&self) -> R<bool> {
        match *self {
            Val::Bool(b) => Ok(b),
            ref v => unsupported(("not a bool", v)),
        }
    }

    /// An index (`Access`): any integer.
    pub fn index(&self) -> R<usize> {
        match *self {
            Val::U32(x) => Ok(x as usize),
            Val::I32(x) => Ok(x as usize),
            Val::U64(x) => Ok(x as usize),
            Val::I64(x) => Ok(x as usize),
            ref v => unsupported(("not an index", v)),
        }
    }

    /// Element `i` of a vector or composite.
    pub fn element(&self, i: usize) -> R<Val> {
        match self {
            Val::Vector(v) | Val::Composite(v) => v
                .get(i)
                .cloned()
                .ok_or_else(|| Stop::Fault(format!("index {i} out of bounds ({})", v.len()))),
            v => unsupported(("not indexable", v)),
        }
    }

    pub fn element_mut(&mut self, i: usize) -> R<&mut Val> {
        match self {
            Val::Vector(v) | Val::Composite(v) => {
                let len = v.len();
                v.get_mut(i)
                    .ok_or_else(|| Stop::Fault(format!("index {i} out of bounds ({len})")))
            }
            v => unsupported(("not indexable", v)),
        }
    }
}

pub fn literal(l: &Literal) -> R<Val> {
    Ok(match *l {
        Literal::Bool(b) => Val::Bool(b),
        Literal::U32(x) => Val::U32(x),
        Literal::I32(x) => Val::I32(x),
        Literal::U64(x) => Val::U64(x),
        Literal::I64(x) => Val::I64(x),
        Literal::F32(x) => Val::F32(x),
        ref other => return unsupported(other),
    })
}

fn scalar_zero(s: Scalar) -> R<Val> {
    Ok(match (s.kind, s.width) {
        (ScalarKind::Bool, _) => Val::Bool(false),
        (ScalarKind::Uint, 4) => Val::U32(0),
        (ScalarKind::Sint, 4) => Val::I32(0),
        (ScalarKind::Uint, 8) => Val::U64(0),
        (ScalarKind::Sint, 8) => Val::I64(0),
        (ScalarKind::Float, 4) => Val::F32(0.0),
        _ => return unsupported(s),
    })
}

/// The zero value of a type; a runtime-sized array gets `len` elements.
pub fn zero(module: &Module, ty: naga::Handle<naga::Type>, len: usize) -> R<Val> {
    Ok(match module.types[ty].inner {
        TypeInner::Scalar(s) | TypeInner::Atomic(s) => scalar_zero(s)?,
        TypeInner::Vector { size, scalar } => {
            Val::Vector(vec![scalar_zero(scalar)?; size as usize])
        }
        TypeInner::Array { base, size, .. } => {
            let n = match size {
                ArraySize::Constant(n) => n.get() as usize,
                ArraySize::Dynamic => len,
                ArraySize::Pending(_) => return unsupported("override-sized array"),
            };
            Val::Composite(vec![zero(module, base, 0)?; n])
        }
        TypeInner::Struct { ref members, .. } => Val::Composite(
            members
                .iter()
                .map(|m| zero(module, m.ty, len))
                .collect::<R<_>>()?,
        ),
        ref other => return unsupported(other),
    })
}

fn scalar_from_bytes(s: Scalar, b: &[u8]) -> R<Val> {
    let w4 = || u32::from_le_bytes(b[..4].try_into().unwrap());
    let w8 = || u64::from_le_bytes(b[..8].try_into().unwrap());
    Ok(match (s.kind, s.width) {
        (ScalarKind::Uint, 4) => Val::U32(w4()),
        (ScalarKind::Sint, 4) => Val::I32(w4() as i32),
        (ScalarKind::Float, 4) => Val::F32(f32::from_bits(w4())),
        (ScalarKind::Uint, 8) => Val::U64(w8()),
        (ScalarKind::Sint, 8) => Val::I64(w8() as i64),
        _ => return unsupported(("buffer element", s)),
    })
}

/// A value of type `ty` from its host-shareable bytes (storage and uniform buffers).
pub fn from_bytes(module: &Module, ty: naga::Handle<naga::Type>, bytes: &[u8]) -> R<Val> {
    Ok(match module.types[ty].inner {
        TypeInner::Scalar(s) | TypeInner::Atomic(s) => scalar_from_bytes(s, bytes)?,
        TypeInner::Vector { size, scalar } => Val::Vector(
            (0..size as usize)
                .map(|i| scalar_from_bytes(scalar, &bytes[i * scalar.width as usize..]))
                .collect::<R<_>>()?,
        ),
        TypeInner::Array { base, size, stride } => {
            let n = match size {
                ArraySize::Constant(n) => n.get() as usize,
                _ => bytes.len() / stride as usize,
            };
            Val::Composite(
                (0..n)
                    .map(|i| from_bytes(module, base, &bytes[i * stride as usize..]))
                    .collect::<R<_>>()?,
            )
        }
        TypeInner::Struct { ref members, .. } => Val::Composite(
            members
                .iter()
                .map(|m| from_bytes(module, m.ty, &bytes[m.offset as usize..]))
                .collect::<R<_>>()?,
        ),
        ref other => return unsupported(other),
    })
}

/// The bytes of a storage buffer's value (an array of scalars or of vectors of them).
pub fn to_bytes(v: &Val, out: &mut Vec<u8>) -> R<()> {
    match *v {
        Val::U32(x) => out.extend(x.to_le_bytes()),
        Val::I32(x) => out.extend(x.to_le_bytes()),
        Val::F32(x) => out.extend(x.to_bits().to_le_bytes()),
        Val::U64(x) => out.extend(x.to_le_bytes()),
        Val::I64(x) => out.extend(x.to_le_bytes()),
        Val::Vector(ref v) | Val::Composite(ref v) => {
            for x in v {
                to_bytes(x, out)?;
            }
        }
        ref other => return unsupported(("not host-shareable", other)),
    }
    Ok(())
}

/// Applies `f` to scalars, component-wise to vectors (a scalar operand is splatted).
fn zip(a: &Val, b: &Val, f: &impl Fn(&Val, &Val) -> R<Val>) -> R<Val> {
    match (a, b) {
        (Val::Vector(x), Val::Vector(y)) => Ok(Val::Vector(
            x.iter().zip(y).map(|(x, y)| f(x, y)).collect::<R<_>>()?,
        )),
        (Val::Vector(x), y) => Ok(Val::Vector(x.iter().map(|x| f(x, y)).collect::<R<_>>()?)),
        (x, Val::Vector(y)) => Ok(Val::Vector(y.iter().map(|y| f(x, y)).collect::<R<_>>()?)),
        (x, y) => f(x, y),
    }
}

fn map(a: &Val, f: &impl Fn(&Val) -> R<Val>) -> R<Val> {
    match a {
        Val::Vector(x) => Ok(Val::Vector(x.iter().map(f).collect::<R<_>>()?)),
        x => f(x),
    }
}

macro_rules! int_binary {
    ($op:expr, $x:expr, $y:expr, $V:path, $bits:expr) => {{
        let (x, y) = ($x, $y);
        Ok(match $op {
            Op::Add => $V(x.wrapping_add(y)),
            Op::Subtract => $V(x.wrapping_sub(y)),
            Op::Multiply => $V(x.wrapping_mul(y)),
            Op::Divide => $V(if y == 0 { x } else { x.wrapping_div(y) }),
            Op::Modulo => $V(if y == 0 { 0 } else { x.wrapping_rem(y) }),
            Op::And => $V(x & y),
            Op::InclusiveOr => $V(x | y),
            Op::ExclusiveOr => $V(x ^ y),
            Op::ShiftLeft => $V(x.wrapping_shl((y as u32) % $bits)),
            Op::ShiftRight => $V(x.wrapping_shr((y as u32) % $bits)),
            Op::Equal => Val::Bool(x == y),
            Op::NotEqual => Val::Bool(x != y),
            Op::Less => Val::Bool(x < y),
            Op::LessEqual => Val::Bool(x <= y),
            Op::Greater => Val::Bool(x > y),
            Op::GreaterEqual => Val::Bool(x >= y),
            other => return unsupported(other),
        })
    }};
}

pub fn binary(op: Op, a: &Val, b: &Val) -> R<Val> {
    zip(a, b, &|a, b| match (a, b) {
        // Shift counts are u32 whatever the shifted type.
        (&Val::U32(x), &Val::U32(y)) => int_binary!(op, x, y, Val::U32, 32),
        (&Val::I32(x), &Val::I32(y)) => int_binary!(op, x, y, Val::I32, 32),
        (&Val::I32(x), &Val::U32(y)) => int_binary!(op, x, y as i32, Val::I32, 32),
        (&Val::U64(x), &Val::U64(y)) => int_binary!(op, x, y, Val::U64, 64),
        (&Val::U64(x), &Val::U32(y)) => int_binary!(op, x, u64::from(y), Val::U64, 64),
        (&Val::I64(x), &Val::I64(y)) => int_binary!(op, x, y, Val::I64, 64),
        (&Val::I64(x), &Val::U32(y)) => int_binary!(op, x, i64::from(y), Val::I64, 64),
        (&Val::F32(x), &Val::F32(y)) => Ok(match op {
            Op::Add => Val::F32(x + y),
            Op::Subtract => Val::F32(x - y),
            Op::Multiply => Val::F32(x * y),
            Op::Divide => Val::F32(x / y),
            Op::Modulo => Val::F32(x % y),
            Op::Equal => Val::Bool(x == y),
            Op::NotEqual => Val::Bool(x != y),
            Op::Less => Val::Bool(x < y),
            Op::LessEqual => Val::Bool(x <= y),
            Op::Greater => Val::Bool(x > y),
            Op::GreaterEqual => Val::Bool(x >= y),
            other => return unsupported(other),
        }),
        (&Val::Bool(x), &Val::Bool(y)) => Ok(Val::Bool(match op {
            Op::LogicalAnd | Op::And => x && y,
            Op::LogicalOr | Op::InclusiveOr => x || y,
            Op::Equal => x == y,
            Op::NotEqual | Op::ExclusiveOr => x != y,
            other => return unsupported(other),
        })),
        (a, b) => unsupported((op, a, b)),
    })
}

pub fn unary(op: UnaryOperator, a: &Val) -> R<Val> {
    map(a, &|a| {
        Ok(match (op, a) {
            (UnaryOperator::Negate, &Val::I32(x)) => Val::I32(x.wrapping_neg()),
            (UnaryOperator::Negate, &Val::I64(x)) => Val::I64(x.wrapping_neg()),
            (UnaryOperator::Negate, &Val::F32(x)) => Val::F32(-x),
            (UnaryOperator::LogicalNot, &Val::Bool(b)) => Val::Bool(!b),
            (UnaryOperator::BitwiseNot, &Val::U32(x)) => Val::U32(!x),
            (UnaryOperator::BitwiseNot, &Val::I32(x)) => Val::I32(!x),
            (UnaryOperator::BitwiseNot, &Val::U64(x)) => Val::U64(!x),
            (UnaryOperator::BitwiseNot, &Val::I64(x)) => Val::I64(!x),
            (op, a) => return unsupported((op, a)),
        })
    })
}

/// `As`: a value conversion (`convert` is `Some`) or a bitcast.
pub fn cast(a: &Val, kind: ScalarKind, convert: Option<u8>) -> R<Val> {
    map(a, &|a| {
        let width = convert.unwrap_or(match a {
            Val::U64(_) | Val::I64(_) => 8,
            _ => 4,
        });
        if convert.is_none() {
            let bits = match *a {
                Val::U32(x) => u64::from(x),
                Val::I32(x) => u64::from(x as u32),
                Val::F32(x) => u64::from(x.to_bits()),
                Val::U64(x) => x,
                Val::I64(x) => x as u64,
                ref other => return unsupported(("bitcast", other)),
            };
            return Ok(match (kind, width) {
                (ScalarKind::Uint, 4) => Val::U32(bits as u32),
                (ScalarKind::Sint, 4) => Val::I32(bits as u32 as i32),
                (ScalarKind::Float, 4) => Val::F32(f32::from_bits(bits as u32)),
                (ScalarKind::Uint, 8) => Val::U64(bits),
                (ScalarKind::Sint, 8) => Val::I64(bits as i64),
                other => return unsupported(("bitcast to", other)),
            });
        }
        // Through i128/f64, which hold every source value exactly; float sources saturate.
        let (int, float): (Option<i128>, Option<f64>) = match *a {
            Val::Bool(b) => (Some(i128::from(b)), None),
            Val::U32(x) => (Some(x.into()), None),
            Val::I32(x) => (Some(x.into()), None),
            Val::U64(x) => (Some(x.into()), None),
            Val::I64(x) => (Some(x.into()), None),
            Val::F32(x) => (None, Some(x.into())),
            ref other => return unsupported(("convert", other)),
        };
        Ok(match (kind, width, int, float) {
            (ScalarKind::Bool, _, Some(i), _) => Val::Bool(i != 0),
            (ScalarKind::Bool, _, _, Some(f)) => Val::Bool(f != 0.0),
            (ScalarKind::Uint, 4, Some(i), _) => Val::U32(i as u32),
            (ScalarKind::Sint, 4, Some(i), _) => Val::I32(i as i32),
            (ScalarKind::Uint, 8, Some(i), _) => Val::U64(i as u64),
            (ScalarKind::Sint, 8, Some(i), _) => Val::I64(i as i64),
            (ScalarKind::Float, 4, Some(i), _) => Val::F32(i as f32),
            (ScalarKind::Uint, 4, _, Some(f)) => Val::U32(f as u32),
            (ScalarKind::Sint, 4, _, Some(f)) => Val::I32(f as i32),
            (ScalarKind::Uint, 8, _, Some(f)) => Val::U64(f as u64),
            (ScalarKind::Sint, 8, _, Some(f)) => Val::I64(f as i64),
            (ScalarKind::Float, 4, _, Some(f)) => Val::F32(f as f32),
            other => return unsupported(("convert to", other.0, other.1)),
        })
    })
}

/// The integer math functions (and `min`/`max`/`clamp`/`abs` of any scalar).
pub fn math(fun: M, args: &[Val]) -> R<Val> {
    fn bits(v: &Val) -> R<(u64, u32, bool)> {
        Ok(match *v {
            Val::U32(x) => (u64::from(x), 32, false),
            Val::I32(x) => (u64::from(x as u32), 32, true),
            Val::U64(x) => (x, 64, false),
            Val::I64(x) => (x as u64, 64, true),
            ref other => return unsupported(("bit function of", other)),
        })
    }
    fn back(template: &Val, x: u64) -> Val {
        match template {
            Val::U32(_) => Val::U32(x as u32),
            Val::I32(_) => Val::I32(x as u32 as i32),
            Val::U64(_) => Val::U64(x),
            _ => Val::I64(x as i64),
        }
    }
    let lt = |a: &Val, b: &Val| binary(Op::Less, a, b).and_then(|v| v.bool());
    let a = &args[0];
    Ok(match fun {
        M::Min => {
            if lt(&args[1], a)? {
                args[1].clone()
            } else {
                a.clone()
            }
        }
        M::Max => {
            if lt(a, &args[1])? {
                args[1].clone()
            } else {
                a.clone()
            }
        }
        M::Clamp => math(
            M::Min,
            &[
                math(M::Max, &[a.clone(), args[1].clone()])?,
                args[2].clone(),
            ],
        )?,
        M::Abs => match *a {
            Val::I32(x) => Val::I32(x.wrapping_abs()),
            Val::I64(x) => Val::I64(x.wrapping_abs()),
            Val::F32(x) => Val::F32(x.abs()),
            _ => a.clone(),
        },
        M::CountOneBits => {
            let (x, _, _) = bits(a)?;
            back(a, u64::from(x.count_ones()))
        }
        M::ReverseBits => {
            let (x, w, _) = bits(a)?;
            back(a, x.reverse_bits() >> (64 - w))
        }
        M::CountLeadingZeros => {
            let (x, w, _) = bits(a)?;
            back(a, u64::from(x.leading_zeros() - (64 - w)))
        }
        M::CountTrailingZeros => {
            let (x, w, _) = bits(a)?;
            back(a, u64::from(x.trailing_zeros().min(w)))
        }
        M::FirstTrailingBit => {
            let (x, w, _) = bits(a)?;
            back(
                a,
                if x == 0 {
                    u64::MAX
                } else {
                    x.trailing_zeros().into()
                } & mask(w),
            )
        }
        M::FirstLeadingBit => {
            let (x, w, signed) = bits(a)?;
            let neg = signed && (x >> (w - 1)) & 1 == 1;
            let y = if neg { !x & mask(w) } else { x };
            back(
                a,
                if y == 0 {
                    u64::MAX
                } else {
                    u64::from(63 - y.leading_zeros())
                } & mask(w),
            )
        }
        other => return unsupported(other),
    })
}

fn mask(w: u32) -> u64 {
    if w == 64 {
        u64::MAX
    } else {
        (1 << w) - 1
    }
}
