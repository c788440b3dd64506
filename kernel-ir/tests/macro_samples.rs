//! The sample kernels of `warpforge_ir::samples`, written again with `#[kernel]`: each expands to the
//! same IR as its builder form, statement for statement (identical text).

use warpforge_ir::samples::{self, WARP_COLLECTIVE_OUTPUTS};
use warpforge_ir::{kernel, verify};

#[kernel(block_size = 128)]
fn vector_add(a: &[f32], b: &[f32], out: &mut [f32], n: u32) {
    let i = block_index() * block_size() + thread_index();
    if i < n {
        out[i] = a[i] + b[i];
    }
}

#[kernel(block_size = 128)]
fn warp_reduce(input: &[u32], sums: &mut [u32], n: u32) {
    // IR locals start at zero: this initializer emits nothing.
    let mut acc = 0u32;
    let i = block_index() * block_size() + thread_index();
    if i < n {
        acc = input[i];
    }
    // Unrolled while building, as the builder form's Rust loop is.
    for delta in [16, 8, 4, 2, 1] {
        let mine = acc;
        let theirs = shuffle_xor(mine, delta, FULL_MASK);
        acc = mine + theirs;
    }
    if lane_id() == 0 {
        let warp = i >> 5;
        sums[warp] = acc;
    }
}

#[kernel(block_size = 64)]
fn warp_collectives(input: &[u32], out: &mut [u32]) {
    let t = block_index() * block_size() + thread_index();
    let x = input[t];
    let r0 = shuffle_idx(x, 5, FULL_MASK);
    let r1 = shuffle_up(x, 3, FULL_MASK);
    let r2 = shuffle_down(x, 7, FULL_MASK);
    let r3 = shuffle_xor(x, 9, FULL_MASK);
    let r4 = shuffle_idx(x, x, FULL_MASK);
    let one = 1u32;
    let r5 = ballot((x & one) == one, FULL_MASK);
    let r6 = vote_any(x % 97 == 0, FULL_MASK) as u32;
    let r7 = vote_all(x != 12345, FULL_MASK) as u32;
    let r8 = match_any(x & 3, FULL_MASK);
    let first = t * WARP_COLLECTIVE_OUTPUTS;
    out[first + 0] = r0;
    out[first + 1] = r1;
    out[first + 2] = r2;
    out[first + 3] = r3;
    out[first + 4] = r4;
    out[first + 5] = r5;
    out[first + 6] = r6;
    out[first + 7] = r7;
    out[first + 8] = r8;
}

fn same(mut from_macro: warpforge_ir::Kernel, from_builder: warpforge_ir::Kernel) {
    verify(&from_macro).expect("the macro's kernel verifies");
    // The macro's kernel also records each statement's Rust position (printed in its text as
    // `@ "file":line:column`); the builder's has none. Without them: the same text and kernel.
    assert!(!from_macro.locs.is_empty());
    assert!(from_macro
        .to_string()
        .contains(&format!("@ \"{}\":", file!())));
    from_macro.locs = Default::default();
    assert_eq!(from_macro.to_string(), from_builder.to_string());
    assert_eq!(from_macro, from_builder);
}

#[test]
fn vector_add_matches_the_builder_sample() {
    same(vector_add(), samples::vector_add());
}

#[test]
fn warp_reduce_matches_the_builder_sample() {
    same(warp_reduce(), samples::warp_reduce());
}

#[test]
fn warp_collectives_matches_the_builder_sample() {
    same(warp_collectives(), samples::warp_collectives());
}

#[test]
fn statements_carry_the_rust_line_they_came_from() {
    let k = vector_add();
    // `let i = …` is the first line of the body (line 9 of this file), `if i < n` the second.
    let first = k.locs.get("body[0]").expect("a position").to_string();
    assert_eq!(first, format!("{}:9:5", file!()));
    let branch = k.locs.get("body[7]").expect("a position").to_string();
    assert_eq!(branch, format!("{}:10:5", file!()));
    let store = k
        .locs
        .get("body[7].then[3]")
        .expect("a position")
        .to_string();
    assert_eq!(store, format!("{}:11:9", file!()));
}
