//! Flow-sensitive facts at an access: bounds from the branch conditions that dominate it, loop
//! counters bounded by their loop's condition, congruences narrowing ranges, 32-bit wrap, and one
//! finding per array for what cannot be proven. Each case has a twin that must still warn.

use warpforge_analysis::{lint_ptx, Diagnostic, Severity};

/// A kernel of at most 256 threads with a 1 KiB shared array `s` and `body` as its code
/// (`%r1` = `%tid.x`, `%r2` = the address of `s`).
fn kernel(body: &str) -> String {
    format!(
        ".version 8.0\n.target sm_80\n.address_size 64\n\n.visible .entry k(\n\t.param .u32 k_param_0\n)\n\
         .maxntid 256, 1, 1\n{{\n\t.reg .pred %p<8>;\n\t.reg .b32 %r<40>;\n\t.reg .f32 %f<8>;\n\
         \t.shared .align 4 .b8 s[1024];\n\tmov.u32 %r1, %tid.x;\n\tmov.u32 %r2, s;\n{body}\nDONE:\n\tret;\n}}\n"
    )
}

fn findings(body: &str, rule: &str) -> Vec<Diagnostic> {
    lint_ptx(&kernel(body))
        .expect("PTX")
        .into_iter()
        .filter(|d| d.rule.code() == rule)
        .collect()
}

#[test]
fn a_dominating_condition_bounds_an_address_computed_before_it() {
    // s[tid + 128] under `if (tid < 128)`: at most byte 1020. The address is computed before the branch.
    let body = |limit: u32| {
        format!(
            "\tshl.b32 %r3, %r1, 2;\n\tadd.s32 %r4, %r2, %r3;\n\tsetp.gt.u32 %p1, %r1, {limit};\n\
             \t@%p1 bra DONE;\n\tld.shared.f32 %f1, [%r4+512];\n\tst.shared.f32 [%r4], %f1;"
        )
    };
    assert!(
        findings(&body(127), "S001").is_empty(),
        "tid <= 127: in bounds"
    );
    let past = findings(&body(128), "S001");
    assert_eq!(past.len(), 1, "tid <= 128 reaches byte 1024: {past:?}");
    assert_eq!(
        past[0].severity,
        Severity::Warning,
        "only the threads past 127, under a branch"
    );
}

#[test]
fn a_negated_branch_bounds_the_other_side() {
    // `@!%p bra` jumps when the comparison fails: the fall-through has tid < 128.
    let body = |limit: u32| {
        format!(
            "\tshl.b32 %r3, %r1, 2;\n\tadd.s32 %r4, %r2, %r3;\n\tsetp.lt.u32 %p1, %r1, {limit};\n\
             \t@!%p1 bra DONE;\n\tld.shared.f32 %f1, [%r4+512];"
        )
    };
    assert!(findings(&body(128), "S001").is_empty());
    assert_eq!(findings(&body(129), "S001").len(), 1);
}

#[test]
fn a_loop_counter_is_bounded_by_its_loop_condition() {
    // for (b = tid; b < 256; b += blockDim.x) s[b] = 0;  — nvcc's rotated loop.
    let body = |limit: u32| {
        format!(
            "\tmov.u32 %r5, %ntid.x;\n\tsetp.ge.u32 %p1, %r1, {limit};\n\t@%p1 bra DONE;\n\
             \tmov.u32 %r6, %r1;\nLOOP:\n\tshl.b32 %r7, %r6, 2;\n\tadd.s32 %r8, %r2, %r7;\n\
             \tmov.u32 %r9, 0;\n\tst.shared.u32 [%r8], %r9;\n\tadd.s32 %r6, %r6, %r5;\n\
             \tsetp.lt.u32 %p2, %r6, {limit};\n\t@%p2 bra LOOP;"
        )
    };
    assert!(
        findings(&body(256), "S001").is_empty(),
        "b < 256: in bounds"
    );
    assert_eq!(
        findings(&body(257), "S001").len(),
        1,
        "b < 257 reaches byte 1024"
    );
}

#[test]
fn a_signed_comparison_bounds_nothing_that_may_be_negative() {
    // A loaded index compared as signed: negative values pass `< 100` and are huge offsets.
    let body = |ty: &str| {
        format!(
            "\tld.shared.u32 %r3, [%r2];\n\tsetp.ge.{ty} %p1, %r3, 100;\n\t@%p1 bra DONE;\n\
             \tshl.b32 %r4, %r3, 2;\n\tadd.s32 %r5, %r2, %r4;\n\tld.shared.f32 %f1, [%r5];"
        )
    };
    assert!(
        findings(&body("u32"), "S001").is_empty(),
        "unsigned: below 100"
    );
    assert_eq!(
        findings(&body("s32"), "S001").len(),
        1,
        "signed: may be negative"
    );
}

#[test]
fn an_xor_of_aligned_values_keeps_its_alignment_and_bound() {
    // s[(4·tid) ^ 4] with tid < 256: a multiple of 4 at most 1020.
    let body = "\tshl.b32 %r3, %r1, 2;\n\txor.b32 %r4, %r3, 4;\n\tadd.s32 %r5, %r2, %r4;\n\
                \tld.shared.u32 %r6, [%r5];";
    assert!(findings(body, "S001").is_empty());
    assert!(findings(body, "A001").is_empty());
}

#[test]
fn a_32_bit_product_wraps_before_the_shift() {
    // A multiplicative hash: (x · 2654435761 mod 2^32) >> 24 is below 256 — only with the wrap.
    let body = |shift: u32| {
        format!(
            "\tld.shared.u32 %r3, [%r2];\n\tmul.lo.s32 %r4, %r3, -1640531535;\n\
             \tshr.u32 %r5, %r4, {shift};\n\tshl.b32 %r6, %r5, 2;\n\tadd.s32 %r7, %r2, %r6;\n\
             \tld.shared.u32 %r8, [%r7];"
        )
    };
    assert!(
        findings(&body(24), "S001").is_empty(),
        ">> 24: below 256 entries"
    );
    assert_eq!(
        findings(&body(23), "S001").len(),
        1,
        ">> 23: up to 511 entries"
    );
}

#[test]
fn what_cannot_be_proven_is_one_finding_per_array() {
    // Three accesses whose index is a loaded value: one warning listing the other two.
    let body = "\tld.shared.u32 %r3, [%r2];\n\tshl.b32 %r4, %r3, 2;\n\tadd.s32 %r5, %r2, %r4;\n\
                \tld.shared.f32 %f1, [%r5];\n\tld.shared.f32 %f2, [%r5+4];\n\tst.shared.f32 [%r5+8], %f1;";
    let found = findings(body, "S001");
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].also.len(), 2, "{found:?}");
}

#[test]
fn a_lane_mask_is_not_a_lane_number() {
    // `s[laneid]` stays inside the 1 KiB array; `s[lanemask_lt]` is any 32-bit index.
    let body = |reg: &str| {
        format!(
            "\tmov.u32 %r3, {reg};\n\tshl.b32 %r4, %r3, 2;\n\tadd.s32 %r5, %r2, %r4;\n\
             \tst.shared.u32 [%r5], %r3;"
        )
    };
    assert!(findings(&body("%laneid"), "S001").is_empty());
    assert_eq!(findings(&body("%lanemask_lt"), "S001").len(), 1);
}
