//! Findings as SARIF 2.1.0 (the Static Analysis Results Interchange Format, OASIS), the format code
//! scanning tools (GitHub code scanning, IDE viewers) read: one run, the tool with every rule, one result
//! per finding. PTX findings point at their file, line and column; IR findings at their file (when
//! there is one) and, as a logical location, the kernel and statement path.

use crate::lint::json_string;
use crate::program::Location;
use crate::rules::{Diagnostic, Severity, RULES};

fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "note",
    }
}

/// One SARIF log for the findings of every source: `(source, findings)`, where a source is a file path
/// or a description such as `kernel lz4-compress` (not a file: no physical location).
pub fn render_sarif(sources: &[(String, Vec<Diagnostic>)], tool_version: &str) -> String {
    let rules: Vec<String> = RULES
        .iter()
        .map(|r| {
            format!(
                "{{\"id\": {}, \"name\": {}, \"shortDescription\": {{\"text\": {}}}, \"fullDescription\": {{\"text\": {}}}}}",
                json_string(r.id),
                json_string(r.name),
                json_string(r.name),
                json_string(r.explanation)
            )
        })
        .collect();
    let mut results = Vec::new();
    for (source, diags) in sources {
        let is_file = !source.starts_with("kernel ");
        for d in diags {
            let rule_index = RULES.iter().position(|r| r.id == d.rule);
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
            // The grouped places, as related locations where they are lines of the file.
            let related: Vec<String> = d
                .also
                .iter()
                .enumerate()
                .filter_map(|(i, l)| match l {
                    Location::Ptx { line, col } if is_file => Some(format!(
                        "{{\"id\": {i}, \"physicalLocation\": {{\"artifactLocation\": {{\"uri\": {}}}, \"region\": {{\"startLine\": {line}, \"startColumn\": {col}}}}}}}",
                        json_string(&uri(source))
                    )),
                    _ => None,
                })
                .collect();
            let related = if related.is_empty() {
                String::new()
            } else {
                format!(", \"relatedLocations\": [{}]", related.join(", "))
            };
            let (region, statement) = match &d.location {
                Location::Ptx { line, col } => (
                    format!(", \"region\": {{\"startLine\": {line}, \"startColumn\": {col}}}"),
                    None,
                ),
                Location::Ir(path) => (String::new(), Some(path.clone())),
            };
            let physical = if is_file {
                format!(
                    "\"physicalLocation\": {{\"artifactLocation\": {{\"uri\": {}}}{region}}}, ",
                    json_string(&uri(source))
                )
            } else {
                String::new()
            };
            let logical_name = match &statement {
                Some(path) => format!("{} {path}", d.kernel),
                None => d.kernel.clone(),
            };
            results.push(format!(
                "{{\"ruleId\": {}{}, \"level\": \"{}\", \"message\": {{\"text\": {}}}, \"locations\": [{{{physical}\"logicalLocations\": [{{\"name\": {}, \"fullyQualifiedName\": {}, \"kind\": \"function\"}}]}}]{related}}}",
                json_string(d.rule),
                rule_index.map_or(String::new(), |i| format!(", \"ruleIndex\": {i}")),
                level(d.severity),
                json_string(&text),
                json_string(&d.kernel),
                json_string(&logical_name),
            ));
        }
    }
    format!(
        "{{\"$schema\": \"https://json.schemastore.org/sarif-2.1.0.json\", \"version\": \"2.1.0\", \"runs\": [{{\"tool\": {{\"driver\": {{\"name\": \"warpforge\", \"version\": {}, \"informationUri\": \"https://github.com/warpforge/warpforge\", \"rules\": [{}]}}}}, \"results\": [{}]}}]}}\n",
        json_string(tool_version),
        rules.join(", "),
        results.join(",\n ")
    )
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
