//! The block-uniformity check on small kernels whose verdict is known.

use warpforge_analysis::check_block_uniform_sync;
use warpforge_ir::{parse_kernel, samples, verify};

fn verdict(body: &str, block_size: u32) -> Result<(), warpforge_analysis::DivergentSync> {
    let src = format!(
        "kernel k {{\n block_size {block_size}\n param data: global u32 read\n param out: global u32 read_write\n param n: u32\n local i: u32\n{body}\n}}\n"
    );
    let kernel = parse_kernel(&src).unwrap_or_else(|e| panic!("{e}\n{src}"));
    check_block_uniform_sync(&verify(&kernel).unwrap_or_else(|e| panic!("{e}\n{src}")))
}

#[test]
fn barrier_under_a_thread_dependent_branch_is_reported() {
    let err = verdict("%0: u32 = special thread_index\n%1: u32 = const 5\n%2: bool = cmp lt %0, %1\nif %2 {\n barrier\n}", 64)
        .expect_err("divergent");
    assert_eq!(err.path, "body[3].then[0]");
    assert!(err.cause.contains("thread index"), "{err}");
}

#[test]
fn divergent_early_return_before_a_barrier_is_reported() {
    let err = verdict(
        "%0: u32 = special lane_id\n%1: u32 = const 0\n%2: bool = cmp eq %0, %1\nif %2 {\n return\n}\nbarrier",
        64,
    )
    .expect_err("divergent exit");
    assert_eq!(err.path, "body[4]");
    assert!(
        err.cause.contains("the branch at body[3]") && err.cause.contains("lane id"),
        "{err}"
    );
}

#[test]
fn divergent_loop_trip_count_is_reported() {
    // Each thread loops thread_index times; the barrier inside runs with part of the block.
    let body = "%0: u32 = special thread_index\nloop {\n %1: u32 = local i\n %2: bool = cmp ge %1, %0\n if %2 {\n  break\n }\n barrier\n %3: u32 = const 1\n %4: u32 = add %1, %3\n set i = %4\n}";
    let err = verdict(body, 64).expect_err("divergent trip count");
    assert_eq!(err.path, "body[1].loop[3]");
    assert!(
        err.cause.contains("the branch at body[1].loop[2]") && err.cause.contains("thread index"),
        "{err}"
    );
}

#[test]
fn uniform_loops_and_parameter_branches_are_fine() {
    let body = "%0: u32 = param n\nloop {\n %1: u32 = local i\n %2: bool = cmp ge %1, %0\n if %2 {\n  break\n }\n barrier\n %3: u32 = const 1\n %4: u32 = add %1, %3\n set i = %4\n}\n%5: u32 = special block_index\n%6: bool = cmp lt %5, %0\nif %6 {\n barrier\n}";
    verdict(body, 64).expect("uniform");
}

#[test]
fn a_local_assigned_per_thread_makes_its_loop_divergent() {
    let body = "%0: u32 = special thread_index\nset i = %0\n%1: u32 = local i\n%2: u32 = const 3\n%3: bool = cmp lt %1, %2\nif %3 {\n barrier\n}";
    let err = verdict(body, 64).expect_err("divergent local");
    assert!(err.cause.contains("local `i`"), "{err}");
}

#[test]
fn votes_are_uniform_in_a_single_warp_block_only() {
    let body = "%0: u32 = special lane_id\n%1: u32 = const 3\n%2: bool = cmp lt %0, %1\n%3: bool = vote any %2 mask 0xffffffff\nif %3 {\n barrier\n}";
    verdict(body, 32).expect("a vote is block-uniform when the block is one warp");
    let err = verdict(body, 64).expect_err("two warps may vote differently");
    assert!(err.cause.contains("uniform per warp"), "{err}");
}

#[test]
fn the_sample_kernels_are_block_uniform() {
    for sample in samples::ALL {
        let kernel = (sample.build)();
        check_block_uniform_sync(&verify(&kernel).expect("verifies"))
            .unwrap_or_else(|e| panic!("{}: {e}", sample.name));
    }
}

#[test]
fn barrier_safety_separates_warp_and_block_requirements() {
    use warpforge_analysis::barrier_safety;
    // A shuffle under a warp-uniform (per-warp) branch is fine on CUDA; a block barrier there is not.
    let src = |sync: &str| {
        format!("kernel k {{\n block_size 64\n %0: u32 = special warp_index\n %1: u32 = const 0\n %2: bool = cmp eq %0, %1\n if %2 {{\n  {sync}\n }}\n}}\n")
    };
    let shuffle = src("%3: u32 = special lane_id\n %4: u32 = shuffle xor %3, %3 mask 0xffffffff");
    let kernel = parse_kernel(&shuffle).expect("parses");
    let report = barrier_safety(&verify(&kernel).expect("verifies"));
    assert!(report.is_safe, "{report:?}");
    assert_eq!((report.barrier_count, report.warp_collective_count), (0, 1));
    let barrier = parse_kernel(&src("barrier")).expect("parses");
    let report = barrier_safety(&verify(&barrier).expect("verifies"));
    assert!(!report.is_safe);
    assert!(
        report.findings[0].cause.contains("warp index"),
        "{report:?}"
    );
    // A shuffle under a lane-dependent branch is unsafe even on CUDA.
    let lane = "kernel k {\n block_size 32\n %0: u32 = special lane_id\n %1: u32 = const 3\n %2: bool = cmp lt %0, %1\n if %2 {\n  %3: u32 = shuffle xor %0, %1 mask 0xffffffff\n }\n}\n";
    let report = barrier_safety(&verify(&parse_kernel(lane).expect("parses")).expect("verifies"));
    assert_eq!(report.findings.len(), 1);
    assert_eq!(report.findings[0].path, "body[3].then[0]");
}
