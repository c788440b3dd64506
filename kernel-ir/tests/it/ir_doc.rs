//! Guards `docs/ir.md`, the language reference of the IR's text form.
//!
//! - Every keyword the parser accepts appears in it as a code span (`` `word` ``). The keywords come
//!   from `warpforge_ir::text::keywords::all()`, the table the parser itself matches, so a new word
//!   cannot reach the parser without reaching this test.
//! - The parser's sources match no bare word outside that table (which would bypass the first check).
//! - Every ```` ```wfir ```` block in the document parses and verifies.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use warpforge_ir::text::keywords;
use warpforge_ir::{parse_kernel, verify};

fn crate_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn doc_path() -> PathBuf {
    crate_dir().join("../docs/ir.md")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

#[test]
fn every_keyword_is_documented_as_a_code_span() {
    let doc = read(&doc_path());
    let mut missing: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for k in keywords::all() {
        if !doc.contains(&format!("`{}`", k.word)) {
            missing.entry(k.word).or_default().push(k.role);
        }
    }
    let list: Vec<String> = missing
        .iter()
        .map(|(word, roles)| format!("  `{word}` ({})", roles.join(", ")))
        .collect();
    assert!(
        missing.is_empty(),
        "docs/ir.md does not mention {} keyword(s) of the text form as a code span; document each \
         (and add it to the keyword index):\n{}",
        missing.len(),
        list.join("\n")
    );
}

/// The ```` ```wfir ```` blocks of `doc`, each with the line number of its first line of code.
fn wfir_blocks(doc: &str) -> Vec<(usize, String)> {
    let mut blocks = Vec::new();
    let mut open: Option<(usize, String)> = None;
    for (i, line) in doc.lines().enumerate() {
        let fence = line.trim_start().starts_with("```");
        match open.take() {
            Some(block) if fence => blocks.push(block),
            Some((start, mut text)) => {
                text.push_str(line);
                text.push('\n');
                open = Some((start, text));
            }
            None if fence && line.trim() == "```wfir" => open = Some((i + 2, String::new())),
            None => {}
        }
    }
    assert!(
        open.is_none(),
        "docs/ir.md: a ```wfir block is never closed"
    );
    blocks
}

#[test]
fn every_wfir_block_parses_and_verifies() {
    let doc = read(&doc_path());
    let blocks = wfir_blocks(&doc);
    assert!(
        blocks.len() >= 3,
        "docs/ir.md should hold at least three ```wfir examples, found {}",
        blocks.len()
    );
    let mut failures = Vec::new();
    for (line, text) in &blocks {
        match parse_kernel(text) {
            Err(e) => failures.push(format!(
                "docs/ir.md:{}: does not parse: {e}",
                line + e.line - 1
            )),
            Ok(kernel) => {
                if let Err(e) = verify(&kernel) {
                    failures.push(format!("docs/ir.md:{line}: does not verify: {e}"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The string literals of Rust source `src` (comments skipped), each with its byte range.
fn string_literals(src: &str) -> Vec<(usize, usize)> {
    let b = src.as_bytes();
    let mut found = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            // A character literal ('x' or '\x'); a lone quote is a lifetime.
            b'\'' if b.get(i + 2) == Some(&b'\'') => i += 3,
            b'\'' if b.get(i + 1) == Some(&b'\\') && b.get(i + 3) == Some(&b'\'') => i += 4,
            b'"' => {
                let start = i + 1;
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                found.push((start, i));
                i += 1;
            }
            _ => i += 1,
        }
    }
    found
}

#[test]
fn the_parser_matches_no_word_outside_the_keyword_table() {
    let text_dir = crate_dir().join("src/text");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&text_dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", text_dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        // The table itself, and the printer, which writes words but matches none.
        .filter(|p| !p.ends_with("keywords.rs") && !p.ends_with("print.rs"))
        .collect();
    files.sort();
    assert!(files.iter().any(|p| p.ends_with("parse.rs")), "{files:?}");
    let mut bypasses = Vec::new();
    for path in &files {
        let src = read(path);
        for (start, end) in string_literals(&src) {
            let word = &src[start..end];
            let is_word = word.starts_with(|c: char| c.is_ascii_lowercase() || c == '_')
                && word
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
            let before = src[..start - 1].trim_end();
            let after = src[end + 1..].trim_start();
            let matched = ["=>", "|"].iter().any(|p| after.starts_with(p))
                || ["==", "!=", "|", "keyword(", "at_word(", "Ident("]
                    .iter()
                    .any(|p| before.ends_with(p));
            if is_word && matched {
                let line = src[..start].lines().count();
                bypasses.push(format!(
                    "  {}:{line}: \"{word}\"",
                    path.strip_prefix(crate_dir()).unwrap_or(path).display()
                ));
            }
        }
    }
    assert!(
        bypasses.is_empty(),
        "the parser matches words that are not in src/text/keywords.rs (add each there, use the \
         constant, and document it in docs/ir.md):\n{}",
        bypasses.join("\n")
    );
}
