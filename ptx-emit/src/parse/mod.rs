//! The PTX front end: PTX text → a typed AST, for the linter, the simulator and the emitter's
//! round-trip tests. It reads what nvcc, NVRTC and Triton emit for `sm_70`–`sm_90` (debug sections,
//! `.loc` lines, call sequences, inline asm scopes, `mma`/`wgmma` fragments) and what
//! [`crate::emit`] prints.
//!
//! The AST keeps syntax, not semantics: an instruction is a guard, an opcode, its dotted modifiers
//! in order and typed operands; nothing checks that `add.u32` has three operands. Every node carries
//! its 1-based line and column ([`Pos`]). Errors ([`ParseError`]) say where, what was expected and
//! what was found; no input makes the parser panic, and nesting is bounded so none exhausts the
//! stack. Comments that stand on lines of their own between module items or between statements are
//! kept ([`ModuleItem::Comment`], [`Statement::Comment`], [`Module::preamble`]); trailing comments
//! and comments inside a construct are dropped.
//!
//! - `lexer`: tokens; `cursor`: looking ahead and reporting; `error`: [`Pos`], [`ParseError`].
//! - `module`: the header and module-scope items; `functions`: `.entry`/`.func`; `directives`:
//!   declarations, `.loc`, `.pragma`, `.file`; `keywords`: types, state spaces, linkage; `instructions`: bodies and instructions;
//!   `operands`: operands; `resolve`: plain names → registers / labels.
//! - `print`: `Display`, which prints PTX that parses back to an equal AST; `positions`: erasing
//!   positions to compare parses.
//!
//! ```
//! use warpforge_ptx::isa::{Modifier, Opcode};
//! use warpforge_ptx::parse::{parse, DataType, OperandKind};
//!
//! let module = parse(
//!     ".version 7.0\n.target sm_80\n.address_size 64\n\
//!      .visible .entry k(.param .u64 out)\n.reqntid 32\n{\n\
//!      .reg .b32 %r<2>;\n\
//!      mov.u32 %r1, %tid.x;\n\
//!      ret;\n}\n",
//! )
//! .unwrap();
//! let k = module.function("k").unwrap();
//! assert_eq!(k.reqntid(), Some([32, 1, 1]));
//! let mov = k.instructions().next().unwrap();
//! assert_eq!(mov.opcode, Opcode::Mov);
//! assert_eq!(mov.modifiers, [Modifier::Type(DataType::U32)]);
//! assert!(matches!(&mov.operands[1].kind, OperandKind::Register(r) if r.to_string() == "%tid.x"));
//! assert_eq!(mov.pos.line, 8);
//! ```

mod cursor;
mod directives;
mod error;
mod functions;
mod instructions;
mod keywords;
mod lexer;
mod literals;
mod module;
mod operands;
mod positions;
mod print;
mod resolve;

pub use cursor::Comment;
pub use directives::{
    Declarator, FileDirective, Initializer, Loc, Param, Pragma, PtrAttributes, VarDecl,
};
pub use error::{ParseError, Pos};
pub use functions::{Function, FunctionDirective, FunctionDirectiveKind, FunctionKind};
pub use instructions::{
    Block, BranchTargets, CallPrototype, Guard, Instruction, Instructions, Label, Statement,
};
pub use keywords::{DataType, Linkage, StateSpace};
pub use literals::{FloatImm, IntImm, Radix};
pub use module::{
    AddressSize, DataDirective, DataValue, Module, ModuleItem, Section, SectionItem, Target,
    Version,
};
pub use operands::{Address, AddressBase, Component, Operand, OperandKind, Register};

/// Parses a whole PTX module.
pub fn parse(src: &str) -> Result<Module, ParseError> {
    let mut cursor = cursor::Cursor::new(src)?;
    module::module(&mut cursor)
}
