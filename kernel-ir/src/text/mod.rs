//! The text form (`.wfir`): a deterministic printer (`Display` on [`crate::Kernel`]) and its parser.
//!
//! print → parse → print is the identity for every verified kernel; fixtures, snapshots and the CLI use
//! this form.

pub mod keywords;
mod lexer;
mod lines;
mod parse;
mod parse_values;
mod print;

pub use lines::{locate_in_printed_text, statement_lines};
pub use parse::parse_kernel;

use std::fmt;

/// How deep `if`/`loop` blocks may nest in the text form: deeper input is refused with its line, so
/// hostile text cannot exhaust the stack of the parser, the verifier or anything after them. Kernels
/// built in Rust are not limited.
pub const MAX_NESTING: usize = 128;

/// A syntax or naming error in the text form, with its 1-based line and column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// Line of the offending token.
    pub line: usize,
    /// Column of the offending token.
    pub col: usize,
    /// What was expected and what was found.
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}, column {}: {}",
            self.line, self.col, self.message
        )
    }
}

impl std::error::Error for ParseError {}

impl std::str::FromStr for crate::Kernel {
    type Err = ParseError;
    fn from_str(src: &str) -> Result<Self, ParseError> {
        parse_kernel(src)
    }
}
