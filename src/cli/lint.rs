//! `warpforge lint`: the hazard lints on the repository's kernels, `.wfir` files and PTX files.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use warpforge::analysis::program::Location;
use warpforge::analysis::{Diagnostic, Severity};
use warpforge::catalog;
use warpforge::ir::{parse_kernel, verify};

use super::accepted::{Accepted, Site};

/// `warpforge lint`'s arguments.
#[derive(Args, Debug)]
pub struct LintArgs {
    /// A kernel of the repository (repeatable). With no kernel and no file: every kernel.
    #[arg(long = "kernel")]
    kernels: Vec<String>,
    /// `.wfir` or `.ptx` files.
    files: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = LintFormat::Text)]
    format: LintFormat,
    /// Print every rule's explanation and exit.
    #[arg(long)]
    explain: bool,
    /// Do not assume that a PTX entry without `.reqntid` runs blocks whose x-dimension is a
    /// multiple of 32 (the assumption makes `%tid.x / 32` and `%tid.x < 32·k` warp-uniform).
    #[arg(long)]
    no_assume_warp_aligned_blocks: bool,
    /// Threads per block, X[,Y[,Z]], of every launch of a PTX entry without `.reqntid`: the entry
    /// is linted as if it declared `.reqntid X, Y, Z` (races, bounds and uniformity for that
    /// block instead of every block size CUDA allows; Y and Z default to 1).
    #[arg(long, value_name = "X[,Y[,Z]]", value_parser = parse_block)]
    block: Option<[u32; 3]>,
    /// A file of accepted findings (`RULE KERNEL line:N|STATEMENT|*` a line): each one found is
    /// printed as an accepted note and does not fail the lint; an entry that matches nothing is
    /// said on stderr.
    #[arg(long, value_name = "FILE")]
    accept: Option<PathBuf>,
}

/// `--block X[,Y[,Z]]`: a block shape CUDA allows (each dimension at least 1, at most 1,024
/// threads in all, at most 64 in z).
fn parse_block(text: &str) -> Result<[u32; 3], String> {
    let parts: Vec<&str> = text.split(',').collect();
    if parts.len() > 3 {
        return Err(format!(
            "`{text}`: a block is X[,Y[,Z]], at most three numbers"
        ));
    }
    let mut dims = [1u32; 3];
    for (d, part) in dims.iter_mut().zip(&parts) {
        *d = part
            .trim()
            .parse()
            .map_err(|_| format!("`{part}` in `{text}` is not a number of threads"))?;
        if *d == 0 {
            return Err(format!("`{text}`: each dimension of a block is at least 1"));
        }
    }
    let [x, y, z] = dims;
    let threads = u64::from(x) * u64::from(y) * u64::from(z);
    if threads > 1024 || z > 64 {
        return Err(format!(
            "`{text}`: a block has at most 1,024 threads ({threads} here) and at most 64 in z"
        ));
    }
    Ok(dims)
}

/// Lints and exits with the lint's status.
pub fn run(args: LintArgs) -> Result<()> {
    if args.explain {
        for rule in warpforge::analysis::Rule::ALL {
            println!("{} {}\n    {}\n", rule, rule.name(), rule.explanation());
        }
        return Ok(());
    }
    let assume = warpforge::analysis::PtxAssumptions {
        warp_aligned: !args.no_assume_warp_aligned_blocks,
        block: args.block.map(|[x, _, _]| x),
        block_yz: args.block.map(|[_, y, z]| [y, z]),
        ..Default::default()
    };
    let mut accepted = match &args.accept {
        None => None,
        Some(path) => match Accepted::load(path) {
            Ok(a) => Some(a),
            Err(errors) => {
                for e in errors {
                    eprintln!("error: {e}");
                }
                std::process::exit(2);
            }
        },
    };
    match lint(
        &args.kernels,
        &args.files,
        args.format,
        &assume,
        accepted.as_mut(),
    )? {
        0 => Ok(()),
        code => std::process::exit(i32::from(code)),
    }
}

