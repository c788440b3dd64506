//! Decoding the computing instructions: `mov` (with special registers, immediates, symbol addresses
//! and vector packing), integer arithmetic and logic (`add` … `prmt`), `setp`, `selp`, `cvt`, and
//! the dispatch of the floating-point instructions (`decode_float.rs`, `approx.rs`); anything else
//! is refused with its name.

use warpforge_ptx::isa::Modifier as M;
use warpforge_ptx::isa::{Opcode as O, SpecialReg};
use warpforge_ptx::parse::{DataType, Instruction, OperandKind};

use super::decode::{int_type, operands, storage_type, value_type, Decoder, Imm, Mods};
use super::decode_float::imm_of;
use super::decode_operands::reg_operand;
use super::inst::{BoolOp, Cmp, CmpTy, Half, Int, IntBin, IntUn, Op, Timer, Ty};

/// The one type modifier of an instruction.
pub(crate) fn one_type(mods: &mut Mods) -> Result<DataType, String> {
    match mods.types().as_slice() {
        [t] => Ok(*t),
        [] => Err("no type modifier".into()),
        more => Err(format!(
            "{} type modifiers where one is expected",
            more.len()
        )),
    }
}

fn int_of(t: DataType) -> Result<Int, String> {
    int_type(t).ok_or_else(|| format!("type `.{}` is not supported here", t.name()))
}

