//! Source positions and the one error type of the PTX parser.

use std::fmt;

/// A 1-based line and column (columns count characters, a tab is one) in the parsed text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Pos {
    /// Line, from 1.
    pub line: u32,
    /// Column, from 1.
    pub column: u32,
}

impl Pos {
    /// The position at `line`, `column`.
    pub fn new(line: u32, column: u32) -> Pos {
        Pos { line, column }
    }
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}, column {}", self.line, self.column)
    }
}

/// Why a text is not PTX the parser accepts: where, and what was expected and found there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// The line of the offending token, from 1.
    pub line: u32,
    /// Its column, from 1.
    pub column: u32,
    /// What was expected and what was found (`expected `]` to close the address, found end of file`).
    pub message: String,
}

impl ParseError {
    /// An error at `pos`.
    pub fn new(pos: Pos, message: impl Into<String>) -> ParseError {
        ParseError {
            line: pos.line,
            column: pos.column,
            message: message.into(),
        }
    }

    /// Where the error is.
    pub fn pos(&self) -> Pos {
        Pos::new(self.line, self.column)
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "PTX parse error at line {}, column {}: {}",
            self.line, self.column, self.message
        )
    }
}

impl std::error::Error for ParseError {}
