//! Regressions from the `wfir` fuzz target (fuzz/): kernels that verify but would make the IR
//! simulator allocate without bound are refused with the limit.

use warpforge_ir::{parse_kernel, verify};
use warpforge_sim::{run, BufferArg, SimError, SimOptions, MAX_BLOCKS, MAX_SHARED_BYTES};

const HUGE_SHARED: &str = "kernel k {
    block_size 32
    shared tile: u32[1000000000] align 4
    %0: u32 = special thread_index
    %1: u32 = const 1
    store shared tile[%0], %1
}
";

#[test]
fn shared_arrays_past_the_limit_are_refused() {
    // Was: 4 GB of shared memory allocated for each block.
    let kernel = parse_kernel(HUGE_SHARED).expect("parses");
    let verified = verify(&kernel).expect("fits in 32 bits: verifies");
    let e = run(
        &verified,
        1,
        &mut [] as &mut [BufferArg<'_>],
        &[],
        &SimOptions::default(),
    )
    .expect_err("too much shared memory");
    let SimError::Arguments(message) = e;
    assert!(
        message.contains("4000000000 bytes of shared memory"),
        "{message}"
    );
    assert!(
        message.contains(&format!("allows {MAX_SHARED_BYTES}")),
        "{message}"
    );
}

#[test]
fn shared_arrays_at_the_limit_run() {
    let text = HUGE_SHARED.replace("1000000000", &(MAX_SHARED_BYTES / 4).to_string());
    let kernel = parse_kernel(&text).expect("parses");
    let verified = verify(&kernel).expect("verifies");
    let report = run(&verified, 1, &mut [], &[], &SimOptions::default()).expect("runs");
    assert!(report.is_clean(), "{:?}", report.findings);
}

#[test]
fn grids_past_the_limit_are_refused() {
    // Was: an outcome slot allocated for each of 4 billion blocks before the first ran.
    let text = HUGE_SHARED.replace("1000000000", "32");
    let kernel = parse_kernel(&text).expect("parses");
    let verified = verify(&kernel).expect("verifies");
    let e = run(&verified, u32::MAX, &mut [], &[], &SimOptions::default()).expect_err("too many");
    let SimError::Arguments(message) = e;
    assert!(message.contains("4294967295 blocks"), "{message}");
    assert!(
        message.contains(&format!("at most {MAX_BLOCKS}")),
        "{message}"
    );
}
