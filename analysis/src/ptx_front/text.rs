//! A statement of the module as the lowering reads it (the parser's printing of one node, or an
//! instruction's parts; see `ast`).

use warpforge_ptx::isa::{Modifier, Opcode};

/// A statement of the source: its text (without `;`) and where it starts; an instruction also in
/// parts.
pub(super) struct Stmt {
    pub(super) text: String,
    pub(super) line: usize,
    pub(super) col: usize,
    pub(super) inst: Option<Box<Parsed>>,
    /// For a `.loc` line: its file index, line and column.
    pub(super) loc: Option<(u32, u32, u32)>,
}

/// An instruction in the parts the lowering reads.
pub(super) struct Parsed {
    /// The guard predicate's register and whether it is negated (`@!%p`).
    pub(super) guard: Option<(String, bool)>,
    /// The opcode (`ld`).
    pub(super) opcode: Opcode,
    /// Its modifiers, in order (`shared::cta`, `v4`, `u32`).
    pub(super) mods: Vec<Modifier>,
    /// The operands as PTX text.
    pub(super) ops: Vec<String>,
}
