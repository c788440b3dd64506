//! The lint corpus of real compiler output (`analysis/tests/corpus`), shared by the parser's tests.

#![allow(dead_code)] // each test file uses a part

use std::path::{Path, PathBuf};

/// `analysis/tests/corpus`.
pub fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../analysis/tests/corpus")
}

/// Every `ptx/*.ptx` file as (file name, text), sorted by name.
pub fn corpus_files() -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = std::fs::read_dir(corpus_dir().join("ptx"))
        .expect("corpus directory")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "ptx"))
        .map(|p| {
            let name = p.file_name().expect("name").to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).expect("readable"))
        })
        .collect();
    files.sort();
    files
}

/// The text of `ptx/<name>`.
pub fn corpus_file(name: &str) -> String {
    let path = corpus_dir().join("ptx").join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The manifest's `error` rows: file name → the line the error must name.
pub fn expected_errors() -> Vec<(String, u32)> {
    let manifest = std::fs::read_to_string(corpus_dir().join("manifest.tsv")).expect("manifest");
    manifest
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| {
            let cols: Vec<&str> = l.split('\t').collect();
            if cols.get(1) != Some(&"error") {
                return None;
            }
            let file = cols[0].strip_prefix("ptx/")?.to_string();
            let line = cols.get(3)?.strip_prefix("line ")?.parse().ok()?;
            Some((file, line))
        })
        .collect()
}
