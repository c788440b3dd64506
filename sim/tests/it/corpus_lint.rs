//! The linter on the simulator corpus (`corpus/` at the repository root: nvcc 13, NVRTC 12.9 and
//! Triton 3.9 PTX of kernels written for warpforge, every file correct code that also runs on the
//! simulator in `corpus_run.rs`). It lives beside the simulator's test because the corpus does;
//! `warpforge-analysis` is only a dev-dependency here.
//!
//! Each entry is linted as it is launched: the block x-dimension its launch files give (the same in
//! every launch of that entry) is passed as `PtxAssumptions::entry_blocks`, as a user would with
//! `warpforge lint --block X` (a PTX module does not say how it is launched).
//!
//! Prints errors (false errors: every file is clean), warnings per file by rule, and N001 by
//! instruction, for the tuned and the held-out part separately, and enforces: the linter refuses
//! no file; its errors are exactly those listed in `corpus/lint_errors.tsv` (file, rule, kernel —
//! a new false error and a fixed one both fail, with the file to copy over the old one); and the
//! warnings per file stay at most [`MAX_WARNINGS_PER_FILE_X10`] / 10 (a ratchet).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;
use warpforge_analysis::Rule;

use warpforge_analysis::{lint_ptx_assuming, PtxAssumptions, Severity};

/// Warning findings per file, ×10, rounded up, when the corpus was last changed (a ceiling: lower
/// it when the linter improves): 191 warnings in 98 files (1.95) linted as launched, after
/// `half_ops`, `async_copy`, `wmma_gemm` and `tri_dot` brought 65 in 20 files (41 of them the
/// cannot-prove S001/F081/A001 of `async_copy`'s staged tiles); 126 in 78 files (1.62) before;
/// without the launches' block sizes it was 166 in 66 (2.52) and 4 false R001 errors when the
/// corpus was added.
const MAX_WARNINGS_PER_FILE_X10: usize = 20;

#[derive(Default)]
struct Part {
    files: usize,
    errors: usize,
    warnings: usize,
    warnings_by_rule: BTreeMap<&'static str, usize>,
}

#[test]
fn the_linter_on_the_corpus() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus");
    let text = std::fs::read_to_string(dir.join("manifest.tsv")).expect("corpus/manifest.tsv");
    let mut parts: BTreeMap<String, Part> = BTreeMap::new();
    let mut unmodelled: BTreeMap<String, usize> = BTreeMap::new();
    let mut per_file = String::new();
    let mut errors: BTreeSet<(String, String, String)> = BTreeSet::new();
    let mut error_lines = Vec::new();
    let mut refused = Vec::new();
    let launched = launch_blocks(&dir);
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let cols: Vec<&str> = line.split('\t').collect();
        let [file, expect, _kernel, _where, part, _note] = cols[..] else {
            panic!("manifest line without 6 columns: {line}");
        };
        assert_eq!(expect, "clean", "{file}: only clean files in this corpus");
        let p = parts.entry(part.to_owned()).or_default();
        p.files += 1;
        let ptx = std::fs::read_to_string(dir.join(file)).expect("a corpus file");
        let assume = PtxAssumptions {
            warp_aligned: true,
            entry_blocks: launched.get(file).cloned().unwrap_or_default(),
            ..PtxAssumptions::default()
        };
        let diags = match lint_ptx_assuming(&ptx, &assume) {
            Ok(d) => d,
            Err(e) => {
                refused.push(format!("{file}: {e}"));
                continue;
            }
        };
        let mut rules: BTreeMap<&str, usize> = BTreeMap::new();
        for d in &diags {
            match d.severity {
                Severity::Error => {
                    p.errors += 1;
                    error_lines.push(format!(
                        "{file}: [{}] kernel `{}`, {}: {}",
                        d.rule, d.kernel, d.location, d.message
                    ));
                    errors.insert((file.to_owned(), d.rule.code().to_owned(), d.kernel.clone()));
                }
                Severity::Warning => {
                    p.warnings += 1;
                    *p.warnings_by_rule.entry(d.rule.code()).or_default() += 1;
                    *rules.entry(d.rule.code()).or_default() += 1;
                }
                Severity::Note => {}
            }
            if d.rule == Rule::N001 {
                let name = d.message.split('`').nth(1).unwrap_or("?").to_owned();
                *unmodelled.entry(name).or_default() += 1;
            }
        }
        if !rules.is_empty() {
            let _ = writeln!(per_file, "  {file}: {rules:?}");
        }
    }
    let mut out = String::from("\nthe linter on the corpus\n");
    let (mut files, mut warnings) = (0, 0);
    for (name, p) in &parts {
        let _ = writeln!(
            out,
            "  {name}: {} files, {} false errors, {} warnings ({:.2} per file) {:?}",
            p.files,
            p.errors,
            p.warnings,
            p.warnings as f64 / p.files.max(1) as f64,
            p.warnings_by_rule
        );
        files += p.files;
        warnings += p.warnings;
    }
    let _ = writeln!(out, "  N001 by instruction: {unmodelled:?}");
    let _ = writeln!(out, "  errors:");
    for l in &error_lines {
        let _ = writeln!(out, "    {l}");
    }
    let _ = writeln!(out, "  warnings per file:\n{per_file}");
    eprintln!("{out}");
    assert!(
        refused.is_empty(),
        "the linter refused compiler output: {refused:#?}"
    );
    assert!(files > 0, "no files in corpus/manifest.tsv");
    check_errors(&dir, &errors);
    let per_file_x10 = (warnings * 10).div_ceil(files);
    assert!(
        per_file_x10 <= MAX_WARNINGS_PER_FILE_X10,
        "{:.1} warnings per file (ceiling {:.1}): {warnings} in {files} files",
        per_file_x10 as f64 / 10.0,
        MAX_WARNINGS_PER_FILE_X10 as f64 / 10.0
    );
}

