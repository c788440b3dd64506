//! Source positions in the PTX: the `.file` table and the `.loc` line written before the instructions
//! of each IR statement that has a Rust source position ([`warpforge_ir::SourceLocs`]), so that ptxas,
//! cuda-gdb and Nsight map the machine code back to the Rust line.
//!
//! A `.loc` holds for every instruction after it up to the next one, in text order (that is how ptxas
//! builds the line table). So a `.loc` is written only where the position changes, and an `if` or
//! `loop` writes its own again before the branch that closes it, after its blocks' positions. A
//! kernel without positions gets no `.file` and no `.loc`: its PTX is byte for byte what it was.

use std::collections::BTreeMap;

use warpforge_ir::{Kernel, StmtPath};

use crate::ast::{ptx_file_name, Line};

/// Tracks the statement path during the walk and decides where `.loc` lines go.
pub(super) struct SourceLines<'k> {
    kernel: &'k Kernel,
    /// The `.file` index (from 1) of each file, `None` when the kernel has no positions.
    files: Option<BTreeMap<&'k str, u32>>,
    /// The path of the statement being lowered (`body`, `[3]`, `then`, …).
    path: StmtPath,
    /// The last `.loc` written: (file, line, column).
    last: Option<(u32, u32, u32)>,
}

impl<'k> SourceLines<'k> {
    pub(super) fn new(kernel: &'k Kernel) -> Self {
        let files = (!kernel.locs.is_empty()).then(|| {
            let names = kernel.locs.files();
            names.into_iter().zip(1..).collect()
        });
        SourceLines {
            kernel,
            files,
            path: StmtPath::body(),
            last: None,
        }
    }

    /// The `.file` table: names in index order, made to fit PTX.
    pub(super) fn file_table(&self) -> Vec<String> {
        self.files
            .iter()
            .flatten()
            .map(|(name, _)| ptx_file_name(name))
            .collect()
    }

    /// Enters the statement at `index` of the current block; a no-op without positions.
    pub(super) fn push_index(&mut self, index: usize) {
        if self.files.is_some() {
            self.path.push_index(index);
        }
    }

    /// Enters the block `name` (`then`, `else`, `loop`); a no-op without positions.
    pub(super) fn push_block(&mut self, name: &str) {
        if self.files.is_some() {
            self.path.push_block(name);
        }
    }

    /// Leaves the segment entered last.
    pub(super) fn pop(&mut self) {
        if self.files.is_some() {
            self.path.pop();
        }
    }

    /// The `.loc` to write before more instructions of the current statement, if its position differs
    /// from the one in force.
    pub(super) fn mark(&mut self) -> Option<Line> {
        let files = self.files.as_ref()?;
        let loc = self.kernel.locs.get(&self.path.to_string())?;
        let file = *files.get(&*loc.file)?;
        let here = (file, loc.line, loc.column);
        if self.last == Some(here) {
            return None;
        }
        self.last = Some(here);
        Some(Line::Loc {
            file,
            line: loc.line,
            column: loc.column,
        })
    }
}
