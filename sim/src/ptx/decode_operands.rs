//! Operands of a PTX instruction as the executor's registers: declared and special registers,
//! immediates (constant registers), symbol addresses, destinations (the sink `_` a scratch
//! register), predicates that may be negated, and `[base + offset]` addresses.

use warpforge_ptx::isa::predefined_constant;
use warpforge_ptx::parse::{Address, AddressBase, FloatImm, Operand, OperandKind, Register};

use super::decode::Decoder;
use super::decode_mods::Imm;
use super::inst::{Addr, R};

impl Decoder<'_> {
    /// A declared (or special) register.
    pub fn reg(&mut self, r: &Register) -> Result<R, String> {
        self.regs.lookup(r).ok_or_else(|| {
            format!("`{r}` is not a declared register or a supported special register")
        })
    }

    /// A source operand: a register, an immediate (as `imm` says), or a symbol's address.
    pub fn src(&mut self, op: &Operand, imm: Imm) -> Result<R, String> {
        match &op.kind {
            OperandKind::Register(r) => self.reg(r),
            OperandKind::Int(i) => Ok(self.regs.constant(i.value() as u64)),
            OperandKind::Float(FloatImm::F32Bits(b)) if imm == Imm::F64 => {
                Ok(self.regs.constant(f64::from(f32::from_bits(*b)).to_bits()))
            }
            OperandKind::Float(FloatImm::F32Bits(b)) => Ok(self.regs.constant(u64::from(*b))),
            OperandKind::Float(FloatImm::F64Bits(b)) if imm == Imm::F32 => {
                let x = f64::from_bits(*b);
                // `as` rounds to nearest even; a NaN keeps its sign, quiet.
                let bits = if x.is_nan() {
                    0x7fc0_0000 | (((*b >> 63) as u32) << 31)
                } else {
                    (x as f32).to_bits()
                };
                Ok(self.regs.constant(u64::from(bits)))
            }
            OperandKind::Float(FloatImm::F64Bits(b)) => Ok(self.regs.constant(*b)),
            OperandKind::Float(FloatImm::Decimal(text)) if imm != Imm::Int => {
                let bits = if imm == Imm::F32 {
                    u64::from(
                        text.parse::<f32>()
                            .map_err(|_| format!("`{text}` is not a number"))?
                            .to_bits(),
                    )
                } else {
                    text.parse::<f64>()
                        .map_err(|_| format!("`{text}` is not a number"))?
                        .to_bits()
                };
                Ok(self.regs.constant(bits))
            }
            OperandKind::Float(_) => Err("a float immediate where an integer is expected".into()),
            OperandKind::Symbol(name) => {
                // The PTX ISA's predefined constant for the warp size (nvcc writes it for `warpSize`).
                if let Some(value) = predefined_constant(name) {
                    return Ok(self.regs.constant(value));
                }
                self.symbol(name)
            }
            _ => Err(format!("unexpected operand `{op}`")),
        }
    }

    /// The value of a symbol operand: a module or entry variable's address.
    fn symbol(&mut self, name: &str) -> Result<R, String> {
        match name {
            name if self.frame_var(name).is_some() => Err(format!(
                "the address of frame variable `{name}` as an operand here (only `mov` of a \
                 `.func`'s `.local` variable is supported)"
            )),
            name => match self.layout.symbols.get(name) {
                Some(s) => Ok(self.regs.constant(s.addr)),
                None => Err(format!(
                    "`{name}` is not a variable of the module or the entry"
                )),
            },
        }
    }

    /// A destination register (`_` is a scratch register of `bits`).
    pub fn dst(&mut self, op: &Operand, bits: u32) -> Result<R, String> {
        match &op.kind {
            OperandKind::Register(r) => self
                .regs
                .declared(r)
                .ok_or_else(|| format!("`{r}` is not a declared register (it cannot be written)")),
            OperandKind::Sink => Ok(self.regs.scratch(bits)),
            _ => Err(format!("expected a destination register, found `{op}`")),
        }
    }

    /// A predicate source that may be negated (`!%p`): the register and whether it is negated.
    pub fn pred(&mut self, op: &Operand) -> Result<(R, bool), String> {
        match &op.kind {
            OperandKind::Not(r) => Ok((self.reg(r)?, true)),
            _ => Ok((self.src(op, Imm::Int)?, false)),
        }
    }

    /// An address operand `[base+offset]`; a symbol base is folded into the offset.
    pub fn addr(&mut self, op: &Operand) -> Result<Addr, String> {
        let OperandKind::Address(Address { base, offset }) = &op.kind else {
            return Err(format!("expected an address `[…]`, found `{op}`"));
        };
        Ok(match base {
            AddressBase::Register(r) => Addr {
                base: Some(self.reg(r)?),
                offset: *offset,
            },
            AddressBase::Symbol(name) if self.frame_var(name).is_some() => {
                let at = self.frame_var(name).map_or(0, |v| i64::from(v.offset));
                Addr {
                    base: self.in_function.then_some(self.frame_reg),
                    offset: at.wrapping_add(*offset),
                }
            }
            AddressBase::Symbol(name) => match self.layout.symbols.get(name) {
                Some(s) => Addr {
                    base: None,
                    offset: (s.addr as i64).wrapping_add(*offset),
                },
                None => match self.regs.lookup(&Register::named(name.clone())) {
                    Some(r) => Addr {
                        base: Some(r),
                        offset: *offset,
                    },
                    None => {
                        return Err(format!(
                            "`{name}` is not a variable of the module or the entry"
                        ))
                    }
                },
            },
            AddressBase::Absolute => Addr {
                base: None,
                offset: *offset,
            },
        })
    }

    /// The space of a variable an address names directly, if it does (`[smem+4]`).
    pub fn symbol_space(&self, op: &Operand) -> Option<super::inst::MemSpace> {
        match &op.kind {
            OperandKind::Address(Address {
                base: AddressBase::Symbol(name),
                ..
            }) if self.frame_var(name).is_some() => Some(super::inst::MemSpace::Local),
            OperandKind::Address(Address {
                base: AddressBase::Symbol(name),
                ..
            }) => self.layout.symbols.get(name).map(|s| s.space),
            _ => None,
        }
    }
}

/// One half of a `d|p` or `p|q` register pair as an operand of its own; `_` is the sink.
pub(crate) fn reg_operand(at: &Operand, r: &warpforge_ptx::parse::Register) -> Operand {
    Operand {
        pos: at.pos,
        kind: if r.name == "_" {
            OperandKind::Sink
        } else {
            OperandKind::Register(r.clone())
        },
    }
}
