//! Why a PTX entry cannot be loaded ([`PtxError`]).

use std::fmt;

/// Why a PTX entry cannot be loaded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PtxError {
    /// The text is not PTX the parser reads (`line:column: message`).
    Parse(String),
    /// The module has no `.entry` of that name.
    NoEntry {
        /// The name asked for.
        entry: String,
        /// The entries the module has.
        entries: Vec<String>,
    },
    /// An instruction, modifier or declaration the simulator does not implement.
    Unsupported {
        /// Its PTX line.
        line: u32,
        /// The instruction (or declaration) as written.
        text: String,
        /// What is not supported.
        message: String,
    },
}

impl fmt::Display for PtxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PtxError::Parse(m) => write!(f, "not valid PTX: {m}"),
            PtxError::NoEntry { entry, entries } if entries.is_empty() => {
                write!(f, "no entry `{entry}`: the module has no `.entry`")
            }
            PtxError::NoEntry { entry, entries } => write!(
                f,
                "no entry `{entry}`; the module's entries: {}",
                entries.join(", ")
            ),
            PtxError::Unsupported {
                line,
                text,
                message,
            } => write!(
                f,
                "line {line}: `{text}`: {message} (not supported by the PTX simulator)"
            ),
        }
    }
}

impl std::error::Error for PtxError {}
