//! Decoding the [`FloatX`] instructions: arithmetic, `setp`, `set` and `cvt` on the half-precision
//! types `.f16`, `.bf16`, `.f16x2`, `.bf16x2` (PTX ISA 9.7.4, 9.7.7, 9.7.9.22), `set` on every
//! type, `testp` and `copysign`. Each modifier is accepted only where the ISA's syntax lines give
//! it (`.ftz` and `.sat` on `.f16` forms only, `.relu` on `fma` and on conversions to a half, the
//! one rounding `.rn` on half arithmetic); anything else is refused by name. Half operands are
//! registers or integer bit patterns (`0x3c00`): a float literal's meaning for a half is not
//! defined by the ISA, so it is refused.

use warpforge_ptx::isa::Modifier as M;
use warpforge_ptx::isa::Opcode as O;
use warpforge_ptx::parse::{DataType, Instruction, Operand, OperandKind};

use super::decode::{int_type, operands, Decoder, Imm, Mods};
use super::decode_operands::reg_operand;
use super::inst::{BoolOp, Cmp, Op, Rnd, R};
use super::inst_half::{CmpSrc, CvtMods, CvtTy, FloatX, HArith, HFmt, HMods, SetDst, TestClass};

/// The half format of a PTX type, and whether it is a packed pair.
pub(crate) fn half_type(t: DataType) -> Option<(HFmt, bool)> {
    match t {
        DataType::F16 => Some((HFmt::F16, false)),
        DataType::F16x2 => Some((HFmt::F16, true)),
        DataType::Bf16 => Some((HFmt::Bf16, false)),
        DataType::Bf16x2 => Some((HFmt::Bf16, true)),
        _ => None,
    }
}

/// Whether `inst` is decoded here.
pub(crate) fn is_float_x(inst: &Instruction) -> bool {
    let half = inst
        .modifiers
        .iter()
        .any(|m| m.data_type().is_some_and(|t| half_type(t).is_some()));
    match inst.opcode {
        O::Set | O::Testp | O::Copysign => true,
        O::Add
        | O::Sub
        | O::Mul
        | O::Fma
        | O::Neg
        | O::Abs
        | O::Min
        | O::Max
        | O::Setp
        | O::Cvt
        | O::Ex2
        | O::Tanh => half,
        _ => false,
    }
}

fn comparison(mods: &mut Mods) -> Result<Cmp, String> {
    Ok(
        match mods.one_of(&[
            M::Eq,
            M::Ne,
            M::Lt,
            M::Le,
            M::Gt,
            M::Ge,
            M::Equ,
            M::Neu,
            M::Ltu,
            M::Leu,
            M::Gtu,
            M::Geu,
            M::Num,
            M::Nan,
        ]) {
            Some(M::Eq) => Cmp::Eq,
            Some(M::Ne) => Cmp::Ne,
            Some(M::Lt) => Cmp::Lt,
            Some(M::Le) => Cmp::Le,
            Some(M::Gt) => Cmp::Gt,
            Some(M::Ge) => Cmp::Ge,
            Some(M::Equ) => Cmp::Equ,
            Some(M::Neu) => Cmp::Neu,
            Some(M::Ltu) => Cmp::Ltu,
            Some(M::Leu) => Cmp::Leu,
            Some(M::Gtu) => Cmp::Gtu,
            Some(M::Geu) => Cmp::Geu,
            Some(M::Num) => Cmp::Num,
            Some(_) => Cmp::Nan,
            None => return Err("no comparison operator (or one not defined for floats)".into()),
        },
    )
}

fn bool_op(mods: &mut Mods) -> Option<BoolOp> {
    match mods.one_of(&[M::And, M::Or, M::Xor]) {
        Some(M::And) => Some(BoolOp::And),
        Some(M::Or) => Some(BoolOp::Or),
        Some(_) => Some(BoolOp::Xor),
        None => None,
    }
}

