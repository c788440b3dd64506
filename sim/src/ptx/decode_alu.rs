//! Decoding the computing instructions: `mov` (with special registers, immediates, symbol addresses
//! and vector packing), integer arithmetic and logic (`add` … `prmt`), `setp`, `selp`, `cvt`, and
//! the dispatch of the floating-point instructions (`decode_float.rs`, `approx.rs`); anything else
//! is refused with its name.

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
        let op = match inst.opcode.as_str() {
            _ if super::decode_half::is_float_x(inst) => self.float_x(inst, &mut mods)?,
            "mov" => self.mov(inst, &mut mods)?,
            "setp" => self.setp(inst, &mut mods)?,
            "selp" => {
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
            "cvt" => self.cvt(inst, &mut mods)?,
            "bfe" => {
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
            "bfi" => {
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
            "prmt" | "mul24" | "mad24" | "addc" | "subc" | "madc" | "bmsk" | "szext" | "fns"
            | "dp4a" | "dp2a" | "shf" | "lop3" | "sad" => self.int_form(inst, &mut mods)?,
            "add" | "sub" | "mad" if mods.has("cc") => self.int_form(inst, &mut mods)?,
            "mad" if mods.has("sat") && !mods.has("f32") && !mods.has("f64") => {
                self.int_form(inst, &mut mods)?
            }
            "fma" => self.fma(inst, &mut mods)?,
            "ex2" | "lg2" | "sin" | "cos" | "rsqrt" | "tanh" => self.approx(inst, &mut mods)?,
            "sqrt" | "rcp" => self.sqrt_rcp(inst, &mut mods)?,
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
            let timer = match (r.name.as_str(), r.component) {
                ("%clock", None) => Some(Timer::Clock),
                ("%clock64", None) => Some(Timer::Clock64),
                ("%globaltimer", None) => Some(Timer::Global),
                ("%globaltimer_lo", None) => Some(Timer::GlobalLo),
                ("%globaltimer_hi", None) => Some(Timer::GlobalHi),
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
            "eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs", "equ", "neu", "ltu", "leu",
            "gtu", "geu", "num", "nan",
        ]) {
            Some("eq") => Cmp::Eq,
            Some("ne") => Cmp::Ne,
            Some("lt" | "lo") => Cmp::Lt,
            Some("le" | "ls") => Cmp::Le,
            Some("gt" | "hi") => Cmp::Gt,
            Some("ge" | "hs") => Cmp::Ge,
            Some("equ") => Cmp::Equ,
            Some("neu") => Cmp::Neu,
            Some("ltu") => Cmp::Ltu,
            Some("leu") => Cmp::Leu,
            Some("gtu") => Cmp::Gtu,
            Some("geu") => Cmp::Geu,
            Some("num") => Cmp::Num,
            Some(_) => Cmp::Nan,
            None => return Err("no comparison operator".into()),
        };
        let bool_op = match mods.one_of(&["and", "or", "xor"]) {
            Some("and") => Some(BoolOp::And),
            Some("or") => Some(BoolOp::Or),
            Some(_) => Some(BoolOp::Xor),
            None => None,
        };
        let ftz = mods.take("ftz");
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
        let name = inst.opcode.as_str();
        if inst.modifiers.iter().any(|m| m == "f32" || m == "f64") {
            return self.float_arith(inst, mods);
        }
        let half = match mods.one_of(&["lo", "hi", "wide"]) {
            Some("lo") => Some(Half::Lo),
            Some("hi") => Some(Half::Hi),
            Some(_) => Some(Half::Wide),
            None => None,
        };
        if let Some(t) = inst.modifiers.iter().find_map(|m| DataType::from_name(m)) {
            if !matches!(value_type(t), Some(Ty::Int(_))) {
                return Err(format!("type `.{}` is not supported", t.name()));
            }
        }
        let sat = mods.take("sat");
        let ty = int_of(one_type(mods)?)?;
        let binary = |op: IntBin| Some(op);
        let bin = match (name, half) {
            ("add", None) if sat => binary(IntBin::AddSat),
            ("sub", None) if sat => binary(IntBin::SubSat),
            ("add", None) => binary(IntBin::Add),
            ("sub", None) => binary(IntBin::Sub),
            ("mul", Some(Half::Lo)) => binary(IntBin::MulLo),
            ("mul", Some(Half::Hi)) => binary(IntBin::MulHi),
            ("div", None) => binary(IntBin::Div),
            ("rem", None) => binary(IntBin::Rem),
            ("min", None) => binary(IntBin::Min),
            ("max", None) => binary(IntBin::Max),
            ("and", None) => binary(IntBin::And),
            ("or", None) => binary(IntBin::Or),
            ("xor", None) => binary(IntBin::Xor),
            ("shl", None) => binary(IntBin::Shl),
            ("shr", None) => binary(IntBin::Shr),
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
            "neg" => Some(IntUn::Neg),
            "not" => Some(IntUn::Not),
            "cnot" => Some(IntUn::CNot),
            "abs" => Some(IntUn::Abs),
            "popc" => Some(IntUn::Popc),
            "clz" => Some(IntUn::Clz),
            "brev" => Some(IntUn::Brev),
            "bfind" => Some(IntUn::Bfind {
                shiftamt: mods.take("shiftamt"),
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
            ("mul", Some(Half::Wide)) => {
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
            ("mad", Some(half)) => {
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
