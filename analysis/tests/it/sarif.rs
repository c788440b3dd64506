//! `render_sarif`: the findings of PTX files and IR kernels as one SARIF 2.1.0 log, parsed back and
//! checked against what SARIF consumers rely on (the fields GitHub code scanning requires: version,
//! `runs[].tool.driver.name` and `rules[].id`, `results[].ruleId`/`message.text`/`level`, a physical
//! location with a 1-based region for files).

use serde_json::Value;
use warpforge_analysis::{lint_kernel, lint_ptx, render_sarif, Rule, Severity};

#[test]
fn sarif_log_carries_every_rule_and_every_finding_with_its_location() {
    let ptx = include_str!("../fixtures/f081_pattern.ptx");
    let from_ptx = lint_ptx(ptx).expect("PTX");
    let kernel = warpforge_ir::parse_kernel(include_str!("../fixtures/shared_out_of_bounds.wfir"))
        .expect("parses");
    let from_ir = lint_kernel(&warpforge_ir::verify(&kernel).expect("verifies"));
    assert!(!from_ptx.is_empty() && !from_ir.is_empty());
    let sources = vec![
        (
            "dir with space/f081_pattern.ptx".to_owned(),
            from_ptx.clone(),
        ),
        ("kernel shared-out-of-bounds".to_owned(), from_ir.clone()),
    ];
    let log: Value = serde_json::from_str(&render_sarif(&sources, "9.9.9")).expect("valid JSON");
    assert_eq!(log["version"], "2.1.0");
    assert!(log["$schema"]
        .as_str()
        .expect("schema")
        .contains("sarif-2.1.0"));
    let run = &log["runs"][0];
    assert_eq!(run["tool"]["driver"]["name"], "warpforge");
    assert_eq!(run["tool"]["driver"]["version"], "9.9.9");
    let rules = run["tool"]["driver"]["rules"].as_array().expect("rules");
    let ids: Vec<&str> = rules
        .iter()
        .map(|r| r["id"].as_str().expect("id"))
        .collect();
    assert_eq!(ids, Rule::ALL.iter().map(|r| r.code()).collect::<Vec<_>>());
    let results = run["results"].as_array().expect("results");
    assert_eq!(results.len(), from_ptx.len() + from_ir.len());
    for (result, d) in results.iter().zip(from_ptx.iter().chain(&from_ir)) {
        assert_eq!(result["ruleId"], d.rule.code());
        let index = result["ruleIndex"].as_u64().expect("ruleIndex") as usize;
        assert_eq!(
            rules[index]["id"],
            d.rule.code(),
            "ruleIndex points at the rule"
        );
        let level = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        };
        assert_eq!(result["level"], level);
        let text = result["message"]["text"].as_str().expect("text");
        assert!(text.starts_with(&d.message), "{text}");
        for cause in &d.causes {
            assert!(
                text.contains(cause.as_str()),
                "the causes are in the message: {text}"
            );
        }
        let location = &result["locations"][0];
        assert_eq!(location["logicalLocations"][0]["name"], d.kernel.as_str());
    }
    // PTX: the file (as a URI reference) and a 1-based line and column.
    let first = &results[0]["locations"][0]["physicalLocation"];
    assert_eq!(
        first["artifactLocation"]["uri"],
        "dir%20with%20space/f081_pattern.ptx"
    );
    assert!(first["region"]["startLine"].as_u64().expect("line") >= 1);
    assert!(first["region"]["startColumn"].as_u64().expect("column") >= 1);
    // IR from the catalog: no file, the statement path in the logical location.
    let ir = &results[from_ptx.len()]["locations"][0];
    assert!(ir.get("physicalLocation").is_none(), "{ir}");
    let name = ir["logicalLocations"][0]["fullyQualifiedName"]
        .as_str()
        .expect("name");
    assert!(name.contains("body["), "{name}");
}

#[test]
fn a_log_without_findings_is_still_a_valid_log() {
    let log: Value = serde_json::from_str(&render_sarif(&[], "0.1.0")).expect("valid JSON");
    assert_eq!(log["runs"][0]["results"].as_array().map(Vec::len), Some(0));
}
