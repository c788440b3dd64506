//! Decoding the less common integer instructions into `inst_int.rs`'s form: `mul24`/`mad24`,
//! `mad.hi.sat.s32`, the carry chains (`add.cc`, `addc`, `sub.cc`, `subc`, `mad.cc`, `madc`),
//! `bmsk`, `szext`, `fns`, `dp4a`, `dp2a`, `prmt` (every mode), `shf`, `lop3` and `sad`, with the
//! types and modifiers the PTX ISA allows for each; anything else is refused with what is wrong.

use warpforge_ptx::isa::Modifier as M;
use warpforge_ptx::isa::Opcode as O;
use warpforge_ptx::parse::{DataType, Instruction, OperandKind};

use super::decode::{int_type, operands, Decoder, Imm, Mods};
use super::decode_alu::one_type;
use super::decode_operands::reg_operand;
use super::inst::{BoolOp, Int, Op, R};
use super::inst_int::{Carry, CarryKind, IntX, Lop3Pred, PrmtMode, XOp};

/// The instruction's one type, which must be one of `allowed`.
fn typed(mods: &mut Mods, name: &O, allowed: &[DataType]) -> Result<Int, String> {
    let t = one_type(mods)?;
    if !allowed.contains(&t) {
        let names: Vec<String> = allowed.iter().map(|a| format!("`.{}`", a.name())).collect();
        return Err(format!(
            "`{name}` takes {}, not `.{}`",
            names.join(", "),
            t.name()
        ));
    }
    int_type(t).ok_or_else(|| format!("type `.{}` is not supported", t.name()))
}

/// `.lo` or `.hi` (true), which must be there.
fn lo_hi(mods: &mut Mods, name: &O) -> Result<bool, String> {
    match mods.one_of(&[M::Lo, M::Hi]) {
        Some(m) => Ok(m == M::Hi),
        None => Err(format!("`{name}` needs `.lo` or `.hi`")),
    }
}

/// `.clamp` (true) or `.wrap`, which must be there.
fn clamp_wrap(mods: &mut Mods, name: &O) -> Result<bool, String> {
    match mods.one_of(&[M::Clamp, M::Wrap]) {
        Some(m) => Ok(m == M::Clamp),
        None => Err(format!("`{name}` needs `.clamp` or `.wrap`")),
    }
}

const U32_S32: &[DataType] = &[DataType::U32, DataType::S32];
const CARRY_TYPES: &[DataType] = &[DataType::U32, DataType::S32, DataType::U64, DataType::S64];

