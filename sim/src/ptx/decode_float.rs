//! Decoding the floating-point instructions on `.f32` and `.f64` — `add`, `sub`, `mul`, `fma`,
//! `mad`, `div`, `min`, `max`, `neg`, `abs`, `sqrt`, `rcp` (also `rcp.approx.ftz.f64`) — and `cvt`
//! between integers, `f32` and `f64`. Every rounding modifier of the PTX ISA for these is accepted:
//! `.rn`, `.rz`, `.rm`, `.rp` on arithmetic and float conversions, `.rni`, `.rzi`, `.rmi`, `.rpi` on
//! conversions to integers and integral values. `.ftz` and `.sat` are single-precision modifiers in
//! the ISA: on an `.f64` instruction they are refused (`cvt.sat` to `.f64` is allowed, as the ISA
//! says). The `.approx` functions are `approx.rs`'s.

use warpforge_ptx::isa::Modifier as M;
use warpforge_ptx::isa::Opcode as O;
use warpforge_ptx::parse::{DataType, Instruction, OperandKind};

use super::decode::{operands, value_type, Decoder, Imm, Mods};
use super::inst::{DivKind, FBin, FMods, FTy, FUn, Op, Rnd, Ty};

/// The immediate kind of a float type's operands.
pub(crate) fn float_imm(ty: FTy) -> Imm {
    match ty {
        FTy::F32 => Imm::F32,
        FTy::F64 => Imm::F64,
    }
}

/// The immediate kind of operands of PTX type `t`.
pub(crate) fn imm_of(t: DataType) -> Imm {
    match t {
        DataType::F32 => Imm::F32,
        DataType::F64 => Imm::F64,
        _ => Imm::Int,
    }
}

/// The one type modifier of a float instruction: `.f32` or `.f64`.
fn float_type(mods: &mut Mods, name: &O) -> Result<FTy, String> {
    match mods.types().as_slice() {
        [DataType::F32] => Ok(FTy::F32),
        [DataType::F64] => Ok(FTy::F64),
        [t] => Err(format!(
            "`{name}.{}` is not supported (only `.f32` and `.f64`)",
            t.name()
        )),
        [] => Err("no type modifier".into()),
        more => Err(format!(
            "{} type modifiers where one is expected",
            more.len()
        )),
    }
}

/// The rounding modifier among `mods`, if any.
fn rounding(mods: &mut Mods) -> Rnd {
    match mods.one_of(&[M::Rn, M::Rz, M::Rm, M::Rp]) {
        Some(M::Rn) => Rnd::Nearest,
        Some(M::Rz) => Rnd::Zero,
        Some(M::Rm) => Rnd::Down,
        Some(M::Rp) => Rnd::Up,
        _ => Rnd::None,
    }
}

/// `.ftz` and `.sat` (single precision only) and the rounding, which `required` says must be
/// given.
fn float_mods(mods: &mut Mods, ty: FTy, required: bool, name: &O) -> Result<FMods, String> {
    let rnd = rounding(mods);
    if required && rnd == Rnd::None {
        return Err(format!(
            "`{name}` needs a rounding modifier (`.rn`, `.rz`, `.rm` or `.rp`)"
        ));
    }
    let (ftz, sat) = (mods.take(M::Ftz), mods.take(M::Sat));
    if ty == FTy::F64 && (ftz || sat) {
        let m = if ftz { M::Ftz } else { M::Sat };
        return Err(format!(
            "`.{m}` on `{name}.f64`: the PTX ISA has `.{m}` on single precision only"
        ));
    }
    Ok(FMods { ftz, sat, rnd })
}

