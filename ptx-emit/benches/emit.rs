//! Emission time of each repository kernel (verification included), per target.
//! Run: `cargo bench -p warpforge-ptx --bench emit`.

use criterion::{criterion_group, criterion_main, Criterion};
use warpforge_ir::{samples, verify};
use warpforge_ptx::{emit, Sm};

fn emission(c: &mut Criterion) {
    for sample in samples::ALL {
        let kernel = (sample.build)();
        for sm in [Sm::Sm70, Sm::Sm90] {
            c.bench_function(&format!("emit {} {}", sample.name, sm.name()), |b| {
                b.iter(|| {
                    emit(
                        &verify(std::hint::black_box(&kernel)).expect("verifies"),
                        sm,
                    )
                    .expect("emits")
                })
            });
        }
    }
}

criterion_group!(benches, emission);
criterion_main!(benches);