/// `lint --format` values.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum LintFormat {
    /// Human-readable.
    Text,
    /// One JSON array of findings.
    Json,
    /// SARIF 2.1.0, for code-scanning tools (GitHub code scanning, SARIF viewers).
    Sarif,
}

/// Lints; the exit status: 0 clean, 1 an error-level finding, 2 a file that is not PTX or is cut short.
fn lint(
    kernels: &[String],
    files: &[PathBuf],
    format: LintFormat,
    assume: &warpforge::analysis::PtxAssumptions,
    accepted: Option<&mut Accepted>,
) -> Result<u8> {
    use warpforge::analysis::{has_errors, lint_kernel, lint_ptx_assuming, render_text};
    let mut all: Vec<(String, Vec<Diagnostic>)> = Vec::new();
    let names: Vec<String> = if kernels.is_empty() && files.is_empty() {
        catalog::entries()
            .iter()
            .map(|e| e.name.to_owned())
            .collect()
    } else {
        kernels.to_vec()
    };
    for name in &names {
        let kernel = catalog::find(name).map_err(anyhow::Error::msg)?.build();
        all.push((format!("kernel {name}"), lint_kernel(&verify(&kernel)?)));
    }
    let mut bad_input = false;
    for file in files {
        let text = std::fs::read_to_string(file)
            .with_context(|| format!("cannot read {}", file.display()))?;
        let diags = if file.extension().is_some_and(|e| e == "ptx") {
            match lint_ptx_assuming(&text, assume) {
                Ok(diags) => diags,
                Err(e) => {
                    // Not PTX, or cut short: said with the line, the other files still linted, exit 2.
                    eprintln!("error: {}:{}: {}", file.display(), e.line, e.message);
                    bad_input = true;
                    continue;
                }
            }
        } else {
            let kernel = parse_kernel(&text)
                .with_context(|| format!("{}: not a valid .wfir kernel", file.display()))?;
            lint_kernel(&verify(&kernel).with_context(|| format!("{}", file.display()))?)
        };
        all.push((file.display().to_string(), diags));
    }
    if let Some(accepted) = accepted {
        for (_, diags) in &mut all {
            accept(accepted, diags);
        }
        for line in accepted.unused() {
            eprintln!("warning: {line}");
        }
    }
    let errors = all.iter().any(|(_, d)| has_errors(d));
    match format {
        LintFormat::Text => {
            for (source, diags) in &all {
                print!("{}", render_text(source, diags));
            }
            let count = |s| {
                all.iter()
                    .flat_map(|(_, d)| d)
                    .filter(|d| d.severity == s)
                    .count()
            };
            eprintln!(
                "{} errors, {} warnings, {} notes",
                count(Severity::Error),
                count(Severity::Warning),
                count(Severity::Note)
            );
        }
        LintFormat::Json => print!("{}", warpforge::analysis::render_json_all(&all)),
        LintFormat::Sarif => print!(
            "{}",
            warpforge::analysis::render_sarif(&all, env!("CARGO_PKG_VERSION"))
        ),
    }
    Ok(if bad_input { 2 } else { u8::from(errors) })
}

/// Marks each finding of `diags` that `accepted` names: a note saying where it was accepted, so it
/// is still seen and no longer fails the lint.
fn accept(accepted: &mut Accepted, diags: &mut [Diagnostic]) {
    for d in diags.iter_mut() {
        let site = match &d.location {
            Location::Ptx { line, .. } => Site::Line(*line as u32),
            Location::Ir(path) => Site::Statement(path.clone()),
        };
        let code = d.rule.to_string();
        let rules = [code.as_str(), d.rule.name()];
        if let Some(at) = accepted.accepts(&rules, &d.kernel, &site) {
            d.message = format!("accepted ({at}, was {}): {}", d.severity, d.message);
            d.severity = Severity::Note;
        }
    }
}
