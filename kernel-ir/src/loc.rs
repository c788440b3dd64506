//! Source positions: the Rust file, line and column a statement came from (`src/saxpy.rs:12:9`).
//!
//! Kernels written as `#[warpforge::kernel]` Rust functions record where each statement came from, so
//! that the verifier's, the linter's and the sanitizer's messages and the PTX `.loc` lines can name the
//! Rust line. Positions live in a side table of the [`crate::Kernel`], [`SourceLocs`], keyed by the
//! statement's path (`body[3].then[1]`, as [`crate::StmtPath`] prints it): the statements themselves
//! are unchanged, and a kernel without positions (built by hand, generated, or parsed from text without
//! `@` annotations) compares equal to one that never had any.
//!
//! ```
//! use warpforge_ir::builder::{KernelBuilder, U32};
//! use warpforge_ir::Access;
//!
//! let mut b = KernelBuilder::new("k", 32);
//! let data = b.buffer::<U32>("data", Access::ReadWrite);
//! b.set_loc("src/k.rs", 4, 5);
//! let i = b.thread_index();
//! b.set_loc("src/k.rs", 5, 5);
//! b.store(data, i, i);
//! let kernel = b.finish().unwrap();
//! assert_eq!(kernel.locs.get("body[1]").unwrap().to_string(), "src/k.rs:5:5");
//! ```

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use crate::path::{Segment, StmtPath};

/// Where a statement came from: a file (as the Rust compiler names it, e.g. `src/saxpy.rs`), a 1-based
/// line and a 1-based column. Displays as `file:line:column`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SourceLoc {
    /// The file, shared between the statements of one kernel.
    pub file: Arc<str>,
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub column: u32,
}

impl SourceLoc {
    /// A position in `file`.
    pub fn new(file: &str, line: u32, column: u32) -> Self {
        SourceLoc {
            file: Arc::from(file),
            line,
            column,
        }
    }
}

impl fmt::Display for SourceLoc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

/// The statements' source positions, by statement path (`body[3].then[1]`). Iterates in path-text
/// order, so anything printed from it is deterministic. Empty for kernels without positions.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct SourceLocs {
    by_path: BTreeMap<String, SourceLoc>,
}

impl SourceLocs {
    /// The position of the statement at `path`, if one was recorded.
    pub fn get(&self, path: &str) -> Option<&SourceLoc> {
        self.by_path.get(path)
    }

    /// Records (or replaces) the position of the statement at `path`.
    pub fn insert(&mut self, path: String, loc: SourceLoc) {
        self.by_path.insert(path, loc);
    }

    /// Forgets the position of the statement at `path`.
    pub fn remove(&mut self, path: &str) -> Option<SourceLoc> {
        self.by_path.remove(path)
    }

    /// Moves every position down by `n` top-level statements (`body[k]…` becomes `body[k + n]…`):
    /// for statements put in front of the body.
    pub fn shift_body(&mut self, n: usize) {
        let shift = |path: &str| {
            let old = path.parse::<StmtPath>().ok()?;
            let [_, Segment::Index(k), rest @ ..] = old.segments() else {
                return None;
            };
            let mut moved = StmtPath::body();
            moved.push_index(k + n);
            for segment in rest {
                match segment {
                    Segment::Index(i) => moved.push_index(*i),
                    Segment::Block(name) => moved.push_block(name),
                }
            }
            Some(moved.to_string())
        };
        self.by_path = std::mem::take(&mut self.by_path)
            .into_iter()
            .map(|(path, loc)| (shift(&path).unwrap_or(path), loc))
            .collect();
    }

    /// Whether no position is recorded.
    pub fn is_empty(&self) -> bool {
        self.by_path.is_empty()
    }

    /// How many statements have a position.
    pub fn len(&self) -> usize {
        self.by_path.len()
    }

    /// Every (path, position), in path-text order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &SourceLoc)> {
        self.by_path.iter().map(|(p, l)| (p.as_str(), l))
    }

    /// The distinct files, in name order (what a PTX `.file` table lists).
    pub fn files(&self) -> Vec<&str> {
        let mut files: Vec<&str> = self.by_path.values().map(|l| &*l.file).collect();
        files.sort_unstable();
        files.dedup();
        files
    }

    /// `path` followed by ` (file:line:column)` when the statement has a position: how messages name
    /// a statement.
    pub fn describe(&self, path: &str) -> String {
        match self.get(path) {
            Some(loc) => format!("{path} ({loc})"),
            None => path.to_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{SourceLoc, SourceLocs};

    #[test]
    fn describe_names_the_position_beside_the_path() {
        let mut locs = SourceLocs::default();
        assert_eq!(locs.describe("body[1]"), "body[1]");
        locs.insert("body[1]".into(), SourceLoc::new("src/saxpy.rs", 12, 9));
        locs.insert("body[0]".into(), SourceLoc::new("src/a.rs", 3, 1));
        locs.insert("body[2]".into(), SourceLoc::new("src/a.rs", 4, 1));
        assert_eq!(locs.describe("body[1]"), "body[1] (src/saxpy.rs:12:9)");
        assert_eq!(locs.files(), ["src/a.rs", "src/saxpy.rs"]);
        assert_eq!(locs.len(), 3);
        assert_eq!(locs.remove("body[2]").map(|l| l.line), Some(4));
    }
}