impl Decoder<'_> {
    /// The instructions of this module (`decode_alu.rs` sends them here).
    pub(crate) fn int_form(&mut self, inst: &Instruction, mods: &mut Mods) -> Result<Op, String> {
        let name = &inst.opcode;
        let op = match name {
            O::Mul24 | O::Mad24 => {
                let hi = lo_hi(mods, name)?;
                let sat = mods.take(M::Sat);
                let ty = typed(mods, name, U32_S32)?;
                if sat && !(*name == O::Mad24 && hi && ty.signed) {
                    return Err("`.sat` is only on `mad24.hi.s32`".into());
                }
                XOp::Mul24 {
                    hi,
                    signed: ty.signed,
                    add: *name == O::Mad24,
                    sat,
                }
            }
            O::Mad if !mods.has(M::Cc) => {
                // Only `mad.hi.sat.s32` comes here without `.cc`.
                if !(mods.take(M::Hi) && mods.take(M::Sat)) {
                    return Err("`.sat` is only on `mad.hi.s32`".into());
                }
                typed(mods, &O::Mad, &[DataType::S32])?;
                XOp::MadHiSat
            }
            O::Add | O::Sub | O::Mad | O::Addc | O::Subc | O::Madc => self.carry_op(inst, mods)?,
            O::Bmsk => {
                let clamp = clamp_wrap(mods, name)?;
                typed(mods, name, &[DataType::B32])?;
                XOp::Bmsk { clamp }
            }
            O::Szext => {
                let clamp = clamp_wrap(mods, name)?;
                let ty = typed(mods, name, U32_S32)?;
                XOp::Szext {
                    clamp,
                    signed: ty.signed,
                }
            }
            O::Fns => {
                typed(mods, name, &[DataType::B32])?;
                XOp::Fns
            }
            O::Dp4a | O::Dp2a => {
                let hi = if *name == O::Dp2a {
                    lo_hi(mods, name)?
                } else {
                    false
                };
                let (a_signed, b_signed) = match mods.types().as_slice() {
                    [a, b] if U32_S32.contains(a) && U32_S32.contains(b) => {
                        (*a == DataType::S32, *b == DataType::S32)
                    }
                    _ => return Err(format!("`{name}` takes two types, each `.u32` or `.s32`")),
                };
                if *name == O::Dp4a {
                    XOp::Dp4a { a_signed, b_signed }
                } else {
                    XOp::Dp2a {
                        hi,
                        a_signed,
                        b_signed,
                    }
                }
            }
            O::Prmt => {
                let mode = match mods.one_of(&[M::F4e, M::B4e, M::Rc8, M::Ecl, M::Ecr, M::Rc16]) {
                    Some(M::F4e) => Some(PrmtMode::F4e),
                    Some(M::B4e) => Some(PrmtMode::B4e),
                    Some(M::Rc8) => Some(PrmtMode::Rc8),
                    Some(M::Ecl) => Some(PrmtMode::Ecl),
                    Some(M::Ecr) => Some(PrmtMode::Ecr),
                    Some(_) => Some(PrmtMode::Rc16),
                    None => None,
                };
                typed(mods, name, &[DataType::B32])?;
                match mode {
                    Some(mode) => XOp::Prmt(mode),
                    None => {
                        let [d, a, b, c] = operands::<4>(inst)?;
                        return Ok(Op::Prmt {
                            d: self.dst(d, 32)?,
                            a: self.src(a, Imm::Int)?,
                            b: self.src(b, Imm::Int)?,
                            c: self.src(c, Imm::Int)?,
                        });
                    }
                }
            }
            O::Shf => {
                let left = match mods.one_of(&[M::L, M::R]) {
                    Some(d) => d == M::L,
                    None => return Err("`shf` needs `.l` or `.r`".into()),
                };
                let clamp = clamp_wrap(mods, name)?;
                typed(mods, name, &[DataType::B32])?;
                XOp::Shf { left, clamp }
            }
            O::Lop3 => return self.lop3(inst, mods),
            O::Sad => {
                use DataType::{S16, S32, S64, U16, U32, U64};
                XOp::Sad(typed(mods, name, &[U16, U32, U64, S16, S32, S64])?)
            }
            _ => return Err(format!("`{}` is not implemented", inst.full_opcode())),
        };
        let (d_bits, sources) = match op {
            XOp::Carry(c) => (
                c.ty.bits,
                if c.kind == CarryKind::MadLo || c.kind == CarryKind::MadHi {
                    3
                } else {
                    2
                },
            ),
            XOp::Sad(ty) => (ty.bits, 3),
            XOp::Mul24 { add: false, .. } | XOp::Bmsk { .. } | XOp::Szext { .. } => (32, 2),
            _ => (32, 3),
        };
        self.x(inst, op, d_bits, sources)
    }

    /// `op` with its destination and `sources` source operands (the rest the constant 0).
    fn x(
        &mut self,
        inst: &Instruction,
        op: XOp,
        d_bits: u32,
        sources: usize,
    ) -> Result<Op, String> {
        if inst.operands.len() != sources + 1 {
            return Err(format!(
                "expected {} operands, found {}",
                sources + 1,
                inst.operands.len()
            ));
        }
        let d = self.dst(&inst.operands[0], d_bits)?;
        let mut src: [R; 3] = [self.regs.constant(0); 3];
        for (i, o) in inst.operands[1..].iter().enumerate() {
            src[i] = self.src(o, Imm::Int)?;
        }
        let [a, b, c] = src;
        Ok(Op::IntX(IntX { op, d, a, b, c }))
    }

    /// `add.cc`, `addc{.cc}`, `sub.cc`, `subc{.cc}`, `mad{.lo,.hi}.cc`, `madc{.lo,.hi}{.cc}`.
    fn carry_op(&mut self, inst: &Instruction, mods: &mut Mods) -> Result<XOp, String> {
        let name = &inst.opcode;
        let carry_in = matches!(name, O::Addc | O::Subc | O::Madc);
        let carry_out = mods.take(M::Cc);
        if !carry_in && !carry_out {
            return Err(format!("`{name}` without `.cc` is not a carry instruction"));
        }
        if mods.has(M::Wide) {
            return Err(format!(
                "`.wide` has no carry form: `{name}` takes `.lo` or `.hi`"
            ));
        }
        let kind = match name {
            O::Add | O::Addc => CarryKind::Add,
            O::Sub | O::Subc => CarryKind::Sub,
            _ if lo_hi(mods, name)? => CarryKind::MadHi,
            _ => CarryKind::MadLo,
        };
        if mods.has(M::Sat) {
            return Err(format!("`.sat` is not allowed on `{name}` with a carry"));
        }
        let ty = typed(mods, name, CARRY_TYPES)?;
        Ok(XOp::Carry(Carry {
            kind,
            ty,
            carry_in,
            carry_out,
            cc: self.regs.carry(),
        }))
    }

    /// `lop3.b32 d, a, b, c, immLut;` and `lop3.{and,or}.b32 d|p, a, b, c, immLut, q;`.
    fn lop3(&mut self, inst: &Instruction, mods: &mut Mods) -> Result<Op, String> {
        let bool_op = match mods.one_of(&[M::And, M::Or]) {
            Some(M::And) => Some(BoolOp::And),
            Some(_) => Some(BoolOp::Or),
            None => None,
        };
        typed(mods, &O::Lop3, &[DataType::B32])?;
        let ops = inst.operands.as_slice();
        let (dest, a, b, c, lut, q) = match (bool_op, ops) {
            (None, [d, a, b, c, lut]) => (d, a, b, c, lut, None),
            (Some(_), [d, a, b, c, lut, q]) => (d, a, b, c, lut, Some(q)),
            (None, _) => return Err(format!("expected 5 operands, found {}", ops.len())),
            (Some(_), _) => {
                return Err(format!(
                    "expected 6 operands (`d|p, a, b, c, immLut, q`), found {}",
                    ops.len()
                ))
            }
        };
        let lut = match &lut.kind {
            OperandKind::Int(i) if (0..=255).contains(&i.value()) => i.value() as u8,
            _ => {
                return Err(format!(
                    "`immLut` must be an integer constant 0..255, not `{lut}`"
                ))
            }
        };
        let (d, pred) = match (bool_op, q) {
            (Some(op), Some(q)) => {
                let OperandKind::PredPair(d, p) = &dest.kind else {
                    return Err(format!("expected `d|p`, found `{dest}`"));
                };
                let d = self.dst(&reg_operand(dest, d), 32)?;
                let p = self.dst(&reg_operand(dest, p), 1)?;
                let (q, negated) = self.pred(q)?;
                (d, Some(Lop3Pred { op, p, q, negated }))
            }
            _ => (self.dst(dest, 32)?, None),
        };
        Ok(Op::IntX(IntX {
            op: XOp::Lop3 { lut, pred },
            d,
            a: self.src(a, Imm::Int)?,
            b: self.src(b, Imm::Int)?,
            c: self.src(c, Imm::Int)?,
        }))
    }
}
