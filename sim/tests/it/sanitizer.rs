//! The `sim` sanitizer on planted-bug fixtures (`tests/fixtures/sanitizer/*.wfir`), one per finding
//! kind: out-of-bounds (global and shared), misaligned wide loads and stores, uninitialized shared reads
//! (a warning), partial barriers (inside an `if` on thread_index, after some threads `return`), collective
//! masks (a lane named that took the other branch, a lane executing it that the mask leaves out, lanes
//! passing different dynamic masks), shuffles reading outside their mask, shared races (across warps in
//! both orders, lanes of one statement writing different values, lanes of one warp at different
//! statements), global races within a block, and the step limit on an endless loop.
//!
//! Each planted launch reports exactly one finding of the planted kind, at the exact statement path of
//! the planted statement, with its block, warp, lanes, address (array and byte offset) and, for races,
//! the other statement's path; errors make the launch unclean, the warning leaves it clean. Each
//! fixture's `_fixed` twin (the fix, e.g. the same accesses with a barrier between) reports nothing.
//! Also: launches with a partial barrier or an endless loop return; with `sanitize: false` the faults
//! (bounds, alignment, barriers, collective masks, step limit) are still reported and the diagnostics
//! (races, initcheck, shuffles outside the mask) are not; atomics do not race with each other.
//!
//! The last four tests pin simulator bugs these fixtures found, now fixed (shared atomics across warps
//! flagged as races, 8-byte values compared on their low 4 bytes, alignment checked within the array
//! instead of in shared memory, a misleading partial-barrier detail).

use std::fs;
use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use warpforge_ir::{parse_kernel, verify};
use warpforge_sim::BufferArg;
use warpforge_sim::{lane_list, Finding, FindingKind, Severity, SimOptions, SimReport};

use FindingKind::*;

/// Every lane of a warp.
const ALL: u32 = u32::MAX;

/// Runs fixture `name` over `blocks` blocks with zeroed buffers of `sizes` bytes (in parameter order)
/// and no scalars; returns the report and the buffers as the launch left them.
fn launch(
    name: &str,
    blocks: u32,
    sizes: &[usize],
    options: &SimOptions,
) -> (SimReport, Vec<Vec<u8>>) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/sanitizer")
        .join(format!("{name}.wfir"));
    let src = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let kernel = parse_kernel(&src).unwrap_or_else(|e| panic!("{name}.wfir: {e}"));
    assert_eq!(
        kernel.name, name,
        "{name}.wfir: the kernel is named after its file"
    );
    let verified = verify(&kernel).unwrap_or_else(|e| panic!("{name}.wfir: {e}"));
    let mut buffers: Vec<Vec<u8>> = sizes.iter().map(|&n| vec![0; n]).collect();
    let mut args: Vec<BufferArg<'_>> = buffers
        .iter_mut()
        .map(|b| BufferArg::ReadWrite(b))
        .collect();
    let report = warpforge_sim::run(&verified, blocks, &mut args, &[], options)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    drop(args);
    (report, buffers)
}

/// The `u32` at element `i` of a buffer.
fn word(buffer: &[u8], i: usize) -> u32 {
    u32::from_le_bytes(buffer[4 * i..4 * i + 4].try_into().unwrap())
}

/// The findings, one a line, for failure messages.
fn show(report: &SimReport) -> String {
    let lines: Vec<String> = report
        .findings
        .iter()
        .map(|f| format!("\n    {f}"))
        .collect();
    if lines.is_empty() {
        " none".into()
    } else {
        lines.concat()
    }
}

/// The finding a planted fixture must produce.
struct Want {
    kind: FindingKind,
    /// The exact path of the planted statement (`body[3].then[1]`).
    at: &'static str,
    block: u32,
    warp: u32,
    /// Bit `i`: lane `i`.
    lanes: u32,
    /// The array and byte offset, for findings about memory.
    address: Option<(&'static str, u64)>,
    /// Pieces the detail must contain: for races the other statement's path, for barriers who is missing.
    detail: &'static [&'static str],
}