impl Decoder<'_> {
    /// `add`, `sub`, `mul`, `div`, `min`, `max`, `mad`, `neg`, `abs` on `.f32` / `.f64`.
    pub(crate) fn float_arith(
        &mut self,
        inst: &Instruction,
        mods: &mut Mods,
    ) -> Result<Op, String> {
        let name = &inst.opcode;
        let (op, ty, fm) = match name {
            O::Add | O::Sub | O::Mul => {
                let op = match name {
                    O::Add => FBin::Add,
                    O::Sub => FBin::Sub,
                    _ => FBin::Mul,
                };
                let ty = float_type(mods, name)?;
                (op, ty, float_mods(mods, ty, false, name)?)
            }
            O::Div => {
                let kind = match mods.one_of(&[M::Full, M::Approx]) {
                    Some(M::Full) => DivKind::Full,
                    Some(_) => DivKind::Approx,
                    None => DivKind::Ieee,
                };
                let ty = float_type(mods, name)?;
                if ty == FTy::F64 && kind != DivKind::Ieee {
                    return Err("`div.full` and `div.approx` are `.f32` only in the ISA".into());
                }
                let fm = float_mods(mods, ty, kind == DivKind::Ieee, name)?;
                if kind != DivKind::Ieee && fm.rnd != Rnd::None {
                    return Err("`div.full`/`div.approx` take no rounding modifier".into());
                }
                (FBin::Div(kind), ty, fm)
            }
            O::Min | O::Max => {
                let nan = mods.take(M::NaN);
                let op = match (name, nan) {
                    (O::Min, false) => FBin::Min,
                    (O::Min, true) => FBin::MinNan,
                    (O::Max, false) => FBin::Max,
                    _ => FBin::MaxNan,
                };
                let ftz = mods.take(M::Ftz);
                let ty = float_type(mods, name)?;
                if ty == FTy::F64 && (ftz || nan) {
                    return Err(format!("`{name}.f64` takes no `.ftz` or `.NaN` in the ISA"));
                }
                let fm = FMods {
                    ftz,
                    ..FMods::default()
                };
                (op, ty, fm)
            }
            O::Mad => return self.fma(inst, mods),
            O::Neg | O::Abs => {
                let ftz = mods.take(M::Ftz);
                let ty = float_type(mods, name)?;
                if ty == FTy::F64 && ftz {
                    return Err(format!("`{name}.f64` takes no `.ftz` in the ISA"));
                }
                let [d, a] = operands::<2>(inst)?;
                let op = if *name == O::Neg { FUn::Neg } else { FUn::Abs };
                return Ok(Op::FUn {
                    op,
                    ty,
                    mods: FMods {
                        ftz,
                        ..FMods::default()
                    },
                    d: self.dst(d, ty.bits())?,
                    a: self.src(a, float_imm(ty))?,
                });
            }
            _ => return Err(format!("`{}` is not implemented", inst.full_opcode())),
        };
        let [d, a, b] = operands::<3>(inst)?;
        Ok(Op::FBin {
            op,
            ty,
            mods: fm,
            d: self.dst(d, ty.bits())?,
            a: self.src(a, float_imm(ty))?,
            b: self.src(b, float_imm(ty))?,
        })
    }

    /// `fma.rnd` and `mad` (`mad` without rounding is `.rn`, as legacy PTX maps it).
    pub(crate) fn fma(&mut self, inst: &Instruction, mods: &mut Mods) -> Result<Op, String> {
        let name = &inst.opcode;
        let ty = float_type(mods, name)?;
        let fm = float_mods(mods, ty, *name == O::Fma, name)?;
        let [d, a, b, c] = operands::<4>(inst)?;
        let imm = float_imm(ty);
        Ok(Op::Fma {
            ty,
            mods: fm,
            d: self.dst(d, ty.bits())?,
            a: self.src(a, imm)?,
            b: self.src(b, imm)?,
            c: self.src(c, imm)?,
        })
    }

    /// `sqrt.rnd`, `rcp.rnd` on `.f32`/`.f64`, `rcp.approx.ftz.f64`, and the `.f32` `.approx`
    /// forms (`approx.rs`).
    pub(crate) fn sqrt_rcp(&mut self, inst: &Instruction, mods: &mut Mods) -> Result<Op, String> {
        let name = &inst.opcode;
        let f64_approx = mods.has(M::Approx) && mods.has(M::Type(DataType::F64));
        if mods.has(M::Approx) && !f64_approx {
            return self.approx(inst, mods);
        }
        if f64_approx {
            if *name != O::Rcp {
                return Err("`sqrt.approx` is `.f32` only in the ISA".into());
            }
            mods.take(M::Approx);
            mods.take(M::Type(DataType::F64));
            if !mods.take(M::Ftz) {
                return Err(
                    "`rcp.approx.f64` needs `.ftz` (`rcp.approx.ftz.f64` is the ISA's form)".into(),
                );
            }
            let [d, a] = operands::<2>(inst)?;
            return Ok(Op::FUn {
                op: FUn::RcpGross,
                ty: FTy::F64,
                mods: FMods::default(),
                d: self.dst(d, 64)?,
                a: self.src(a, Imm::F64)?,
            });
        }
        let ty = float_type(mods, name)?;
        let fm = float_mods(mods, ty, true, name)?;
        let [d, a] = operands::<2>(inst)?;
        let op = if *name == O::Sqrt {
            FUn::Sqrt
        } else {
            FUn::Rcp
        };
        Ok(Op::FUn {
            op,
            ty,
            mods: fm,
            d: self.dst(d, ty.bits())?,
            a: self.src(a, float_imm(ty))?,
        })
    }

    /// `cvt` between integers, `.f32` and `.f64`.
    pub(crate) fn cvt(&mut self, inst: &Instruction, mods: &mut Mods) -> Result<Op, String> {
        let rnd = match mods.one_of(&[M::Rn, M::Rz, M::Rm, M::Rp, M::Rni, M::Rzi, M::Rmi, M::Rpi]) {
            None => Rnd::None,
            Some(M::Rn | M::Rni) => Rnd::Nearest,
            Some(M::Rz | M::Rzi) => Rnd::Zero,
            Some(M::Rm | M::Rmi) => Rnd::Down,
            Some(_) => Rnd::Up,
        };
        let integral = inst
            .modifiers
            .iter()
            .any(|m| matches!(m, M::Rni | M::Rzi | M::Rmi | M::Rpi));
        let fm = FMods {
            ftz: mods.take(M::Ftz),
            sat: mods.take(M::Sat),
            rnd: Rnd::None,
        };
        let [to, from] = match mods.types().as_slice() {
            [to, from] => [*to, *from],
            _ => return Err("expected a destination and a source type".into()),
        };
        let unsupported =
            |t: DataType| format!("conversions with `.{}` are not supported", t.name());
        let to_ty = value_type(to).ok_or_else(|| unsupported(to))?;
        let from_ty = value_type(from).ok_or_else(|| unsupported(from))?;
        let float = |t: Ty| matches!(t, Ty::F32 | Ty::F64);
        if fm.ftz && to_ty != Ty::F32 && from_ty != Ty::F32 {
            return Err("`.ftz` on a conversion without `.f32` (it applies to `.f32` only)".into());
        }
        match (to_ty, from_ty) {
            (Ty::Int(_), Ty::Int(_)) if rnd != Rnd::None => {
                return Err("a rounding modifier on an integer conversion".into())
            }
            (Ty::Int(_), f) if float(f) && !integral => {
                return Err(format!(
                    "a `.{}`-to-integer conversion needs `.rni`, `.rzi`, `.rmi` or `.rpi`",
                    from.name()
                ))
            }
            (t, Ty::Int(_)) if float(t) && (rnd == Rnd::None || integral) => {
                return Err(format!(
                    "an integer-to-`.{}` conversion needs `.rn`, `.rz`, `.rm` or `.rp`",
                    to.name()
                ))
            }
            (t, f) if float(t) && t == f && rnd != Rnd::None && !integral => {
                return Err(format!(
                    "a `.{0}`-to-`.{0}` conversion rounds with `.rni`, `.rzi`, `.rmi` or `.rpi`",
                    to.name()
                ))
            }
            (Ty::F32, Ty::F64) if rnd == Rnd::None || integral => {
                return Err(
                    "an `.f64`-to-`.f32` conversion needs `.rn`, `.rz`, `.rm` or `.rp`".into(),
                )
            }
            (Ty::F64, Ty::F32) if rnd != Rnd::None => {
                return Err(
                    "an `.f32`-to-`.f64` conversion is exact: the ISA forbids a rounding modifier"
                        .into(),
                )
            }
            _ => {}
        }
        let [d, a] = operands::<2>(inst)?;
        let dst_bits = match &d.kind {
            OperandKind::Register(r) => self
                .regs
                .declared(r)
                .map_or(to_ty.bits(), |r| self.regs.bits[r as usize]),
            _ => to_ty.bits(),
        };
        Ok(Op::Cvt {
            to: to_ty,
            from: from_ty,
            rnd,
            mods: fm,
            d: self.dst(d, dst_bits)?,
            a: self.src(a, imm_of(from))?,
        })
    }
}
