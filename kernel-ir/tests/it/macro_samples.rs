//! The sample kernels of `warpforge_ir::samples` are written with `#[kernel]`; each expands to the
//! same IR as the builder form it replaced, statement for statement (identical text once the
//! macro's source positions are set aside), kept here as the reference.

use warpforge_ir::builder::{KernelBuilder, F32, U32};
use warpforge_ir::samples::{self, WARP_COLLECTIVE_OUTPUTS};
use warpforge_ir::{verify, Access, Kernel, Mask, ShuffleMode, VoteMode};

/// Every warp collective once, with every lane's result stored, so a backend's warp semantics can be
/// compared with CUDA's lane by lane. Thread `t` (global index) reads `x = input[t]` and writes
/// `out[t * 9 + k]` for:
/// 0 `shuffle idx x, 5`; 1 `shuffle up x, 3`; 2 `shuffle down x, 7`; 3 `shuffle xor x, 9`;
/// 4 `shuffle idx x, x` (a per-lane source, taken modulo 32); 5 `ballot (x & 1 == 1)`;
/// 6 `vote any (x % 97 == 0)` as 0/1; 7 `vote all (x != 12345)` as 0/1; 8 `match_any (x & 3)`.
/// All masks are full; two warps per block.
fn builder_warp_collectives() -> Kernel {
    let mut b = KernelBuilder::new("warp_collectives", 64);
    let input = b.buffer::<U32>("input", Access::ReadOnly);
    let out = b.buffer::<U32>("out", Access::ReadWrite);
    let block = b.block_index();
    let size = b.block_size();
    let base = b.mul(block, size);
    let tid = b.thread_index();
    let t = b.add(base, tid);
    let x = b.load(input, t);
    let mut results = Vec::new();
    for (mode, lane) in [
        (ShuffleMode::Index, 5),
        (ShuffleMode::Up, 3),
        (ShuffleMode::Down, 7),
        (ShuffleMode::Xor, 9),
    ] {
        let lane = b.u32(lane);
        results.push(b.shuffle(mode, x, lane, Mask::FULL));
    }
    results.push(b.shuffle(ShuffleMode::Index, x, x, Mask::FULL));
    let one = b.u32(1);
    let low = b.and(x, one);
    let odd = b.eq(low, one);
    results.push(b.ballot(odd, Mask::FULL));
    let ninety_seven = b.u32(97);
    let rem = b.rem(x, ninety_seven);
    let zero = b.u32(0);
    let multiple = b.eq(rem, zero);
    let any = b.vote(VoteMode::Any, multiple, Mask::FULL);
    results.push(b.zext::<U32, _>(any));
    let marker = b.u32(12345);
    let not_marker = b.ne(x, marker);
    let all = b.vote(VoteMode::All, not_marker, Mask::FULL);
    results.push(b.zext::<U32, _>(all));
    let three = b.u32(3);
    let key = b.and(x, three);
    results.push(b.match_any(key, Mask::FULL));
    let stride = b.u32(WARP_COLLECTIVE_OUTPUTS);
    let first = b.mul(t, stride);
    for (k, r) in results.into_iter().enumerate() {
        let k = b.u32(k as u32);
        let at = b.add(first, k);
        b.store(out, at, r);
    }
    b.finish().expect("the warp_collectives sample verifies")
}

/// `out[i] = a[i] + b[i]` for every `i < n`, with `i = block_index * block_size + thread_index`.
fn builder_vector_add() -> Kernel {
    let mut b = KernelBuilder::new("vector_add", 128);
    let a = b.buffer::<F32>("a", Access::ReadOnly);
    let bb = b.buffer::<F32>("b", Access::ReadOnly);
    let out = b.buffer::<F32>("out", Access::ReadWrite);
    let n = b.scalar_param::<U32>("n");
    let block = b.block_index();
    let size = b.block_size();
    let base = b.mul(block, size);
    let tid = b.thread_index();
    let i = b.add(base, tid);
    let n = b.param(n);
    let in_range = b.lt(i, n);
    b.if_(in_range, |b| {
        let x = b.load(a, i);
        let y = b.load(bb, i);
        let sum = b.add(x, y);
        b.store(out, i, sum);
    });
    b.finish().expect("the vector_add sample verifies")
}