/// Asserts that `report` holds exactly the finding `want`, and that the launch's cleanliness and stopped
/// blocks follow from its kind. Returns the finding.
fn assert_finding(name: &str, report: &SimReport, want: &Want) -> Finding {
    let findings = show(report);
    assert_eq!(
        report.findings.len(),
        1,
        "{name}: expected exactly one {} finding, got:{findings}",
        want.kind.name()
    );
    let f = report.findings[0].clone();
    assert_eq!(f.kind, want.kind, "{name}: wrong kind: {f}");
    let at = format!("{} (", want.at);
    assert!(
        f.statement.starts_with(&at),
        "{name}: expected the statement at `{}`, got: {f}",
        want.at
    );
    assert_eq!(f.block, want.block, "{name}: wrong block: {f}");
    assert_eq!(f.warp, want.warp, "{name}: wrong warp: {f}");
    assert_eq!(
        f.lanes,
        want.lanes,
        "{name}: expected lanes {}, got: {f}",
        lane_list(want.lanes)
    );
    let address = f.address.as_ref().map(|(a, o)| (a.as_str(), *o));
    assert_eq!(address, want.address, "{name}: wrong address: {f}");
    for piece in want.detail {
        assert!(
            f.detail.contains(piece),
            "{name}: the detail should say `{piece}`: {f}"
        );
    }
    let error = want.kind.severity() == Severity::Error;
    assert_eq!(report.is_clean(), !error, "{name}: is_clean: {f}");
    assert_eq!(
        report.stopped_blocks > 0,
        want.kind.stops_block(),
        "{name}: stopped blocks {}: {f}",
        report.stopped_blocks
    );
    f
}

/// Asserts that `report` has no finding at all.
fn assert_clean(name: &str, report: &SimReport) {
    assert!(
        report.findings.is_empty(),
        "{name}: expected no finding, got:{}",
        show(report)
    );
    assert!(report.is_clean() && report.stopped_blocks == 0, "{name}");
}

/// Fixture `name` reports exactly `want`; its twin `{name}_fixed` reports nothing.
fn planted(name: &str, blocks: u32, sizes: &[usize], want: Want) -> Finding {
    let options = SimOptions::default();
    let (report, _) = launch(name, blocks, sizes, &options);
    let f = assert_finding(name, &report, &want);
    let fixed = format!("{name}_fixed");
    let (report, _) = launch(&fixed, blocks, sizes, &options);
    assert_clean(&fixed, &report);
    f
}

