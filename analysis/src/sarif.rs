//! Findings as SARIF 2.1.0 (the Static Analysis Results Interchange Format, OASIS), the format code
//! scanning tools (GitHub code scanning, IDE viewers) read: one run, the tool with every rule, one result
//! per finding. PTX findings point at their file, line and column; IR findings at their file (when
//! there is one) and, as a logical location, the kernel and statement path.

use serde::Serialize;

use crate::program::Location;
use crate::rule::{Rule as LintRule, Severity};
use crate::rules::Diagnostic;

/// The SARIF log: one run.
#[derive(Serialize)]
struct Log<'a> {
    #[serde(rename = "$schema")]
    schema: &'static str,
    version: &'static str,
    runs: [Run<'a>; 1],
}

#[derive(Serialize)]
struct Run<'a> {
    tool: Tool<'a>,
    results: Vec<SarifResult<'a>>,
}

#[derive(Serialize)]
struct Tool<'a> {
    driver: Driver<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Driver<'a> {
    name: &'static str,
    version: &'a str,
    information_uri: &'static str,
    rules: Vec<Rule>,
}

/// A rule: its id, name and explanation.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Rule {
    id: &'static str,
    name: &'static str,
    short_description: Message<&'static str>,
    full_description: Message<&'static str>,
}

/// `{"text": ...}`.
#[derive(Serialize)]
struct Message<T> {
    text: T,
}

/// One finding.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifResult<'a> {
    rule_id: &'static str,
    /// The rule's index in the driver's rules (always there for warpforge's own rules).
    #[serde(skip_serializing_if = "Option::is_none")]
    rule_index: Option<usize>,
    level: &'static str,
    message: Message<String>,
    locations: [ResultLocation<'a>; 1],
    /// The grouped places (`also`) that are lines of a file; left out when there are none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    related_locations: Vec<RelatedLocation>,
}

/// Where a finding is: its file, line and column when it is in a file, and its kernel (and statement).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ResultLocation<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    physical_location: Option<PhysicalLocation>,
    logical_locations: [LogicalLocation<'a>; 1],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PhysicalLocation {
    artifact_location: ArtifactLocation,
    #[serde(skip_serializing_if = "Option::is_none")]
    region: Option<Region>,
}

#[derive(Serialize)]
struct ArtifactLocation {
    uri: String,
}

/// 1-based line and column.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Region {
    start_line: usize,
    start_column: usize,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct LogicalLocation<'a> {
    name: &'a str,
    fully_qualified_name: String,
    kind: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RelatedLocation {
    id: usize,
    physical_location: PhysicalLocation,
}

fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "note",
    }
}

/// The finding's message with its causes and the places it groups.
fn message(d: &Diagnostic) -> String {
    let mut text = d.message.clone();
    for cause in &d.causes {
        text.push_str("; because ");
        text.push_str(cause);
    }
    if !d.also.is_empty() {
        let places: Vec<String> = d.also.iter().map(ToString::to_string).collect();
        text.push_str(&format!(
            "; the same at {} more place(s): {}",
            d.also.len(),
            places.join("; ")
        ));
    }
    text
}

/// `source` (a file) at a line and column, or without a region.
fn physical(source: &str, line_col: Option<(usize, usize)>) -> PhysicalLocation {
    PhysicalLocation {
        artifact_location: ArtifactLocation { uri: uri(source) },
        region: line_col.map(|(start_line, start_column)| Region {
            start_line,
            start_column,
        }),
    }
}

fn result<'a>(source: &str, d: &'a Diagnostic) -> SarifResult<'a> {
    let is_file = !source.starts_with("kernel ");
    // The grouped places, as related locations where they are lines of the file.
    let related_locations = (d.also.iter().enumerate())
        .filter_map(|(id, l)| match l {
            Location::Ptx { line, col } if is_file => Some(RelatedLocation {
                id,
                physical_location: physical(source, Some((*line, *col))),
            }),
            _ => None,
        })
        .collect();
    let (line_col, fully_qualified_name) = match &d.location {
        Location::Ptx { line, col } => (Some((*line, *col)), d.kernel.clone()),
        Location::Ir(path) => (None, format!("{} {path}", d.kernel)),
    };
    SarifResult {
        rule_id: d.rule.code(),
        rule_index: LintRule::ALL.iter().position(|&r| r == d.rule),
        level: level(d.severity),
        message: Message { text: message(d) },
        locations: [ResultLocation {
            physical_location: is_file.then(|| physical(source, line_col)),
            logical_locations: [LogicalLocation {
                name: &d.kernel,
                fully_qualified_name,
                kind: "function",
            }],
        }],
        related_locations,
    }
}

/// One SARIF log for the findings of every source: `(source, findings)`, where a source is a file path
/// or a description such as `kernel lz4-compress` (not a file: no physical location). Indented, with a
/// final newline.
pub fn render_sarif(sources: &[(String, Vec<Diagnostic>)], tool_version: &str) -> String {
    let rules = (LintRule::ALL.iter())
        .map(|r| Rule {
            id: r.code(),
            name: r.name(),
            short_description: Message { text: r.name() },
            full_description: Message {
                text: r.explanation(),
            },
        })
        .collect();
    let results = (sources.iter())
        .flat_map(|(source, diags)| diags.iter().map(move |d| result(source, d)))
        .collect();
    let log = Log {
        schema: "https://json.schemastore.org/sarif-2.1.0.json",
        version: "2.1.0",
        runs: [Run {
            tool: Tool {
                driver: Driver {
                    name: "warpforge",
                    version: tool_version,
                    information_uri: "https://github.com/warpforge/warpforge",
                    rules,
                },
            },
            results,
        }],
    };
    serde_json::to_string_pretty(&log).expect("plain data serializes") + "\n"
}

/// A relative path as a URI reference (forward slashes, spaces and `%` escaped).
fn uri(path: &str) -> String {
    let mut out = String::new();
    for c in path.replace('\\', "/").chars() {
        match c {
            ' ' => out.push_str("%20"),
            '%' => out.push_str("%25"),
            '#' => out.push_str("%23"),
            '?' => out.push_str("%3F"),
            c => out.push(c),
        }
    }
    out
}
