//! Entry points of the linter and the rendering of its findings as text or JSON (serde).

use std::fmt::Write as _;

use serde::Serialize;
use warpforge_ir::Verified;

pub use crate::assumptions::PtxAssumptions;
use crate::program::Location;
pub use crate::ptx_front::PtxError;
#[cfg(test)]
use crate::rules::Rule;
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
    let assume = PtxAssumptions {
        warp_aligned: assume_warp_aligned,
        ..PtxAssumptions::default()
    };
    lint_ptx_assuming(source, &assume)
}

/// [`lint_ptx`] with explicit [`PtxAssumptions`] about the launches.
pub fn lint_ptx_assuming(
    source: &str,
    assume: &PtxAssumptions,
) -> Result<Vec<Diagnostic>, PtxError> {
    let lowering = crate::ptx_front::lowering::Lowering::of(source)?;
    Ok(check_all(lowering.entries(), |k| {
        check(&lowering.lower(k, assume))
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
        let source = d
            .source
            .as_ref()
            .map_or(String::new(), |s| format!(" ({s})"));
        let _ = writeln!(
            out,
            "{file}: {}[{} {}] kernel `{}`, {}{source}: {}",
            d.severity,
            d.rule,
            d.rule.name(),
            d.kernel,
            d.location,
            d.message
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

/// One finding as JSON (`warpforge lint --format json`).
#[derive(Serialize)]
struct FindingJson<'a> {
    file: &'a str,
    rule: &'static str,
    name: &'static str,
    severity: Severity,
    kernel: &'a str,
    location: LocationJson<'a>,
    /// `file:line:column` in the kernel's source, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    source: Option<String>,
    message: &'a str,
    causes: &'a [String],
    also: Vec<LocationJson<'a>>,
}

/// A location as JSON: `{"line": L, "column": C}` or `{"statement": "body[3]"}`.
#[derive(Serialize)]
#[serde(untagged)]
enum LocationJson<'a> {
    Statement { statement: &'a str },
    Line { line: usize, column: usize },
}

impl<'a> From<&'a Location> for LocationJson<'a> {
    fn from(l: &'a Location) -> Self {
        match l {
            Location::Ir(path) => LocationJson::Statement { statement: path },
            Location::Ptx { line, col } => LocationJson::Line {
                line: *line,
                column: *col,
            },
        }
    }
}

fn findings_json<'a>(
    file: &'a str,
    diags: &'a [Diagnostic],
) -> impl Iterator<Item = FindingJson<'a>> + 'a {
    diags.iter().map(move |d| FindingJson {
        file,
        rule: d.rule.code(),
        name: d.rule.name(),
        severity: d.severity,
        kernel: &d.kernel,
        location: (&d.location).into(),
        source: d.source.as_ref().map(ToString::to_string),
        message: &d.message,
        causes: &d.causes,
        also: d.also.iter().map(LocationJson::from).collect(),
    })
}

/// One JSON object per finding, in an array (indented, with a final newline).
pub fn render_json(file: &str, diags: &[Diagnostic]) -> String {
    let findings: Vec<FindingJson<'_>> = findings_json(file, diags).collect();
    serde_json::to_string_pretty(&findings).expect("plain data serializes") + "\n"
}

/// [`render_json`] for the findings of every source (`(source, findings)`, as for
/// [`crate::render_sarif`]) in one array.
pub fn render_json_all(sources: &[(String, Vec<Diagnostic>)]) -> String {
    let findings: Vec<FindingJson<'_>> = (sources.iter())
        .flat_map(|(source, diags)| findings_json(source, diags))
        .collect();
    serde_json::to_string_pretty(&findings).expect("plain data serializes") + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diagnostic(location: Location, message: &str) -> Diagnostic {
        Diagnostic {
            rule: Rule::S001,
            severity: Severity::Warning,
            kernel: "k".into(),
            location,
            source: None,
            message: message.into(),
            causes: vec!["a \"cause\"".into()],
            also: vec![Location::Ptx { line: 7, col: 2 }],
        }
    }

    #[test]
    fn json_findings_keep_their_keys_and_escape_strings() {
        let diags = [diagnostic(Location::Ptx { line: 3, col: 9 }, "tab\there\n")];
        let json = render_json("dir\\a.ptx", &diags);
        assert!(json.ends_with("]\n"), "{json}");
        let compact: serde_json::Value = serde_json::from_str(&json).expect("valid JSON");
        assert_eq!(
            serde_json::to_string(&compact).expect("serializes"),
            r#"[{"also":[{"column":2,"line":7}],"causes":["a \"cause\""],"file":"dir\\a.ptx","kernel":"k","location":{"column":9,"line":3},"message":"tab\there\n","name":"shared-bounds","rule":"S001","severity":"warning"}]"#
        );
        let order: Vec<usize> = [
            "file", "rule", "name", "severity", "kernel", "location", "message", "causes", "also",
        ]
        .iter()
        .map(|k| json.find(&format!("\"{k}\":")).expect("key"))
        .collect();
        assert!(order.windows(2).all(|w| w[0] < w[1]), "{json}");
    }

    #[test]
    fn json_of_every_source_is_one_array() {
        let sources = vec![
            ("a.ptx".to_owned(), vec![]),
            (
                "kernel k".to_owned(),
                vec![diagnostic(Location::Ir("body[3]".into()), "m")],
            ),
            (
                "b.wfir".to_owned(),
                vec![diagnostic(Location::Ir("body[1]".into()), "n")],
            ),
        ];
        let json: serde_json::Value =
            serde_json::from_str(&render_json_all(&sources)).expect("valid JSON");
        let files: Vec<&str> = (json.as_array().expect("an array").iter())
            .map(|f| f["file"].as_str().expect("file"))
            .collect();
        assert_eq!(files, ["kernel k", "b.wfir"]);
        assert_eq!(json[0]["location"]["statement"], "body[3]");
        assert_eq!(render_json_all(&[]), "[]\n");
    }
}
