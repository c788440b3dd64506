//! The pieces every instruction decoder uses: the modifiers of an instruction ([`Mods`]: each one
//! recognised is taken, any left is unsupported), its operand count, PTX types as the executor's
//! types, and what an immediate means to its instruction.

use warpforge_ptx::isa::Modifier as M;
use warpforge_ptx::parse::{DataType, Instruction, Operand};

use super::inst::{Int, Ty};

/// The modifiers of an instruction being decoded; each recognised one is taken out, and any left at
/// the end is unsupported.
pub(crate) struct Mods {
    list: Vec<M>,
}

impl Mods {
    pub fn new(inst: &Instruction) -> Mods {
        Mods {
            list: inst.modifiers.clone(),
        }
    }

    /// Whether modifier `m` is there (without taking it).
    pub fn has(&self, m: M) -> bool {
        self.list.contains(&m)
    }

    /// Takes `m` if present.
    pub fn take(&mut self, m: M) -> bool {
        match self.list.iter().position(|x| *x == m) {
            Some(i) => {
                self.list.remove(i);
                true
            }
            None => false,
        }
    }

    /// Takes the first of `options` present.
    pub fn one_of(&mut self, options: &[M]) -> Option<M> {
        let found = options.iter().find(|o| self.list.contains(o))?.clone();
        self.take(found.clone());
        Some(found)
    }

    /// Takes every modifier that is one of `options` (hints the simulator has no use for).
    pub fn ignore(&mut self, options: &[M]) {
        self.list.retain(|m| !options.contains(m));
    }

    /// Takes every modifier `keep` says is a hint.
    pub fn ignore_if(&mut self, keep: impl Fn(&M) -> bool) {
        self.list.retain(|m| !keep(m));
    }

    /// Takes the data type modifiers, in order.
    pub fn types(&mut self) -> Vec<DataType> {
        let mut found = Vec::new();
        self.list.retain(|m| match m.data_type() {
            Some(t) => {
                found.push(t);
                false
            }
            None => true,
        });
        found
    }

    /// `Err` naming the modifiers left.
    pub fn finish(self) -> Result<(), String> {
        match self.list.first() {
            None => Ok(()),
            Some(_) => {
                let names: Vec<String> = self.list.iter().map(|m| format!("`.{m}`")).collect();
                Err(format!("unsupported modifier {}", names.join(", ")))
            }
        }
    }
}

/// The `N` operands of `inst`, or an error.
pub(crate) fn operands<const N: usize>(inst: &Instruction) -> Result<&[Operand; N], String> {
    inst.operands
        .as_slice()
        .try_into()
        .map_err(|_| format!("expected {N} operands, found {}", inst.operands.len()))
}

/// An integer type from a PTX type (`.b*`, `.u*`, `.s*`, `.pred`).
pub(crate) fn int_type(t: DataType) -> Option<Int> {
    let (bits, signed) = match t {
        DataType::Pred => (1, false),
        DataType::B8 | DataType::U8 => (8, false),
        DataType::S8 => (8, true),
        DataType::B16 | DataType::U16 => (16, false),
        DataType::S16 => (16, true),
        DataType::B32 | DataType::U32 => (32, false),
        DataType::S32 => (32, true),
        DataType::B64 | DataType::U64 => (64, false),
        DataType::S64 => (64, true),
        _ => return None,
    };
    Some(Int { bits, signed })
}

/// A value type from a PTX type: an integer, `.f32` or `.f64`.
pub(crate) fn value_type(t: DataType) -> Option<Ty> {
    match t {
        DataType::F32 => Some(Ty::F32),
        DataType::F64 => Some(Ty::F64),
        other => int_type(other).map(Ty::Int),
    }
}

/// The type of a value moved as it is (`mov`, `ld`, `st`, `selp`): [`value_type`], and the
/// half-precision types as the bits they are (`.f16`/`.bf16`: 16, `.f16x2`/`.bf16x2`: 32).
pub(crate) fn storage_type(t: DataType) -> Option<Ty> {
    let bits = match t {
        DataType::F16 | DataType::Bf16 => 16,
        DataType::F16x2 | DataType::Bf16x2 => 32,
        other => return value_type(other),
    };
    Some(Ty::Int(Int {
        bits,
        signed: false,
    }))
}

/// What an immediate operand means to its instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Imm {
    /// Integer bits (also `0f` and `0d` float bits, as they are).
    Int,
    /// An `f32`: a decimal or `0d` literal is rounded to the nearest `f32` (the ISA converts a
    /// 64-bit float constant to the instruction's size); `0f` bits are taken as they are.
    F32,
    /// An `f64`: a decimal literal is read as the nearest `f64`, `0d` bits as they are, and `0f`
    /// bits keep their exact single-precision value (the ISA's rule for `0f` constants).
    F64,
}
