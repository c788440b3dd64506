//! Parse time of the PTX front end on real compiler output: the corpus's largest file (Triton's
//! sm_80 matmul, 2,235 lines) and all 116 valid corpus files.
//! Run: `cargo bench -p warpforge-ptx --bench parse`.

use std::path::Path;

use criterion::{criterion_group, criterion_main, Criterion};
use warpforge_ptx::parse::parse;

fn corpus() -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../analysis/tests/corpus/ptx");
    let mut files: Vec<(String, String)> = std::fs::read_dir(dir)
        .expect("corpus directory")
        .map(|e| e.expect("entry").path())
        .map(|p| {
            let name = p.file_name().expect("name").to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).expect("readable"))
        })
        .filter(|(_, text)| parse(text).is_ok())
        .collect();
    files.sort();
    files
}

fn parsing(c: &mut Criterion) {
    let files = corpus();
    let (name, largest) = files
        .iter()
        .max_by_key(|(_, text)| text.lines().count())
        .expect("a corpus file");
    let lines = largest.lines().count();
    c.bench_function(&format!("parse {name} ({lines} lines)"), |b| {
        b.iter(|| parse(std::hint::black_box(largest)).expect("parses"))
    });
    let total: usize = files.iter().map(|(_, t)| t.lines().count()).sum();
    c.bench_function(
        &format!("parse the corpus ({} files, {total} lines)", files.len()),
        |b| {
            b.iter(|| {
                for (_, text) in &files {
                    parse(std::hint::black_box(text)).expect("parses");
                }
            })
        },
    );
}

criterion_group!(benches, parsing);
criterion_main!(benches);
