//! The decoded form of memory operands and of calls' arguments: state spaces, addresses, atomic
//! operations, and where a call's argument or return value is copied from or to.

use super::inst_types::R;

/// A state space of a memory instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MemSpace {
    Global,
    Shared,
    Local,
    Param,
    Const,
    /// A generic address: the shared or local window, or global memory.
    Generic,
}

impl MemSpace {
    /// The name in PTX (`generic` for none).
    pub fn name(self) -> &'static str {
        match self {
            MemSpace::Global => "global",
            MemSpace::Shared => "shared",
            MemSpace::Local => "local",
            MemSpace::Param => "param",
            MemSpace::Const => "const",
            MemSpace::Generic => "generic",
        }
    }
}

/// An address operand `[reg+offset]` (`base` is `None` for `[symbol+offset]` and `[offset]`, whose
/// symbol is folded into `offset`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Addr {
    pub base: Option<R>,
    pub offset: i64,
}

/// Atomic operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AtomOp {
    Add,
    AddF32,
    AddF64,
    Min,
    Max,
    And,
    Or,
    Xor,
    Exch,
    Cas,
    Inc,
    Dec,
}

/// Where a call's argument comes from (or a return value goes): a `.param` variable of the
/// caller's frame (its offset there), or a register (an immediate is a constant register).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Slot {
    Frame(u32),
    Reg(R),
}

/// One argument (or return value) of a call: the caller's side, the offset of the parameter in the
/// callee's frame, and its bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CallArg {
    pub caller: Slot,
    pub callee: u32,
    pub size: u32,
}
