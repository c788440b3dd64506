//! The end of a run: the `--out` files written, the report printed, the exit status.

use std::path::PathBuf;

use super::args::{RunArgs, RunFormat};
use super::buffer::Buffer;
use super::failure::Failure;
use super::profile;
use super::report::{json, print_text, Outcome, Ran};

/// Writes the `--out` buffers, prints the report in the asked format, and gives the exit status
/// (0 clean, 1 with findings or a file that could not be written).
pub(super) fn finish(
    args: &RunArgs,
    ran: &Ran<'_>,
    mut outcome: Outcome,
    buffers: &[Buffer],
    outs: Vec<(usize, PathBuf)>,
    clean: bool,
) -> Result<i32, Failure> {
    let mut write_errors = Vec::new();
    for (index, path) in outs {
        let Buffer { name, bytes, .. } = &buffers[index];
        match std::fs::write(&path, bytes) {
            Ok(()) => outcome.written.push((name.clone(), path, bytes.len())),
            Err(e) => write_errors.push(format!("cannot write {}: {e}", path.display())),
        }
    }
    let stats = args.stats.then_some(outcome.report.as_ref()).flatten();
    let blocks = u32::try_from(args.grid.count()).unwrap_or(u32::MAX);
    let profile = outcome.profile.as_ref().zip(outcome.report.as_ref());
    match args.format {
        RunFormat::Text => {
            print_text(ran, blocks, &outcome, stats, clean);
            if let Some((source, report)) = profile {
                print!("\n{}", profile::text(source, &report.profile, blocks));
            }
        }
        RunFormat::Json => {
            let profile = profile.map(|(source, report)| profile::json(source, &report.profile));
            println!("{}", json(ran, blocks, &outcome, stats, profile, clean));
        }
    }
    if !write_errors.is_empty() {
        return Err(Failure(1, write_errors));
    }
    Ok(if clean { 0 } else { 1 })
}
