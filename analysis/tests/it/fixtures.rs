//! The lint fixture corpus (`tests/fixtures/*.wfir`, `*.ptx`): each file's findings match its reviewed
//! snapshot, and the rules each fixture exists for must fire (so a snapshot update cannot silently drop
//! them); clean fixtures must have no error.

use std::path::Path;

use warpforge_analysis::{lint_kernel, lint_ptx, render_text, Diagnostic, Severity};
use warpforge_ir::{parse_kernel, verify};

/// Fixture → the (rule, severity) findings it must produce (clean fixtures: none at error level).
const EXPECTED: &[(&str, &[(&str, Severity)])] = &[
    ("divergent_barrier.wfir", &[("B001", Severity::Error)]),
    ("divergent_early_exit.wfir", &[("B001", Severity::Error)]),
    ("divergent_loop_barrier.wfir", &[("B001", Severity::Error)]),
    ("divergent_shuffle.wfir", &[("W001", Severity::Error)]),
    ("mask_mismatch.wfir", &[("W002", Severity::Error)]),
    (
        "misaligned_wide_load.wfir",
        &[("A001", Severity::Error), ("F081", Severity::Error)],
    ),
    (
        "shared_out_of_bounds.wfir",
        &[
            ("S001", Severity::Error),
            ("S001", Severity::Warning),
            ("F081", Severity::Error),
        ],
    ),
    ("clean_reduction.wfir", &[("F081", Severity::Note)]),
    ("divergent_barrier.ptx", &[("B001", Severity::Error)]),
    (
        "f081_pattern.ptx",
        &[
            ("F081", Severity::Note),
            ("F081", Severity::Error),
            ("A001", Severity::Error),
        ],
    ),
    (
        "shared_oob_and_unknown.ptx",
        &[
            ("S001", Severity::Error),
            ("W001", Severity::Error),
            ("N001", Severity::Note),
        ],
    ),
    ("clean_emitted.ptx", &[("F081", Severity::Note)]),
];

fn lint_file(path: &Path) -> Vec<Diagnostic> {
    let text = std::fs::read_to_string(path).expect("fixture readable");
    if path.extension().is_some_and(|e| e == "ptx") {
        lint_ptx(&text).expect("the fixtures are PTX")
    } else {
        let kernel = parse_kernel(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        lint_kernel(&verify(&kernel).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
    }
}

#[test]
fn every_fixture_produces_its_findings() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("fixtures")
        .map(|e| e.expect("entry").path())
        .collect();
    files.sort();
    assert_eq!(
        files.len(),
        EXPECTED.len(),
        "every fixture has expectations, and every expectation a fixture"
    );
    for path in files {
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .expect("utf-8 name")
            .to_owned();
        let diags = lint_file(&path);
        let expected = EXPECTED
            .iter()
            .find(|(f, _)| *f == name)
            .unwrap_or_else(|| panic!("no expectations for {name}"))
            .1;
        for (rule, severity) in expected {
            assert!(
                diags
                    .iter()
                    .any(|d| d.rule.code() == *rule && d.severity == *severity),
                "{name}: expected {rule} ({severity}), got:\n{}",
                render_text(&name, &diags)
            );
        }
        for d in diags.iter().filter(|d| d.severity == Severity::Error) {
            assert!(
                expected.contains(&(d.rule.code(), Severity::Error)),
                "{name}: unexpected error {}:\n{}",
                d.rule,
                render_text(&name, &diags)
            );
        }
        insta::assert_snapshot!(name.clone(), render_text(&name, &diags));
    }
}