impl Decoder<'_> {
    /// Every computing instruction.
    pub(crate) fn alu(&mut self, inst: &Instruction) -> Result<Op, String> {
        let mut mods = Mods::new(inst);
        let op = match inst.opcode {
            _ if super::decode_half::is_float_x(inst) => self.float_x(inst, &mut mods)?,
            O::Mov => self.mov(inst, &mut mods)?,
            O::Setp => self.setp(inst, &mut mods)?,
            O::Selp => {
                let t = one_type(&mut mods)?;
                let bits = storage_type(t).ok_or("unsupported type")?.bits();
                let [d, a, b, c] = operands::<4>(inst)?;
                let imm = imm_of(t);
                Op::Selp {
                    d: self.dst(d, bits)?,
                    a: self.src(a, imm)?,
                    b: self.src(b, imm)?,
                    c: self.src(c, Imm::Int)?,
                    bits,
                }
            }
            O::Cvt => self.cvt(inst, &mut mods)?,
            O::Bfe => {
                let ty = int_of(one_type(&mut mods)?)?;
                let [d, a, b, c] = operands::<4>(inst)?;
                Op::Bfe {
                    ty,
                    d: self.dst(d, ty.bits)?,
                    a: self.src(a, Imm::Int)?,
                    b: self.src(b, Imm::Int)?,
                    c: self.src(c, Imm::Int)?,
                }
            }
            O::Bfi => {
                let ty = int_of(one_type(&mut mods)?)?;
                let [f, a, b, c, e] = operands::<5>(inst)?;
                Op::Bfi {
                    bits: ty.bits,
                    d: self.dst(f, ty.bits)?,
                    a: self.src(a, Imm::Int)?,
                    b: self.src(b, Imm::Int)?,
                    c: self.src(c, Imm::Int)?,
                    e: self.src(e, Imm::Int)?,
                }
            }
            O::Prmt
            | O::Mul24
            | O::Mad24
            | O::Addc
            | O::Subc
            | O::Madc
            | O::Bmsk
            | O::Szext
            | O::Fns
            | O::Dp4a
            | O::Dp2a
            | O::Shf
            | O::Lop3
            | O::Sad => self.int_form(inst, &mut mods)?,
            O::Add | O::Sub | O::Mad if mods.has(M::Cc) => self.int_form(inst, &mut mods)?,
            O::Mad
                if mods.has(M::Sat)
                    && !mods.has(M::Type(DataType::F32))
                    && !mods.has(M::Type(DataType::F64)) =>
            {
                self.int_form(inst, &mut mods)?
            }
            O::Fma => self.fma(inst, &mut mods)?,
            O::Ex2 | O::Lg2 | O::Sin | O::Cos | O::Rsqrt | O::Tanh => {
                self.approx(inst, &mut mods)?
            }
            O::Sqrt | O::Rcp => self.sqrt_rcp(inst, &mut mods)?,
            _ => self.arith(inst, &mut mods)?,
        };
        mods.finish()?;
        Ok(op)
    }

    fn mov(&mut self, inst: &Instruction, mods: &mut Mods) -> Result<Op, String> {
        let t = one_type(mods)?;
        let bits = storage_type(t)
            .ok_or_else(|| format!("type `.{}` is not supported", t.name()))?
            .bits();
        let [d, a] = operands::<2>(inst)?;
        if let OperandKind::Register(r) = &a.kind {
            let timer = match SpecialReg::of(r) {
                Some(SpecialReg::Clock) => Some(Timer::Clock),
                Some(SpecialReg::Clock64) => Some(Timer::Clock64),
                Some(SpecialReg::Globaltimer) => Some(Timer::Global),
                Some(SpecialReg::GlobaltimerLo) => Some(Timer::GlobalLo),
                Some(SpecialReg::GlobaltimerHi) => Some(Timer::GlobalHi),
                _ => None,
            };
            if let Some(timer) = timer {
                return Ok(Op::Clock {
                    d: self.dst(d, bits)?,
                    timer,
                });
            }
        }
        if let Some(op) = self.frame_address(d, a, bits)? {
            return Ok(op);
        }
        let imm = imm_of(t);
        match (&d.kind, &a.kind) {
            (_, OperandKind::Vector(parts)) => {
                let part_bits = bits / parts.len().max(1) as u32;
                if parts.len() < 2 || !matches!(part_bits, 8 | 16 | 32) {
                    return Err("a vector of 2 or 4 parts is expected".into());
                }
                let parts = parts
                    .iter()
                    .map(|p| self.src(p, Imm::Int))
                    .collect::<Result<_, _>>()?;
                Ok(Op::Pack {
                    d: self.dst(d, bits)?,
                    parts,
                    part_bits,
                })
            }
            (OperandKind::Vector(parts), _) => {
                let part_bits = bits / parts.len().max(1) as u32;
                if parts.len() < 2 || !matches!(part_bits, 8 | 16 | 32) {
                    return Err("a vector of 2 or 4 parts is expected".into());
                }
                let parts = parts
                    .iter()
                    .map(|p| match p.kind {
                        OperandKind::Sink => Ok(None),
                        _ => self.dst(p, part_bits).map(Some),
                    })
                    .collect::<Result<_, _>>()?;
                Ok(Op::Unpack {
                    parts,
                    a: self.src(a, Imm::Int)?,
                    part_bits,
                })
            }
            _ => Ok(Op::Mov {
                d: self.dst(d, bits)?,
                a: self.src(a, imm)?,
                bits,
            }),
        }
    }

    fn setp(&mut self, inst: &Instruction, mods: &mut Mods) -> Result<Op, String> {
        let cmp = match mods.one_of(&[
            M::Eq,
            M::Ne,
            M::Lt,
            M::Le,
            M::Gt,
            M::Ge,
            M::Lo,
            M::Ls,
            M::Hi,
            M::Hs,
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
            Some(M::Lt | M::Lo) => Cmp::Lt,
            Some(M::Le | M::Ls) => Cmp::Le,
            Some(M::Gt | M::Hi) => Cmp::Gt,
            Some(M::Ge | M::Hs) => Cmp::Ge,
            Some(M::Equ) => Cmp::Equ,
            Some(M::Neu) => Cmp::Neu,
            Some(M::Ltu) => Cmp::Ltu,
            Some(M::Leu) => Cmp::Leu,
            Some(M::Gtu) => Cmp::Gtu,
            Some(M::Geu) => Cmp::Geu,
            Some(M::Num) => Cmp::Num,
            Some(_) => Cmp::Nan,
            None => return Err("no comparison operator".into()),
        };
        let bool_op = match mods.one_of(&[M::And, M::Or, M::Xor]) {
            Some(M::And) => Some(BoolOp::And),
            Some(M::Or) => Some(BoolOp::Or),
            Some(_) => Some(BoolOp::Xor),
            None => None,
        };
        let ftz = mods.take(M::Ftz);
        let t = one_type(mods)?;
        let ty = match t {
            DataType::F32 => CmpTy::F32 { ftz },
            DataType::F64 if ftz => {
                return Err("`.ftz` on `setp.f64`: the PTX ISA has it on `.f32` only".into())
            }
            DataType::F64 => CmpTy::F64,
            other => {
                let ty = int_of(other)?;
                if ftz
                    || !matches!(
                        cmp,
                        Cmp::Eq | Cmp::Ne | Cmp::Lt | Cmp::Le | Cmp::Gt | Cmp::Ge
                    )
                {
                    return Err("an unordered comparison or `.ftz` on integers".into());
                }
                CmpTy::Int(ty)
            }
        };
        let imm = imm_of(t);
        let (dest, a, b, c) = match inst.operands.as_slice() {
            [d, a, b] if bool_op.is_none() => (d, a, b, None),
            [d, a, b, c] if bool_op.is_some() => (d, a, b, Some(c)),
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
        let combine = match (bool_op, c) {
            (Some(op), Some(c)) => {
                let (r, negated) = self.pred(c)?;
                Some((op, r, negated))
            }
            _ => None,
        };
        Ok(Op::Setp {
            cmp,
            ty,
            p,
            q,
            a: self.src(a, imm)?,
            b: self.src(b, imm)?,
            combine,
        })
    }

    /// Integer arithmetic and logic; `.f32`/`.f64` arithmetic is `decode_float.rs`'s.
    fn arith(&mut self, inst: &Instruction, mods: &mut Mods) -> Result<Op, String> {
        let name = &inst.opcode;
        if inst
            .modifiers
            .iter()
            .any(|m| *m == M::Type(DataType::F32) || *m == M::Type(DataType::F64))
        {
            return self.float_arith(inst, mods);
        }
        let half = match mods.one_of(&[M::Lo, M::Hi, M::Wide]) {
            Some(M::Lo) => Some(Half::Lo),
            Some(M::Hi) => Some(Half::Hi),
            Some(_) => Some(Half::Wide),
            None => None,
        };
        if let Some(t) = inst.modifiers.iter().find_map(M::data_type) {
            if !matches!(value_type(t), Some(Ty::Int(_))) {
                return Err(format!("type `.{}` is not supported", t.name()));
            }
        }
        let sat = mods.take(M::Sat);
        let ty = int_of(one_type(mods)?)?;
        let binary = |op: IntBin| Some(op);
        let bin = match (name, half) {
            (O::Add, None) if sat => binary(IntBin::AddSat),
            (O::Sub, None) if sat => binary(IntBin::SubSat),
            (O::Add, None) => binary(IntBin::Add),
            (O::Sub, None) => binary(IntBin::Sub),
            (O::Mul, Some(Half::Lo)) => binary(IntBin::MulLo),
            (O::Mul, Some(Half::Hi)) => binary(IntBin::MulHi),
            (O::Div, None) => binary(IntBin::Div),
            (O::Rem, None) => binary(IntBin::Rem),
            (O::Min, None) => binary(IntBin::Min),
            (O::Max, None) => binary(IntBin::Max),
            (O::And, None) => binary(IntBin::And),
            (O::Or, None) => binary(IntBin::Or),
            (O::Xor, None) => binary(IntBin::Xor),
            (O::Shl, None) => binary(IntBin::Shl),
            (O::Shr, None) => binary(IntBin::Shr),
            _ => None,
        };
        if sat
            && !(matches!(bin, Some(IntBin::AddSat | IntBin::SubSat))
                && ty
                    == Int {
                        bits: 32,
                        signed: true,
                    })
        {
            return Err("`.sat` is supported on `add.s32` and `sub.s32` only".into());
        }
        if let Some(op) = bin {
            let [d, a, b] = operands::<3>(inst)?;
            return Ok(Op::IntBin {
                op,
                ty,
                d: self.dst(d, ty.bits)?,
                a: self.src(a, Imm::Int)?,
                b: self.src(b, Imm::Int)?,
            });
        }
        let unary = match name {
            O::Neg => Some(IntUn::Neg),
            O::Not => Some(IntUn::Not),
            O::Cnot => Some(IntUn::CNot),
            O::Abs => Some(IntUn::Abs),
            O::Popc => Some(IntUn::Popc),
            O::Clz => Some(IntUn::Clz),
            O::Brev => Some(IntUn::Brev),
            O::Bfind => Some(IntUn::Bfind {
                shiftamt: mods.take(M::Shiftamt),
            }),
            _ => None,
        };
        if let (Some(op), None) = (unary, half) {
            let [d, a] = operands::<2>(inst)?;
            let d_bits = if matches!(op, IntUn::Popc | IntUn::Clz | IntUn::Bfind { .. }) {
                32
            } else {
                ty.bits
            };
            return Ok(Op::IntUn {
                op,
                ty,
                d: self.dst(d, d_bits)?,
                a: self.src(a, Imm::Int)?,
            });
        }
        match (name, half) {
            (O::Mul, Some(Half::Wide)) => {
                if !matches!(ty.bits, 16 | 32) {
                    return Err("`mul.wide` takes 16- or 32-bit operands".into());
                }
                let [d, a, b] = operands::<3>(inst)?;
                Ok(Op::MulWide {
                    ty,
                    d: self.dst(d, 2 * ty.bits)?,
                    a: self.src(a, Imm::Int)?,
                    b: self.src(b, Imm::Int)?,
                })
            }
            (O::Mad, Some(half)) => {
                if half == Half::Wide && !matches!(ty.bits, 16 | 32) {
                    return Err("`mad.wide` takes 16- or 32-bit operands".into());
                }
                let [d, a, b, c] = operands::<4>(inst)?;
                let d_bits = if half == Half::Wide {
                    2 * ty.bits
                } else {
                    ty.bits
                };
                Ok(Op::Mad {
                    half,
                    ty,
                    d: self.dst(d, d_bits)?,
                    a: self.src(a, Imm::Int)?,
                    b: self.src(b, Imm::Int)?,
                    c: self.src(c, Imm::Int)?,
                })
            }
            _ => Err(format!("`{}` is not implemented", inst.full_opcode())),
        }
    }
}
