//! Register arrays in `#[kernel]`: one IR local per element of a `let mut` array, one value per
//! element of an immutable one, indices resolved while building (unrolled loops, const generics), and
//! an index past the end refused when the kernel is built, naming the array and the index.

use warpforge_ir::{kernel, verify, Stmt};

#[kernel(block_size = 32)]
fn blocked<const K: u32>(x: &[f32], out: &mut [f32]) {
    let t = thread_index();
    let mut acc = [0.0f32; 4];
    let w = [x[t], x[t + 32]];
    for i in unroll(0..4) {
        for j in [0u32, 1] {
            acc[i] += w[j] * (i as f32);
        }
    }
    out[t] = acc[K] + acc[(K + 1) % 4];
}

#[test]
fn a_register_array_is_one_local_per_element() {
    let k = blocked::<2>();
    verify(&k).expect("verifies");
    let names: Vec<&str> = k.locals.iter().map(|(_, l)| l.name.as_str()).collect();
    for n in ["acc_0", "acc_1", "acc_2", "acc_3"] {
        assert!(names.contains(&n), "{names:?}");
    }
    // The unrolled loops leave no IR loop behind.
    assert!(!k.body.iter().any(|s| matches!(s, Stmt::Loop { .. })));
}

#[test]
#[should_panic(expected = "register array `acc` has 4 elements; index 4 is past its end")]
fn an_index_past_the_end_is_refused_when_building() {
    let _ = blocked::<4>();
}