/// Each warp sums the 32 `u32` inputs `input[w * 32 .. w * 32 + 32]` (wrapping), where `w` is the
/// warp's global index; inputs at or past `n` count as 0. Lane 0 writes the sum to `sums[w]`.
/// All lanes reach every shuffle, whatever `n` is: the bounds check only selects what a lane offers.
fn builder_warp_reduce() -> Kernel {
    let mut b = KernelBuilder::new("warp_reduce", 128);
    let input = b.buffer::<U32>("input", Access::ReadOnly);
    let sums = b.buffer::<U32>("sums", Access::ReadWrite);
    let n = b.scalar_param::<U32>("n");
    let acc = b.local::<U32>("acc");
    let block = b.block_index();
    let size = b.block_size();
    let base = b.mul(block, size);
    let tid = b.thread_index();
    let i = b.add(base, tid);
    let n = b.param(n);
    let in_range = b.lt(i, n);
    b.if_(in_range, |b| {
        let x = b.load(input, i);
        b.assign(acc, x);
    });
    for delta in [16, 8, 4, 2, 1] {
        let mine = b.read(acc);
        let lane_mask = b.u32(delta);
        let theirs = b.shuffle(ShuffleMode::Xor, mine, lane_mask, Mask::FULL);
        let sum = b.add(mine, theirs);
        b.assign(acc, sum);
    }
    let lane = b.lane_id();
    let zero = b.u32(0);
    let is_first = b.eq(lane, zero);
    b.if_(is_first, |b| {
        let five = b.u32(5);
        let warp = b.shr(i, five);
        let total = b.read(acc);
        b.store(sums, warp, total);
    });
    b.finish().expect("the warp_reduce sample verifies")
}

fn same(mut from_macro: warpforge_ir::Kernel, from_builder: warpforge_ir::Kernel) {
    verify(&from_macro).expect("the macro's kernel verifies");
    // The macro's kernel also records each statement's Rust position (printed in its text as
    // `@ "file":line:column`); the builder's has none. Without them: the same text and kernel.
    assert!(!from_macro.locs.is_empty());
    assert!(from_macro
        .to_string()
        .contains("@ \"kernel-ir/src/samples.rs\":"));
    from_macro.locs = Default::default();
    assert_eq!(from_macro.to_string(), from_builder.to_string());
    assert_eq!(from_macro, from_builder);
}

#[test]
fn vector_add_matches_the_builder_sample() {
    same(samples::vector_add(), builder_vector_add());
}

#[test]
fn warp_reduce_matches_the_builder_sample() {
    same(samples::warp_reduce(), builder_warp_reduce());
}

#[test]
fn warp_collectives_matches_the_builder_sample() {
    same(samples::warp_collectives(), builder_warp_collectives());
}

#[test]
fn statements_carry_the_rust_line_they_came_from() {
    let k = samples::vector_add();
    let source = include_str!("../../src/samples.rs");
    let line_of = |needle: &str| {
        source
            .lines()
            .position(|l| l.contains(needle))
            .expect("the line")
            + 1
    };
    let file = "kernel-ir/src/samples.rs";
    // `let i = …` is the first statement of the body, `if i < n` the second, the store inside it.
    let first = k.locs.get("body[0]").expect("a position").to_string();
    let at = line_of("let i = block_index() * block_size() + thread_index();");
    assert_eq!(first, format!("{file}:{at}:5"));
    let branch = k.locs.get("body[7]").expect("a position").to_string();
    assert_eq!(branch, format!("{file}:{}:5", line_of("if i < n {")));
    let store = k
        .locs
        .get("body[7].then[3]")
        .expect("a position")
        .to_string();
    assert_eq!(
        store,
        format!("{file}:{}:9", line_of("out[i] = a[i] + b[i];"))
    );
}
