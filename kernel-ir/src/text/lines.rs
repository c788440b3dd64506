//! Which statement each line of the text form shows: the map from a statement's path (as the
//! verifier, the simulator's findings and its profile name it, `body[3].then[1]`) to its line in
//! [`crate::Kernel`]'s `Display` output. It walks the statements in the printer's order, so the two
//! cannot disagree (a test prints and checks every sample kernel).

use crate::kernel::Kernel;
use crate::loc::SourceLoc;
use crate::path::StmtPath;
use crate::stmt::{Block, Stmt};

/// For each line of `kernel.to_string()` (0-based index), the path of the statement it shows:
/// `None` for the header, declarations and closing braces; an `if`'s `} else {` line has the `if`'s.
pub fn statement_lines(kernel: &Kernel) -> Vec<Option<String>> {
    let header = 2
        + kernel.params.iter().count()
        + kernel.shared.iter().count()
        + kernel.locals.iter().count();
    let mut lines = vec![None; header];
    let mut path = StmtPath::body();
    walk(&kernel.body, &mut path, &mut lines);
    lines.push(None); // the kernel's closing brace
    lines
}

/// Gives every statement of `kernel` that has no source position the position of its line in
/// `kernel.to_string()`, as if that text were the file `file`: 1-based line, column where the statement
/// starts (after the indentation). For kernels read from `.wfir` text, so that findings and the PTX
/// `.loc` lines name the `.wfir` line; also what tests use to put a position on every statement.
pub fn locate_in_printed_text(kernel: &mut Kernel, file: &str) {
    for (i, path) in statement_lines(kernel).into_iter().enumerate() {
        // The first line of a statement (an `if`'s `} else {` line has its path too).
        let Some(path) = path.filter(|p| kernel.locs.get(p).is_none()) else {
            continue;
        };
        // Indented 4 spaces per enclosing block: one block per `[` of the path.
        let depth = u32::try_from(path.matches('[').count()).unwrap_or(u32::MAX);
        let line = u32::try_from(i + 1).unwrap_or(u32::MAX);
        let column = depth.saturating_mul(4).saturating_add(1);
        kernel.locs.insert(path, SourceLoc::new(file, line, column));
    }
}

fn walk(block: &Block, path: &mut StmtPath, lines: &mut Vec<Option<String>>) {
    for (i, stmt) in block.iter().enumerate() {
        path.push_index(i);
        let here = path.to_string();
        lines.push(Some(here.clone()));
        match stmt {
            Stmt::If {
                then_block,
                else_block,
                ..
            } => {
                nested("then", then_block, path, lines);
                if !else_block.is_empty() {
                    lines.push(Some(here));
                    nested("else", else_block, path, lines);
                }
                lines.push(None);
            }
            Stmt::Loop { body } => {
                nested("loop", body, path, lines);
                lines.push(None);
            }
            _ => {}
        }
        path.pop();
    }
}

fn nested(name: &str, block: &Block, path: &mut StmtPath, lines: &mut Vec<Option<String>>) {
    path.push_block(name);
    walk(block, path, lines);
    path.pop();
}
