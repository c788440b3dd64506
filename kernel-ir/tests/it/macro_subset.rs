//! The rest of the `#[kernel]` subset: loops, expression `if`, short-circuit `&&`, casts, atomics,
//! wide accesses, shared arrays, the barrier, `#[device]` functions and const generics. Each kernel
//! verifies; small ones are compared with the same kernel written with the builder.

use warpforge_ir::builder::{KernelBuilder, U32};
use warpforge_ir::{device, kernel, verify, Access};

#[device]
fn clamp_to(x: u32, limit: u32) -> u32 {
    if x > limit {
        limit
    } else {
        x
    }
}

#[device]
fn bump(counts: &mut [u32], at: u32) {
    atomic_add(&counts[at], 1);
}

#[kernel(block_size = 64)]
fn everything<const TILE: u32>(input: &[u32], out: &mut [u32], counts: &mut [u32], n: u32) {
    let tile = shared::<u32>(TILE, 16);
    let t = thread_index();
    tile[t] = input[t];
    barrier();
    let mut sum = 0u32;
    for i in 0..n {
        if i == 3 {
            continue;
        }
        sum += tile[i % TILE];
    }
    for j in (0..n).step_by(4) {
        let [a, b, c, d] = load4(&tile[j]);
        store4(&mut out[j], [a, b, c, d]);
    }
    let mut k = 0u32;
    while k < 10 && input[k] != 0 {
        k += 1;
    }
    loop {
        if k == 0 {
            break;
        }
        k -= 1;
    }
    let wide = sum as u64;
    let narrow = (wide >> 1u32) as u8;
    let signed = narrow as i32;
    out[t] = clamp_to(sum, n) + (signed as u32) + (k << 2);
    bump(counts, t);
    let old = atomic_cas(&counts[0], 1, 2);
    out[0] = if old == 1 { 7 } else { 8 };
}

#[test]
fn every_construct_builds_a_verified_kernel() {
    let k = everything::<256>();
    verify(&k).expect("verifies");
    let text = k.to_string();
    for needle in [
        "shared tile: u32[256] align 16",
        "barrier",
        "atomic add",
        "atomic cas",
        "load.v4 shared tile",
        "store.v4 global out",
        "zext",
        "trunc",
        "continue",
        "break",
    ] {
        assert!(text.contains(needle), "`{needle}` missing from\n{text}");
    }
}

#[kernel(block_size = 32)]
fn count_up(out: &mut [u32], n: u32) {
    for i in 0..n {
        out[i] = i;
    }
}

/// The `for` lowering, written out with the builder: a counter local, a bound check that breaks, the
/// increment before the body (so `continue` cannot skip it).
fn count_up_by_hand() -> warpforge_ir::Kernel {
    let mut b = KernelBuilder::new("count_up", 32);
    let out = b.buffer::<U32>("out", Access::ReadWrite);
    let n = b.scalar_param::<U32>("n");
    let start = b.u32(0);
    let end = b.param(n);
    let counter = b.local::<U32>("i");
    b.assign(counter, start);
    b.loop_(|b| {
        let i = b.read(counter);
        let more = b.lt(i, end);
        b.if_else(more, |_| {}, |b| b.break_());
        let one = b.u32(1);
        let next = b.add(i, one);
        b.assign(counter, next);
        b.store(out, i, i);
    });
    b.finish().unwrap()
}

#[test]
fn a_for_loop_is_a_counted_ir_loop() {
    // Positions aside (the macro's kernel has them, the hand-built one not), the same IR.
    let mut from_macro = count_up();
    from_macro.locs = Default::default();
    assert_eq!(from_macro.to_string(), count_up_by_hand().to_string());
}
