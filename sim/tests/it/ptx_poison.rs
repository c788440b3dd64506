//! The sanitizer's poison: a `shfl.sync` lane that reads a lane outside the membermask (or one that
//! exited) gets an undefined value. That is an error only where the value is used — stored, used as
//! an address, a branch condition or a collective's operand — not where a kernel discards it with a
//! `selp` on the same mask, as a partial warp's reduction does.

use crate::common::ptx::{line_of, run_out, shape};
use warpforge_sim::{Finding, FindingKind, SimOptions};

/// A block of 48 threads (warp 1 holds lanes 0-15 only) sums `tid + 1` per warp by shuffling down
/// by each of `offsets` under the mask of the live lanes; lane 0 stores the sum at `out[warp]`.
/// `use_it` says what the kernel does with each shuffled value `%r6` (`%p2`: the source lane is in
/// the mask).
fn kernel(use_it: &str, offsets: &[u32]) -> String {
    let mut steps = String::new();
    for off in offsets {
        steps.push_str(&format!(
            "    shfl.sync.down.b32 %r6, %r2, {off}, 31, %r3;\n\
             \x20   add.u32 %r7, %r1, {off};\n\
             \x20   shr.b32 %r8, %r3, %r7;\n\
             \x20   and.b32 %r8, %r8, 1;\n\
             \x20   setp.ne.u32 %p2, %r8, 0;\n\
             \x20   {use_it}\n"
        ));
    }
    format!(
        "\
.version 7.8
.target sm_80
.address_size 64

.visible .entry warp_sum(.param .u64 out)
{{
    .reg .pred %p<4>;
    .reg .b32 %r<12>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, %laneid;
    mov.u32 %r4, %tid.x;
    add.u32 %r2, %r4, 1;
    activemask.b32 %r3;
{steps}    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra END;
    shr.u32 %r5, %r4, 5;
    mul.wide.u32 %rd2, %r5, 4;
    add.u64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r2;
END:
    ret;
}}
"
    )
}

/// The full butterfly.
const BUTTERFLY: &[u32] = &[16, 8, 4, 2, 1];
/// One step: warp 1's lanes all read exited lanes.
const ONE: &[u32] = &[16];

/// Runs it with `options`: the two sums and the findings.
fn run(use_it: &str, offsets: &[u32], options: &SimOptions) -> ([u32; 2], Vec<Finding>) {
    let text = kernel(use_it, offsets);
    let (report, out) = run_out(&text, "warp_sum", &shape(1, 48), 8, &[], options);
    let word = |i: usize| u32::from_le_bytes(out[i * 4..i * 4 + 4].try_into().unwrap());
    ([word(0), word(1)], report.findings)
}

const DISCARDED: &str = "selp.b32 %r6, %r6, 0, %p2;\n    add.u32 %r2, %r2, %r6;";
const USED: &str = "add.u32 %r2, %r2, %r6;";

#[test]
fn stray_values_discarded_with_a_select_on_the_mask_are_not_findings() {
    let (sums, findings) = run(DISCARDED, BUTTERFLY, &SimOptions::default());
    assert!(findings.is_empty(), "{findings:#?}");
    // Warp 0: 1 + … + 32; warp 1: 33 + … + 48.
    assert_eq!(sums, [528, 648]);
}

#[test]
fn a_stray_value_that_reaches_memory_is_reported_at_the_store_naming_the_shuffle() {
    let (sums, findings) = run(USED, ONE, &SimOptions::default());
    let text = kernel(USED, ONE);
    assert_eq!(sums[0], 1 + 17);
    assert_eq!(findings.len(), 1, "{findings:#?}");
    let f = &findings[0];
    assert_eq!(f.kind, FindingKind::ShuffleOutsideMask);
    // Only warp 1 (16 live lanes) reads exited lanes; only lane 0 stores.
    assert_eq!((f.warp, f.lanes), (1, 1));
    let store = line_of(&text, "st.global.u32");
    let shuffle = line_of(&text, "shfl.sync.down.b32");
    let message = f.to_string();
    assert!(message.contains(&format!("line {store}")), "{message}");
    assert!(message.contains(&format!("line {shuffle}")), "{message}");
    assert!(message.contains("reaches memory"), "{message}");
    // Without the sanitizer: no poison, no finding.
    let quiet = SimOptions {
        sanitize: false,
        ..SimOptions::default()
    };
    assert!(run(USED, ONE, &quiet).1.is_empty());
    // In the full butterfly the poisoned sum is shuffled on: reported there first.
    let (_, findings) = run(USED, BUTTERFLY, &SimOptions::default());
    let text = kernel(USED, BUTTERFLY);
    let second = line_of(&text, "shfl.sync.down.b32 %r6, %r2, 8");
    assert!(findings[0].to_string().contains(&format!("line {second}")));
    assert!(findings[0].to_string().contains("reaches a collective"));
}

#[test]
fn a_stray_value_that_decides_a_branch_is_reported_at_the_branch() {
    let use_it = "setp.gt.u32 %p3, %r6, 1000;\n    @%p3 bra END;";
    let (sums, findings) = run(use_it, ONE, &SimOptions::default());
    let text = kernel(use_it, ONE);
    assert_eq!(sums, [1, 33], "the sums are never added to");
    assert_eq!(findings.len(), 1, "{findings:#?}");
    let f = &findings[0];
    assert_eq!(f.kind, FindingKind::ShuffleOutsideMask);
    assert_eq!(f.warp, 1);
    let branch = line_of(&text, "@%p3 bra END");
    let message = f.to_string();
    assert!(message.contains(&format!("line {branch}")), "{message}");
    assert!(message.contains("reaches a branch"), "{message}");
}

#[test]
fn a_stray_value_overwritten_before_use_is_not_a_finding() {
    // The shuffled value is replaced by a defined one (a fresh `mov`) before it is added.
    let use_it = "mov.u32 %r6, 0;\n    add.u32 %r2, %r2, %r6;";
    let (sums, findings) = run(use_it, BUTTERFLY, &SimOptions::default());
    assert!(findings.is_empty(), "{findings:#?}");
    assert_eq!(sums, [1, 33]);
}

#[test]
fn a_stray_value_passed_to_another_shuffle_is_reported_there() {
    let use_it = "shfl.sync.idx.b32 %r9, %r6, 0, 31, %r3;";
    let (_, findings) = run(use_it, ONE, &SimOptions::default());
    let text = kernel(use_it, ONE);
    assert_eq!(findings.len(), 1, "{findings:#?}");
    let f = &findings[0];
    assert_eq!((f.kind, f.warp), (FindingKind::ShuffleOutsideMask, 1));
    let message = f.to_string();
    assert!(message.contains("reaches a collective"), "{message}");
    let second = line_of(&text, "shfl.sync.idx.b32 %r9");
    assert!(message.contains(&format!("line {second}")), "{message}");
}