/// Per PTX file (`ptx/…`), each entry's block x-dimension from its launch files, where every launch
/// of the entry agrees.
fn launch_blocks(dir: &Path) -> BTreeMap<String, BTreeMap<String, u32>> {
    let mut seen: BTreeMap<(String, String), BTreeSet<u32>> = BTreeMap::new();
    for f in std::fs::read_dir(dir.join("launch")).expect("corpus/launch") {
        let path = f.expect("a directory entry").path();
        let text = std::fs::read_to_string(&path).expect("a launch file");
        let v: serde_json::Value = serde_json::from_str(&text).expect("JSON");
        let (Some(ptx), Some(entry), Some(x)) = (
            v["ptx"].as_str(),
            v["entry"].as_str(),
            v["block"][0].as_u64(),
        ) else {
            panic!("{}: no ptx, entry or block", path.display());
        };
        seen.entry((ptx.to_owned(), entry.to_owned()))
            .or_default()
            .insert(x as u32);
    }
    let mut out: BTreeMap<String, BTreeMap<String, u32>> = BTreeMap::new();
    for ((ptx, entry), xs) in seen {
        if let [x] = xs.iter().copied().collect::<Vec<_>>()[..] {
            out.entry(ptx).or_default().insert(entry, x);
        }
    }
    out
}

/// The linter's errors on these clean files are exactly the (file, rule, kernel) rows of
/// `lint_errors.tsv` (each a false error, explained in its fourth column).
fn check_errors(dir: &Path, got: &BTreeSet<(String, String, String)>) {
    let text = std::fs::read_to_string(dir.join("lint_errors.tsv")).unwrap_or_default();
    let listed: BTreeMap<(String, String, String), String> = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let c: Vec<&str> = l.split('\t').collect();
            assert!(c.len() >= 3, "lint_errors.tsv: fewer than 3 columns: {l}");
            let why = c.get(3).copied().unwrap_or("").to_owned();
            ((c[0].to_owned(), c[1].to_owned(), c[2].to_owned()), why)
        })
        .collect();
    let want: BTreeSet<_> = listed.keys().cloned().collect();
    if &want == got {
        return;
    }
    let mut file = String::from(
        "# false errors of the linter on the clean files of the corpus, checked by \
         sim/tests/it/corpus_lint.rs\n# columns: file  rule  kernel  why it is false\n",
    );
    for key in got {
        let why = listed.get(key).map_or("(to explain)", String::as_str);
        let _ = writeln!(file, "{}\t{}\t{}\t{why}", key.0, key.1, key.2);
    }
    let new = Path::new(env!("CARGO_TARGET_TMPDIR")).join("lint_errors.tsv");
    std::fs::write(&new, &file).expect("write the new list");
    let added: Vec<_> = got.difference(&want).collect();
    let gone: Vec<_> = want.difference(got).collect();
    panic!(
        "the linter's errors differ from corpus/lint_errors.tsv: new {added:?}, gone {gone:?}\n\
         If that is intended, update the list (and explain new rows):\n  cp {} {}",
        new.display(),
        dir.join("lint_errors.tsv").display()
    );
}
