//! [`PtxError`]: why a text cannot be linted as PTX, and the check that it is a PTX module at all.

/// Why a text cannot be linted as PTX: it is not PTX, or it is cut short. Names the line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PtxError {
    /// 1-based line.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for PtxError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for PtxError {}

/// Checks that `stmts` look like a whole PTX module: a `.version` directive before anything else, and
/// every statement ended.
/// Refuses text that does not start (after comments) with `.version`: not a PTX module at all.
pub(super) fn check_module(src: &str) -> Result<(), PtxError> {
    let mut rest = src;
    let mut line = 1;
    loop {
        let trimmed = rest.trim_start();
        line += rest[..rest.len() - trimmed.len()].matches('\n').count();
        rest = trimmed;
        if let Some(after) = rest.strip_prefix("//") {
            rest = after.find('\n').map_or("", |k| &after[k..]);
        } else if let Some(after) = rest.strip_prefix("/*") {
            let k = after.find("*/").map_or(after.len(), |k| k + 2);
            line += after[..k.min(after.len())].matches('\n').count();
            rest = &after[k.min(after.len())..];
        } else {
            break;
        }
    }
    if rest.is_empty() {
        return Err(PtxError {
            line: 1,
            message: "not PTX: the file is empty (a PTX module starts with `.version`)".into(),
        });
    }
    if !rest.starts_with(".version") {
        return Err(PtxError {
            line,
            message: format!(
                "not PTX: a PTX module starts with a `.version` directive, this starts with `{}`",
                rest.lines()
                    .next()
                    .unwrap_or_default()
                    .chars()
                    .take(40)
                    .collect::<String>()
            ),
        });
    }
    Ok(())
}
