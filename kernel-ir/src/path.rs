//! Statement paths: how every error, lint and sanitizer finding names a statement (`body[3].then[1]`).
//!
//! A [`StmtPath`] is built by the walkers (printer, verifier, builder, text parser, analyzer,
//! simulator, emitters) as they descend, printed with `Display`, read back with `FromStr`, and ordered
//! in program order: `body[9]` before `body[10]`, a statement before the statements nested in it,
//! `then` before `else`.

use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;

/// One step of a path: into a named block of a statement (`body`, `then`, `else`) or to the
/// statement at an index of the current block.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Segment {
    /// A named block.
    Block(String),
    /// The statement at this index of the block.
    Index(usize),
}

/// The place of a statement in a kernel: `body[3].then[1]`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct StmtPath {
    segments: Vec<Segment>,
}

impl StmtPath {
    /// The kernel's body, `body`: where every walk starts.
    pub fn body() -> StmtPath {
        StmtPath {
            segments: vec![Segment::Block("body".to_owned())],
        }
    }

    /// Descends to the statement at `index` of the current block.
    pub fn push_index(&mut self, index: usize) {
        self.segments.push(Segment::Index(index));
    }

    /// Descends into the statement's block `name` (`then`, `else`, `body`).
    pub fn push_block(&mut self, name: &str) {
        self.segments.push(Segment::Block(name.to_owned()));
    }

    /// Goes back up one step.
    pub fn pop(&mut self) {
        self.segments.pop();
    }

    /// The steps, outermost first.
    pub fn segments(&self) -> &[Segment] {
        &self.segments
    }

    /// How many statements enclose the one named (its nesting depth): the number of indices.
    pub fn depth(&self) -> usize {
        self.segments
            .iter()
            .filter(|s| matches!(s, Segment::Index(_)))
            .count()
    }
}

impl fmt::Display for StmtPath {
    /// `body[3].then[1]`: a dot before each named block but the first, none before an index.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, segment) in self.segments.iter().enumerate() {
            match segment {
                Segment::Index(n) => write!(f, "[{n}]")?,
                Segment::Block(name) if i == 0 => f.write_str(name)?,
                Segment::Block(name) => write!(f, ".{name}")?,
            }
        }
        Ok(())
    }
}

/// Text that is not a statement path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadPath(pub String);

impl fmt::Display for BadPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` is not a statement path (like `body[3].then[1]`)",
            self.0
        )
    }
}

impl std::error::Error for BadPath {}

impl FromStr for StmtPath {
    type Err = BadPath;

    fn from_str(text: &str) -> Result<StmtPath, BadPath> {
        let bad = || BadPath(text.to_owned());
        let mut segments = Vec::new();
        let mut rest = text;
        while !rest.is_empty() {
            if let Some(after) = rest.strip_prefix('[') {
                let (digits, tail) = after.split_once(']').ok_or_else(bad)?;
                segments.push(Segment::Index(digits.parse().map_err(|_| bad())?));
                rest = tail;
            } else {
                let name_text = if segments.is_empty() {
                    rest
                } else {
                    rest.strip_prefix('.').ok_or_else(bad)?
                };
                let end = name_text.find(['.', '[']).unwrap_or(name_text.len());
                let name = &name_text[..end];
                if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                    return Err(bad());
                }
                segments.push(Segment::Block(name.to_owned()));
                rest = &name_text[end..];
            }
        }
        Ok(StmtPath { segments })
    }
}

/// The order of a statement's blocks in the program: the body, then `then`, then `else`, then any
/// other by name.
fn block_rank(name: &str) -> (u8, &str) {
    match name {
        "body" => (0, ""),
        "then" => (1, ""),
        "else" => (2, ""),
        other => (3, other),
    }
}

impl Ord for StmtPath {
    /// Program order: segment by segment (indices by number; blocks `body`, `then`, `else`, then
    /// others by name); a path before every path it is a prefix of.
    fn cmp(&self, other: &StmtPath) -> Ordering {
        for (a, b) in self.segments.iter().zip(&other.segments) {
            let step = match (a, b) {
                (Segment::Index(x), Segment::Index(y)) => x.cmp(y),
                (Segment::Block(x), Segment::Block(y)) => block_rank(x).cmp(&block_rank(y)),
                (Segment::Block(_), Segment::Index(_)) => Ordering::Less,
                (Segment::Index(_), Segment::Block(_)) => Ordering::Greater,
            };
            if step != Ordering::Equal {
                return step;
            }
        }
        self.segments.len().cmp(&other.segments.len())
    }
}

impl PartialOrd for StmtPath {
    fn partial_cmp(&self, other: &StmtPath) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(text: &str) -> StmtPath {
        text.parse().unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn indices_attach_names_are_dotted_and_text_reads_back() {
        let mut p = StmtPath::body();
        p.push_index(3);
        p.push_block("then");
        p.push_index(1);
        assert_eq!(p.to_string(), "body[3].then[1]");
        assert_eq!(p.depth(), 2);
        assert_eq!(path("body[3].then[1]"), p);
        p.pop();
        p.pop();
        assert_eq!(p.to_string(), "body[3]");
        assert_eq!(StmtPath::default().to_string(), "");
        for bad in [
            "body[",
            "body[x]",
            "body..then",
            "[3",
            "body[3]then",
            "body[-1]",
        ] {
            assert!(bad.parse::<StmtPath>().is_err(), "{bad}");
        }
    }

    #[test]
    fn paths_sort_in_program_order() {
        let mut paths: Vec<StmtPath> = [
            "body[10]",
            "body[2].else[0]",
            "body[9]",
            "body[2].then[1]",
            "body[2]",
            "body[2].then[0]",
        ]
        .map(path)
        .to_vec();
        paths.sort();
        let text: Vec<String> = paths.iter().map(ToString::to_string).collect();
        assert_eq!(
            text,
            [
                "body[2]",
                "body[2].then[0]",
                "body[2].then[1]",
                "body[2].else[0]",
                "body[9]",
                "body[10]"
            ]
        );
    }
}
