//! Lint time: the LZ4 compress kernel from IR, and a PTX file of over 10,000 lines.
//! Run: `cargo bench -p warpforge-analysis --bench lint`.

use criterion::{criterion_group, criterion_main, Criterion};
use warpforge_analysis::{lint_kernel, lint_ptx};
use warpforge_ir::kernels::lz4::{lz4_compress_kernel, lz4_decompress_kernel};
use warpforge_ir::verify;
use warpforge_ptx::{emit, Sm};

/// One module with enough renamed copies of the LZ4 kernels' entries to pass 10,000 lines.
pub fn big_ptx() -> String {
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
    while module.lines().count() < 10_000 {
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
    let ptx = big_ptx();
    let lines = ptx.lines().count();
    c.bench_function(&format!("lint PTX ({lines} lines)"), |b| {
        b.iter(|| lint_ptx(std::hint::black_box(&ptx)).expect("PTX"))
    });
}

criterion_group!(benches, lint);
criterion_main!(benches);
