//! Entry points of the linter and the rendering of its findings as text or JSON.

use std::fmt::Write as _;

use warpforge_ir::Verified;

pub use crate::ptx_front::PtxError;
use crate::rules::{check, Diagnostic, Severity};

/// Lints a verified kernel.
pub fn lint_kernel(kernel: &Verified<'_>) -> Vec<Diagnostic> {
    check(&crate::ir_front::program_of(kernel))
}

/// Lints every `.entry` of a PTX module; `Err` (naming the line) when the text is not PTX or is cut
/// short. An entry without `.reqntid` is assumed to have a block x-dimension that is a multiple of 32
/// (see [`lint_ptx_with`]).
pub fn lint_ptx(source: &str) -> Result<Vec<Diagnostic>, PtxError> {
    lint_ptx_with(source, true)
}

/// [`lint_ptx`], saying whether entries without `.reqntid` may be assumed to have a block x-dimension
/// that is a multiple of 32 (then `%tid.x / 32` and `%tid.x < 32·k` are warp-uniform).
pub fn lint_ptx_with(source: &str, assume_warp_aligned: bool) -> Result<Vec<Diagnostic>, PtxError> {
    let lowering = crate::ptx_front::Lowering::of(source)?;
    Ok(check_all(lowering.entries(), |k| {
        check(&lowering.lower(k, assume_warp_aligned))
    }))
}

/// The findings of entries `0..n` (`one` lowers and checks an entry), in entry order; a module with
/// many entries is checked on every core (rayon; each entry is analysed on its own).
fn check_all(n: usize, one: impl Fn(usize) -> Vec<Diagnostic> + Sync) -> Vec<Diagnostic> {
    use rayon::prelude::*;
    // Below 8 entries the threads cost more than they save.
    if n < 8 {
        return (0..n).flat_map(&one).collect();
    }
    (0..n).into_par_iter().flat_map_iter(&one).collect()
}

/// Whether any finding is an error.
pub fn has_errors(diags: &[Diagnostic]) -> bool {
    diags.iter().any(|d| d.severity == Severity::Error)
}

/// `file: severity[ID name] kernel `k`, location: message` and its causes, one finding per paragraph.
pub fn render_text(file: &str, diags: &[Diagnostic]) -> String {
    let mut out = String::new();
    for d in diags {
        let _ = writeln!(
            out,
            "{file}: {}[{} {}] kernel `{}`, {}: {}",
            d.severity, d.rule, d.name, d.kernel, d.location, d.message
        );
        for cause in &d.causes {
            let _ = writeln!(out, "    because {cause}");
        }
        if !d.also.is_empty() {
            let places: Vec<String> = d.also.iter().map(ToString::to_string).collect();
            let _ = writeln!(
                out,
                "    the same at {} more place(s): {}",
                d.also.len(),
                places.join("; ")
            );
        }
    }
    out
}

/// `s` as a JSON string literal.
pub(crate) fn json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// One JSON object per finding, in an array.
pub fn render_json(file: &str, diags: &[Diagnostic]) -> String {
    let items: Vec<String> = diags
        .iter()
        .map(|d| {
            let location = json_location(&d.location);
            let causes: Vec<String> = d.causes.iter().map(|c| json_string(c)).collect();
            let also: Vec<String> = d.also.iter().map(json_location).collect();
            format!(
                "{{\"file\": {}, \"rule\": {}, \"name\": {}, \"severity\": {}, \"kernel\": {}, \"location\": {location}, \"message\": {}, \"causes\": [{}], \"also\": [{}]}}",
                json_string(file),
                json_string(d.rule),
                json_string(d.name),
                json_string(&d.severity.to_string()),
                json_string(&d.kernel),
                json_string(&d.message),
                causes.join(", "),
                also.join(", ")
            )
        })
        .collect();
    format!("[{}]\n", items.join(",\n "))
}

/// A location as a JSON object: `{"line": L, "column": C}` or `{"statement": "body[3]"}`.
fn json_location(l: &crate::program::Location) -> String {
    match l {
        crate::program::Location::Ir(path) => format!("{{\"statement\": {}}}", json_string(path)),
        crate::program::Location::Ptx { line, col } => {
            format!("{{\"line\": {line}, \"column\": {col}}}")
        }
    }
}