/// A [`Want`], written on one line.
#[rustfmt::skip]
fn want(kind: FindingKind, at: &'static str, (block, warp, lanes): (u32, u32, u32),
        address: Option<(&'static str, u64)>, detail: &'static [&'static str]) -> Want {
    Want { kind, at, block, warp, lanes, address, detail }
}

#[test]
fn out_of_bounds_global() {
    let w = want(
        OutOfBounds,
        "body[7]",
        (1, 1, 1 << 31),
        Some(("out", 512)),
        &["index 128 (4-byte access at byte 512) is past the end of `out` (512 bytes)"],
    );
    let f = planted("oob_global", 2, &[512], w);
    assert_eq!(
        f.other_blocks, 0,
        "only the last block runs past the end: {f}"
    );
}

#[test]
fn out_of_bounds_shared() {
    let w = want(
        OutOfBounds,
        "body[1]",
        (0, 1, 0xffff_0000),
        Some(("tile", 192)),
        &["index 48", "past the end of `tile` (192 bytes)"],
    );
    planted("oob_shared", 1, &[256], w);
}

#[test]
fn misaligned_wide_load_global() {
    let w = want(
        Misaligned,
        "body[3]",
        (0, 0, 0xaaaa_aaaa),
        Some(("data", 8)),
        &["16-byte access", "index 2"],
    );
    planted("misaligned_load_v4", 1, &[512, 128], w);
}

#[test]
fn misaligned_wide_store_shared() {
    let w = want(
        Misaligned,
        "body[3]",
        (0, 0, 0xaaaa_aaaa),
        Some(("pairs", 12)),
        &["8-byte access", "index 3"],
    );
    planted("misaligned_store_v2", 1, &[128], w);
}

#[test]
fn uninitialized_shared_read_is_a_warning() {
    let w = want(
        UninitializedShared,
        "body[7]",
        (0, 0, 1),
        Some(("tile", 252)),
        &[],
    );
    let f = planted("uninit_shared", 1, &[256], w);
    assert_eq!(f.severity(), Severity::Warning);
}

#[test]
fn partial_barrier_inside_if() {
    let w = want(
        PartialBarrier,
        "body[3].then[0]",
        (0, 0, ALL),
        None,
        &["40 of 64 threads arrived", "warp 1: lanes 8-31"],
    );
    planted("partial_barrier_if", 1, &[256], w);
}

#[test]
fn partial_barrier_after_return() {
    let w = want(
        PartialBarrier,
        "body[5]",
        (0, 0, ALL & !1),
        None,
        &[
            "62 of 64 threads arrived",
            "warp 0: lanes 0 returned",
            "warp 1: lanes 0 returned",
        ],
    );
    planted("partial_barrier_return", 1, &[256], w);
}

#[test]
fn collective_mask_names_a_lane_on_the_other_branch() {
    let w = want(
        CollectiveMask,
        "body[3].then[1]",
        (0, 0, 0xffff_0000),
        None,
        &["lanes 16-31 are on another path"],
    );
    planted("collective_mask_absent", 1, &[128], w);
}

#[test]
fn collective_mask_leaves_out_a_lane_executing_it() {
    let w = want(
        CollectiveMask,
        "body[3]",
        (0, 0, 0xffff_0000),
        None,
        &["lanes 16-31 execute it but the mask 0x0000ffff leaves them out"],
    );
    planted("collective_mask_outside", 1, &[128], w);
}

#[test]
fn collective_lanes_pass_different_dynamic_masks() {
    let w = want(
        CollectiveMask,
        "body[6]",
        (0, 0, 0xffff_0000),
        None,
        &["lane 0 passes 0x0000ffff, lane 16 passes 0xffff0000"],
    );
    planted("collective_mask_dynamic", 1, &[128], w);
}

#[test]
fn shuffle_reads_outside_its_mask() {
    let w = want(
        ShuffleOutsideMask,
        "body[3].then[1]",
        (0, 0, 1 << 15),
        None,
        &["0x0000ffff"],
    );
    planted("shuffle_outside_mask", 1, &[128], w);
    // Not a fault: the launch runs on, and lane 15 gets its own value.
    let (_, out) = launch("shuffle_outside_mask", 1, &[128], &SimOptions::default());
    let got: Vec<u32> = (0..16).map(|l| word(&out[0], l)).collect();
    let expect: Vec<u32> = (0..16).map(|l| if l == 15 { 15 } else { l + 1 }).collect();
    assert_eq!(got, expect);
}

#[test]
fn shared_race_write_then_read_across_warps() {
    let w = want(
        SharedRace,
        "body[6].then[0]",
        (0, 1, 1),
        Some(("flag", 0)),
        &[
            "thread 32 (warp 1, lane 0) reads it here",
            "thread 0 (warp 0, lane 0) writes it at body[3].then[1] (store to `flag`)",
        ],
    );
    planted("shared_race_warps", 1, &[128], w);
}

#[test]
fn shared_race_read_then_write_across_warps() {
    let w = want(
        SharedRace,
        "body[8].then[1]",
        (0, 1, 1),
        Some(("flag", 0)),
        &[
            "thread 32 (warp 1, lane 0) writes it here",
            "thread 0 (warp 0, lane 0) reads it at body[5].then[0] (load from `flag`)",
        ],
    );
    planted("shared_race_war", 1, &[128], w);
}

#[test]
fn shared_race_lanes_of_one_statement_write_different_values() {
    let w = want(
        SharedRace,
        "body[2]",
        (0, 0, 1 << 1),
        Some(("flag", 0)),
        &["thread 0 (warp 0, lane 0) and thread 1 (warp 0, lane 1) write different values"],
    );
    planted("shared_race_same_statement", 1, &[128], w);
}

#[test]
fn shared_race_between_lanes_of_one_warp_without_warp_sync() {
    let w = want(
        SharedRace,
        "body[4]",
        (0, 0, 1 << 1),
        Some(("flag", 0)),
        &[
            "thread 1 (warp 0, lane 1) reads it here",
            "thread 0 (warp 0, lane 0) writes it at body[3].then[1] (store to `flag`)",
        ],
    );
    planted("shared_race_lanes", 1, &[128], w);
}

#[test]
fn global_race_within_a_block() {
    let w = want(
        GlobalRace,
        "body[5].then[0]",
        (0, 1, 1),
        Some(("out", 0)),
        &[
            "thread 32 (warp 1, lane 0) writes it here",
            "thread 0 (warp 0, lane 0) writes it at body[5].then[0] (store to `out`)",
        ],
    );
    let f = planted("global_race", 2, &[16], w);
    assert_eq!(f.other_blocks, 1, "block 1 races the same way: {f}");
}

#[test]
fn step_limit_stops_an_endless_loop() {
    let options = SimOptions {
        step_limit: 10_000,
        ..SimOptions::default()
    };
    let (report, out) = launch("step_limit", 1, &[128], &options);
    let w = want(
        StepLimit,
        "body[2]",
        (0, 0, ALL),
        None,
        &["more than 10000 warp-instructions"],
    );
    assert_finding("step_limit", &report, &w);
    assert_eq!(report.stopped_blocks, 1);
    assert!(
        (0..32).all(|t| word(&out[0], t) == t as u32),
        "the stores before the loop landed"
    );
    let (report, _) = launch("step_limit_fixed", 1, &[128], &options);
    assert_clean("step_limit_fixed", &report);
}

/// A partial barrier and an endless loop stop their block instead of hanging the launch (a hang here
/// fails after a minute instead of blocking the test run).
#[test]
fn never_hangs() {
    let (done, finished) = mpsc::channel();
    std::thread::spawn(move || {
        let limit = SimOptions {
            step_limit: 100_000,
            ..SimOptions::default()
        };
        for (name, options) in [
            ("partial_barrier_if", SimOptions::default()),
            ("partial_barrier_return", SimOptions::default()),
            ("step_limit", limit),
        ] {
            let (report, _) = launch(name, 4, &[1024], &options);
            done.send((name, report.stopped_blocks)).unwrap();
        }
    });
    for _ in 0..3 {
        let (name, stopped) = finished
            .recv_timeout(Duration::from_secs(60))
            .expect("a launch hung");
        assert_eq!(stopped, 4, "{name}: every block stops");
    }
}

/// With the sanitizer off, faults are still reported exactly as with it on; diagnostics are not.
#[test]
fn sanitize_off_keeps_faults_drops_diagnostics() {
    let on = SimOptions {
        step_limit: 10_000,
        ..SimOptions::default()
    };
    let off = SimOptions {
        sanitize: false,
        ..on.clone()
    };
    let faults: [(&str, u32, &[usize]); 9] = [
        ("oob_global", 2, &[512]),
        ("oob_shared", 1, &[256]),
        ("misaligned_load_v4", 1, &[512, 128]),
        ("misaligned_store_v2", 1, &[128]),
        ("partial_barrier_if", 1, &[256]),
        ("partial_barrier_return", 1, &[256]),
        ("collective_mask_absent", 1, &[128]),
        ("collective_mask_dynamic", 1, &[128]),
        ("step_limit", 1, &[128]),
    ];
    for (name, blocks, sizes) in faults {
        let (with, _) = launch(name, blocks, sizes, &on);
        let (without, _) = launch(name, blocks, sizes, &off);
        assert_eq!(without.findings.len(), 1, "{name}:{}", show(&without));
        assert_eq!(
            without.findings, with.findings,
            "{name}: the fault is reported the same"
        );
        assert!(!without.is_clean() && without.stopped_blocks > 0, "{name}");
    }
    let diagnostics: [(&str, u32, &[usize]); 7] = [
        ("shared_race_warps", 1, &[128]),
        ("shared_race_war", 1, &[128]),
        ("shared_race_same_statement", 1, &[128]),
        ("shared_race_lanes", 1, &[128]),
        ("global_race", 2, &[16]),
        ("uninit_shared", 1, &[256]),
        ("shuffle_outside_mask", 1, &[128]),
    ];
    for (name, blocks, sizes) in diagnostics {
        let (with, _) = launch(name, blocks, sizes, &on);
        assert_eq!(
            with.findings.len(),
            1,
            "{name}: sanitizer on:{}",
            show(&with)
        );
        let (without, _) = launch(name, blocks, sizes, &off);
        assert_clean(name, &without);
    }
}

// Atomics are not races.

#[test]
fn global_atomics_do_not_race() {
    let (report, out) = launch("atomic_global_counter", 2, &[4], &SimOptions::default());
    assert_clean("atomic_global_counter", &report);
    assert_eq!(word(&out[0], 0), 128);
}

// Simulator bugs these fixtures found (fixed): each test states the behaviour the simulator's
// documentation promises.

#[test]
fn shared_atomics_from_two_warps_do_not_race() {
    let (report, out) = launch("atomic_shared_counter", 1, &[4], &SimOptions::default());
    assert_clean("atomic_shared_counter", &report);
    assert_eq!(word(&out[0], 0), 64);
}

#[test]
fn shared_race_same_statement_on_8_byte_elements() {
    let (report, _) = launch("shared_race_u64", 1, &[256], &SimOptions::default());
    let w = want(
        SharedRace,
        "body[5]",
        (0, 0, 1 << 1),
        Some(("word", 4)),
        &["thread 0 (warp 0, lane 0) and thread 1 (warp 0, lane 1) write different values"],
    );
    assert_finding("shared_race_u64", &report, &w);
}

#[test]
fn misaligned_through_the_shared_arrays_placement() {
    let (report, _) = launch("misaligned_shared_base", 1, &[128], &SimOptions::default());
    let w = want(
        Misaligned,
        "body[3]",
        (0, 0, ALL),
        Some(("tile", 0)),
        &["16-byte access"],
    );
    assert_finding("misaligned_shared_base", &report, &w);
}

/// Lanes of a warp at a barrier that are not there themselves are "on another path", not waiting at it.
#[test]
fn partial_barrier_detail_says_where_the_missing_lanes_are() {
    let (report, _) = launch("partial_barrier_if", 1, &[256], &SimOptions::default());
    let w = want(
        PartialBarrier,
        "body[3].then[0]",
        (0, 0, ALL),
        None,
        &["warp 1: lanes 8-31 are on another path"],
    );
    assert_finding("partial_barrier_if", &report, &w);
}