impl Decoder<'_> {
    /// The instructions of [`is_float_x`].
    pub(crate) fn float_x(&mut self, inst: &Instruction, mods: &mut Mods) -> Result<Op, String> {
        let x = match inst.opcode {
            O::Setp => self.half_setp(inst, mods)?,
            O::Set => self.set(inst, mods)?,
            O::Cvt => self.half_cvt(inst, mods)?,
            O::Testp => {
                let class = match mods.one_of(&[
                    M::Finite,
                    M::Infinite,
                    M::Number,
                    M::Notanumber,
                    M::Normal,
                    M::Subnormal,
                ]) {
                    Some(M::Finite) => TestClass::Finite,
                    Some(M::Infinite) => TestClass::Infinite,
                    Some(M::Number) => TestClass::Number,
                    Some(M::Notanumber) => TestClass::NotANumber,
                    Some(M::Normal) => TestClass::Normal,
                    Some(_) => TestClass::Subnormal,
                    None => return Err("no class (`.finite`, `.infinite`, `.number`, `.notanumber`, `.normal`, `.subnormal`)".into()),
                };
                let f64 = self.f32_or_f64(mods)?;
                let [d, a] = operands::<2>(inst)?;
                let imm = if f64 { Imm::F64 } else { Imm::F32 };
                FloatX::Testp {
                    class,
                    f64,
                    d: self.dst(d, 1)?,
                    a: self.src(a, imm)?,
                }
            }
            O::Copysign => {
                let f64 = self.f32_or_f64(mods)?;
                let [d, a, b] = operands::<3>(inst)?;
                let (imm, bits) = if f64 { (Imm::F64, 64) } else { (Imm::F32, 32) };
                FloatX::Copysign {
                    f64,
                    d: self.dst(d, bits)?,
                    a: self.src(a, imm)?,
                    b: self.src(b, imm)?,
                }
            }
            _ => self.half_arith(inst, mods)?,
        };
        Ok(Op::FloatX(x))
    }

    fn f32_or_f64(&mut self, mods: &mut Mods) -> Result<bool, String> {
        match mods.types().as_slice() {
            [DataType::F32] => Ok(false),
            [DataType::F64] => Ok(true),
            _ => Err("the type must be `.f32` or `.f64`".into()),
        }
    }

    /// A half operand: a register, or an integer immediate holding the bits.
    fn half_src(&mut self, op: &Operand) -> Result<R, String> {
        if matches!(op.kind, OperandKind::Float(_)) {
            return Err(format!(
                "a float literal `{op}` as a half operand (give the bits as an integer, e.g. 0x3c00)"
            ));
        }
        self.src(op, Imm::Int)
    }

    fn half_arith(&mut self, inst: &Instruction, mods: &mut Mods) -> Result<FloatX, String> {
        let name = &inst.opcode;
        let op = match name {
            O::Add => HArith::Add,
            O::Sub => HArith::Sub,
            O::Mul => HArith::Mul,
            O::Fma => HArith::Fma,
            O::Min => HArith::Min,
            O::Max => HArith::Max,
            O::Neg => HArith::Neg,
            O::Abs => HArith::Abs,
            O::Ex2 => HArith::Ex2,
            _ => HArith::Tanh,
        };
        let (fmt, packed) = match mods.types().as_slice() {
            [t] => half_type(*t).ok_or("one half-precision type expected")?,
            _ => return Err("one type modifier expected".into()),
        };
        let bf16 = fmt == HFmt::Bf16;
        let rn = mods.take(M::Rn);
        if let Some(r) = mods.one_of(&[M::Rz, M::Rm, M::Rp]) {
            return Err(format!(
                "`.{r}`: half-precision arithmetic rounds with `.rn` only"
            ));
        }
        let mut m = HMods {
            ftz: mods.take(M::Ftz),
            sat: mods.take(M::Sat),
            relu: mods.take(M::Relu),
            ..HMods::default()
        };
        if mods.take(M::Oob) {
            return Err("`.oob` (the tensor out-of-bounds NaN) is not supported".into());
        }
        match op {
            HArith::Min | HArith::Max => {
                m.nan = mods.take(M::NaN);
                let (xor, abs) = (mods.take(M::Xorsign), mods.take(M::Abs));
                if xor != abs {
                    return Err("`.xorsign` and `.abs` go together".into());
                }
                m.xorsign_abs = xor;
            }
            HArith::Ex2 | HArith::Tanh => {
                if !mods.take(M::Approx) {
                    return Err(format!("`{name}` on halves needs `.approx`"));
                }
                // ex2.approx.ftz.{bf16,bf16x2} has `.ftz` mandatory; the f16 and tanh forms none.
                if op == HArith::Ex2 && bf16 && !m.ftz {
                    return Err("`ex2.approx.bf16` is written `ex2.approx.ftz.bf16`".into());
                }
                if m.ftz && !(op == HArith::Ex2 && bf16) {
                    return Err(format!(
                        "`.ftz` on `{name}.approx.{}`",
                        type_name(fmt, packed)
                    ));
                }
            }
            _ => {}
        }
        let rounds = matches!(op, HArith::Add | HArith::Sub | HArith::Mul | HArith::Fma);
        if rn && !rounds {
            return Err(format!("`.rn` on `{name}`"));
        }
        if op == HArith::Fma && !rn {
            return Err("`fma` on halves needs `.rn`".into());
        }
        let ftz_ok = !bf16 || matches!(op, HArith::Ex2);
        if m.ftz && !ftz_ok {
            return Err(format!(
                "`.ftz` on `.{}` (f16 only)",
                type_name(fmt, packed)
            ));
        }
        if m.sat && (bf16 || !matches!(op, HArith::Add | HArith::Sub | HArith::Mul | HArith::Fma)) {
            return Err(format!("`.sat` on `{name}.{}`", type_name(fmt, packed)));
        }
        if m.relu && (op != HArith::Fma || m.sat) {
            return Err("`.relu` is an `fma` modifier, without `.sat`".into());
        }
        let bits = if packed { 32 } else { 16 };
        let unary = matches!(op, HArith::Neg | HArith::Abs | HArith::Ex2 | HArith::Tanh);
        let (d, a, b, c) = match (op, inst.operands.as_slice()) {
            (HArith::Fma, [d, a, b, c]) => (d, a, b, c),
            (_, [d, a, b]) if op != HArith::Fma && !unary => (d, a, b, b),
            (_, [d, a]) if unary => (d, a, a, a),
            (_, ops) => return Err(format!("wrong operand count ({})", ops.len())),
        };
        Ok(FloatX::Arith {
            op,
            fmt,
            packed,
            mods: m,
            d: self.dst(d, bits)?,
            a: self.half_src(a)?,
            b: self.half_src(b)?,
            c: self.half_src(c)?,
        })
    }

    fn half_setp(&mut self, inst: &Instruction, mods: &mut Mods) -> Result<FloatX, String> {
        let cmp = comparison(mods)?;
        let boolop = bool_op(mods);
        let ftz = mods.take(M::Ftz);
        let (fmt, packed) = match mods.types().as_slice() {
            [t] => half_type(*t).ok_or("one half-precision type expected")?,
            _ => return Err("one type modifier expected".into()),
        };
        if ftz && fmt == HFmt::Bf16 {
            return Err("`.ftz` on `setp.bf16` (f16 only)".into());
        }
        let (dest, a, b, c) = match (inst.operands.as_slice(), boolop) {
            ([d, a, b], None) => (d, a, b, None),
            ([d, a, b, c], Some(_)) => (d, a, b, Some(c)),
            _ => return Err("expected `p[|q], a, b` (and `, c` with `.and`/`.or`/`.xor`)".into()),
        };
        let (p, q) = match &dest.kind {
            OperandKind::PredPair(p, q) => (
                Some(self.dst(&reg_operand(dest, p), 1)?),
                Some(self.dst(&reg_operand(dest, q), 1)?),
            ),
            OperandKind::Sink => (None, None),
            _ => (Some(self.dst(dest, 1)?), None),
        };
        let combine = match (boolop, c) {
            (Some(op), Some(c)) => {
                let (r, negated) = self.pred(c)?;
                Some((op, r, negated))
            }
            _ => None,
        };
        Ok(FloatX::Setp {
            cmp,
            fmt,
            packed,
            ftz,
            p,
            q,
            a: self.half_src(a)?,
            b: self.half_src(b)?,
            combine,
        })
    }

    /// `set.CmpOp{.BoolOp}{.ftz}.dtype.stype d, a, b{, {!}c}`.
    fn set(&mut self, inst: &Instruction, mods: &mut Mods) -> Result<FloatX, String> {
        let cmp = comparison(mods)?;
        let boolop = bool_op(mods);
        let ftz = mods.take(M::Ftz);
        let [dt, st] = match mods.types().as_slice() {
            [d, s] => [*d, *s],
            _ => return Err("expected a destination and a source type".into()),
        };
        let (src, imm) = match st {
            DataType::F32 => (CmpSrc::F32, Imm::F32),
            DataType::F64 => (CmpSrc::F64, Imm::F64),
            t => match half_type(t) {
                Some((fmt, packed)) => (CmpSrc::Half { fmt, packed }, Imm::Int),
                None => (
                    CmpSrc::Int(int_type(t).ok_or("unsupported source type")?),
                    Imm::Int,
                ),
            },
        };
        let packed = matches!(src, CmpSrc::Half { packed: true, .. });
        let dst = match (dt, packed) {
            (DataType::U16 | DataType::S16, false) => SetDst::Ones(16),
            (DataType::U32 | DataType::S32, _) => SetDst::Ones(32),
            (DataType::F32, false) => SetDst::F32,
            (DataType::F16, false) => SetDst::Half(HFmt::F16),
            (DataType::Bf16, false) => SetDst::Half(HFmt::Bf16),
            (DataType::F16x2, true) if st == DataType::F16x2 => SetDst::Half(HFmt::F16),
            (DataType::Bf16x2, true) if st == DataType::Bf16x2 => SetDst::Half(HFmt::Bf16),
            _ => {
                return Err(format!(
                    "`set.{}.{}` is not a form of the ISA",
                    dt.name(),
                    st.name()
                ))
            }
        };
        let ftz_ok = matches!(st, DataType::F32 | DataType::F16 | DataType::F16x2);
        if ftz && !ftz_ok {
            return Err(format!("`.ftz` on a `.{}` source", st.name()));
        }
        if matches!(src, CmpSrc::Int(_))
            && !matches!(
                cmp,
                Cmp::Eq | Cmp::Ne | Cmp::Lt | Cmp::Le | Cmp::Gt | Cmp::Ge
            )
        {
            return Err("an unordered comparison on integers".into());
        }
        let (d, a, b, c) = match (inst.operands.as_slice(), boolop) {
            ([d, a, b], None) => (d, a, b, None),
            ([d, a, b, c], Some(_)) => (d, a, b, Some(c)),
            _ => return Err("expected `d, a, b` (and `, c` with `.and`/`.or`/`.xor`)".into()),
        };
        let combine = match (boolop, c) {
            (Some(op), Some(c)) => {
                let (r, negated) = self.pred(c)?;
                Some((op, r, negated))
            }
            _ => None,
        };
        let bits = match dst {
            SetDst::Ones(16) | SetDst::Half(_) if !packed => 16,
            _ => 32,
        };
        let (a, b) = if imm == Imm::Int && matches!(src, CmpSrc::Half { .. }) {
            (self.half_src(a)?, self.half_src(b)?)
        } else {
            (self.src(a, imm)?, self.src(b, imm)?)
        };
        Ok(FloatX::Set {
            cmp,
            src,
            dst,
            ftz,
            d: self.dst(d, bits)?,
            a,
            b,
            combine,
        })
    }

    /// `cvt` with a half on either side.
    fn half_cvt(&mut self, inst: &Instruction, mods: &mut Mods) -> Result<FloatX, String> {
        let (rnd, integral) =
            match mods.one_of(&[M::Rn, M::Rz, M::Rm, M::Rp, M::Rni, M::Rzi, M::Rmi, M::Rpi]) {
                None => (Rnd::None, false),
                Some(r) => (
                    match r {
                        M::Rn | M::Rni => Rnd::Nearest,
                        M::Rz | M::Rzi => Rnd::Zero,
                        M::Rm | M::Rmi => Rnd::Down,
                        _ => Rnd::Up,
                    },
                    matches!(r, M::Rni | M::Rzi | M::Rmi | M::Rpi),
                ),
            };
        let m = CvtMods {
            ftz: mods.take(M::Ftz),
            sat: mods.take(M::Sat),
            relu: mods.take(M::Relu),
            satfinite: mods.take(M::Satfinite),
            integral,
        };
        if let Some(r) = mods.one_of(&[M::Rna, M::Rs]) {
            return Err(format!(
                "the rounding `.{r}` on a half conversion is not supported"
            ));
        }
        let [to, from] = match mods.types().as_slice() {
            [to, from] => [*to, *from],
            _ => return Err("expected a destination and a source type".into()),
        };
        let ty = |t: DataType| -> Result<(CvtTy, bool), String> {
            Ok(match t {
                DataType::F32 => (CvtTy::F32, false),
                DataType::F64 => (CvtTy::F64, false),
                t => match half_type(t) {
                    Some((f, packed)) => (CvtTy::Half(f), packed),
                    None => (
                        CvtTy::Int(int_type(t).ok_or_else(|| {
                            format!("conversions with `.{}` are not supported", t.name())
                        })?),
                        false,
                    ),
                },
            })
        };
        let ((to_ty, to_packed), (from_ty, from_packed)) = (ty(to)?, ty(from)?);
        if from_packed {
            return Err(format!(
                "conversions from `.{}` are not supported",
                from.name()
            ));
        }
        let float_rnd = rnd != Rnd::None && !integral;
        let form = |what: &str| Err(format!("`cvt.{}.{}`: {what}", to.name(), from.name()));
        let to_half = matches!(to_ty, CvtTy::Half(_));
        if (m.relu || m.satfinite) && !(to_half && from_ty == CvtTy::F32) {
            return form("`.relu` and `.satfinite` are for `.f32` to a half");
        }
        if (m.relu || m.satfinite) && !matches!(rnd, Rnd::Nearest | Rnd::Zero) {
            return form("`.relu`/`.satfinite` take `.rn` or `.rz`");
        }
        if m.ftz && to_ty != CvtTy::F32 && from_ty != CvtTy::F32 {
            return form("`.ftz` applies to `.f32` only");
        }
        if to_packed
            && (from_ty != CvtTy::F32 || !matches!(rnd, Rnd::Nearest | Rnd::Zero) || integral)
        {
            return form("a packed pair is converted from two `.f32` with `.rn` or `.rz`");
        }
        match (to_ty, from_ty) {
            (CvtTy::Half(t), CvtTy::Half(f)) if t == f && !(integral || rnd == Rnd::None) => {
                return form(
                    "a conversion to the same format rounds with `.rni`, `.rzi`, `.rmi` or `.rpi`",
                )
            }
            (CvtTy::Half(t), CvtTy::Half(f)) if t != f && !float_rnd => {
                return form("needs `.rn`, `.rz`, `.rm` or `.rp`")
            }
            (CvtTy::Half(_), CvtTy::F32 | CvtTy::F64 | CvtTy::Int(_)) if !float_rnd => {
                return form("needs `.rn`, `.rz`, `.rm` or `.rp`")
            }
            (CvtTy::F32 | CvtTy::F64, CvtTy::Half(_)) if rnd != Rnd::None => {
                return form("widening is exact: the ISA forbids a rounding modifier")
            }
            (CvtTy::Int(_), CvtTy::Half(_)) if !integral => {
                return form("needs `.rni`, `.rzi`, `.rmi` or `.rpi`")
            }
            (CvtTy::Half(_), _) | (_, CvtTy::Half(_)) => {}
            _ => return form("no half on either side"),
        }
        let imm = match from_ty {
            CvtTy::F32 => Imm::F32,
            CvtTy::F64 => Imm::F64,
            _ => Imm::Int,
        };
        let bits = match to_ty {
            _ if to_packed => 32,
            CvtTy::Half(_) => 16,
            CvtTy::F32 => 32,
            CvtTy::F64 => 64,
            CvtTy::Int(i) => i.bits,
        };
        let src = |d: &mut Self, op: &Operand| {
            if matches!(from_ty, CvtTy::Half(_)) {
                d.half_src(op)
            } else {
                d.src(op, imm)
            }
        };
        let (dst, a, b) = match (inst.operands.as_slice(), to_packed) {
            ([d, a], false) => (d, src(self, a)?, None),
            ([d, a, b], true) => (d, src(self, a)?, Some(src(self, b)?)),
            (ops, _) => return Err(format!("wrong operand count ({})", ops.len())),
        };
        Ok(FloatX::Cvt {
            to: to_ty,
            from: from_ty,
            rnd,
            mods: m,
            d: self.dst(dst, bits)?,
            a,
            b,
        })
    }
}

fn type_name(fmt: HFmt, packed: bool) -> &'static str {
    match (fmt, packed) {
        (HFmt::F16, false) => DataType::F16.name(),
        (HFmt::F16, true) => DataType::F16x2.name(),
        (HFmt::Bf16, false) => DataType::Bf16.name(),
        (HFmt::Bf16, true) => DataType::Bf16x2.name(),
    }
}
