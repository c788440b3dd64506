//! Lint time: the LZ4 compress kernel from IR, a PTX file of over 10,000 lines and a 1 MiB PTX file
//! (the budget: under 50 ms and under 100 ms).
//! Run: `cargo bench -p warpforge-analysis --bench lint`.

use criterion::{criterion_group, criterion_main, Criterion};
use warpforge_analysis::{lint_kernel, lint_ptx};
use warpforge_ir::verify;
use warpforge_lz4::kernels::lz4::{lz4_compress_kernel, lz4_decompress_kernel};
use warpforge_ptx::{emit, Sm};

/// One module with enough renamed copies of the LZ4 kernels' entries to pass `min_lines` lines and
/// `min_bytes` bytes.
pub fn big_ptx(min_lines: usize, min_bytes: usize) -> String {
    let compress = lz4_compress_kernel(4);
    let decompress = lz4_decompress_kernel(4);
    let texts = [
        emit(&verify(&compress).expect("verifies"), Sm::Sm90)
            .expect("emits")
            .text,
        emit(&verify(&decompress).expect("verifies"), Sm::Sm90)
            .expect("emits")
            .text,
    ];
    let mut module = String::from(".version 7.8\n.target sm_90\n.address_size 64\n");
    let mut copy = 0;
    while module.lines().count() < min_lines || module.len() < min_bytes {
        for text in &texts {
            let body = &text[text.find(".visible").expect("an entry")..];
            module += &body.replacen("_pages(", &format!("_pages_{copy}("), 1);
            copy += 1;
        }
    }
    module
}

fn lint(c: &mut Criterion) {
    let kernel = lz4_compress_kernel(4);
    c.bench_function("lint lz4-compress (IR)", |b| {
        b.iter(|| lint_kernel(&verify(std::hint::black_box(&kernel)).expect("verifies")))
    });
    for ptx in [big_ptx(10_000, 0), big_ptx(0, 1 << 20)] {
        let (lines, bytes) = (ptx.lines().count(), ptx.len());
        c.bench_function(&format!("lint PTX ({lines} lines, {bytes} bytes)"), |b| {
            b.iter(|| lint_ptx(std::hint::black_box(&ptx)).expect("PTX"))
        });
    }
}

criterion_group!(benches, lint);
criterion_main!(benches);
