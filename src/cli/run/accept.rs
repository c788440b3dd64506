//! `run --accept FILE`: sanitizer findings a team accepts (see `cli/accepted.rs` for the file) are
//! taken out of the report, said on stderr with the entry that accepts them, and do not fail the
//! run. A finding that stopped a block still leaves the run unclean: its outputs are incomplete.

use std::path::Path;

use warpforge::runtime::sim::ProfileSite;

use super::failure::Failure;
use super::report::Outcome;
use crate::cli::accepted::{Accepted, Site};

/// Applies the accepted findings of `path` to `outcome`'s report of kernel `kernel`.
pub(super) fn apply(path: &Path, kernel: &str, outcome: &mut Outcome) -> Result<(), Failure> {
    let mut accepted = Accepted::load(path).map_err(|errors| Failure(2, errors))?;
    if let Some(report) = outcome.report.as_mut() {
        report.findings.retain(|f| {
            let site = match &f.site {
                ProfileSite::Line(n) => Site::Line(*n),
                ProfileSite::Statement(path) => Site::Statement(path.clone()),
            };
            match accepted.accepts(&[f.kind.name()], kernel, &site) {
                Some(at) => {
                    eprintln!("accepted ({at}): {f}");
                    false
                }
                None => true,
            }
        });
    }
    for line in accepted.unused() {
        eprintln!("warning: {line}");
    }
    Ok(())
}
