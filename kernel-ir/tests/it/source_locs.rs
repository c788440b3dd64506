//! Source positions recorded by the builder (`set_loc` / `clear_loc`), standing in for what the
//! `#[warpforge::kernel]` macro emits: each statement is keyed by its path, control-flow calls keep the
//! position they started with, and a kernel without positions is unchanged.

use warpforge_ir::builder::{KernelBuilder, U32};
use warpforge_ir::{samples, Access, Kernel, SourceLoc};

/// `data[i] += 1` for lanes below 16, then a loop that breaks at once, positions on every line.
fn located() -> Kernel {
    let mut b = KernelBuilder::new("located", 32);
    let data = b.buffer::<U32>("data", Access::ReadWrite);
    b.set_loc("src/k.rs", 3, 5);
    let i = b.thread_index(); // body[0]
    let sixteen = b.u32(16); // body[1]
    b.set_loc("src/k.rs", 4, 5);
    let low = b.lt(i, sixteen); // body[2]
    b.if_(low, |b| {
        // body[3]
        b.set_loc("src/k.rs", 5, 9);
        let x = b.load(data, i); // body[3].then[0]
        b.set_loc("src/k.rs", 6, 9);
        let one = b.u32(1); // body[3].then[1]
        let y = b.add(x, one); // body[3].then[2]
        b.set_loc("src/other.rs", 7, 13);
        b.store(data, i, y); // body[3].then[3]
    });
    let n = b.u32(0); // body[4]: back at line 4
    b.loop_(|b| {
        // body[5]
        b.set_loc("src/k.rs", 9, 9);
        b.break_(); // body[5].loop[0]
    });
    b.clear_loc();
    b.store(data, n, n); // body[6]: no position
    b.finish().expect("verifies")
}

#[test]
fn each_statement_carries_the_position_current_when_it_was_pushed() {
    let k = located();
    let at = |path: &str| k.locs.get(path).map(ToString::to_string);
    assert_eq!(at("body[0]").as_deref(), Some("src/k.rs:3:5"));
    assert_eq!(at("body[1]").as_deref(), Some("src/k.rs:3:5"));
    assert_eq!(at("body[2]").as_deref(), Some("src/k.rs:4:5"));
    assert_eq!(at("body[3]").as_deref(), Some("src/k.rs:4:5"), "the if");
    assert_eq!(at("body[3].then[0]").as_deref(), Some("src/k.rs:5:9"));
    assert_eq!(at("body[3].then[1]").as_deref(), Some("src/k.rs:6:9"));
    assert_eq!(at("body[3].then[2]").as_deref(), Some("src/k.rs:6:9"));
    assert_eq!(at("body[3].then[3]").as_deref(), Some("src/other.rs:7:13"));
    assert_eq!(
        at("body[4]").as_deref(),
        Some("src/k.rs:4:5"),
        "after the if"
    );
    assert_eq!(at("body[5]").as_deref(), Some("src/k.rs:4:5"), "the loop");
    assert_eq!(at("body[5].loop[0]").as_deref(), Some("src/k.rs:9:9"));
    assert_eq!(at("body[6]"), None, "after clear_loc");
    assert_eq!(k.locs.len(), 11);
    assert_eq!(k.locs.files(), ["src/k.rs", "src/other.rs"]);
}

#[test]
fn without_positions_a_kernel_is_what_it_was() {
    // The same kernel with and without positions: same statements, and equal once positions go.
    let mut k = located();
    assert!(!k.locs.is_empty());
    let paths: Vec<String> = k.locs.iter().map(|(p, _)| p.to_owned()).collect();
    for p in paths {
        k.locs.remove(&p);
    }
    let mut b = KernelBuilder::new("v", 32);
    b.set_loc("x.rs", 1, 1);
    b.clear_loc();
    let _ = b.thread_index();
    assert!(b.finish().unwrap().locs.is_empty());
    // The samples are written with `#[kernel]`, so they have positions; the builder alone has none.
    assert!(!samples::vector_add().locs.is_empty());
    assert_eq!(
        SourceLoc::new("src/saxpy.rs", 12, 9).to_string(),
        "src/saxpy.rs:12:9"
    );
    assert!(k.locs.is_empty());
}

#[test]
fn a_verifier_error_names_the_rust_position_beside_the_path() {
    let mut b = KernelBuilder::new("saxpy", 32);
    b.set_loc("src/saxpy.rs", 10, 5);
    let t = b.bool(true);
    b.set_loc("src/saxpy.rs", 11, 5);
    b.if_(t, |b| {
        b.set_loc("src/saxpy.rs", 12, 9);
        let _unused = b.u32(3);
        b.break_(); // `break` outside of a loop
    });
    let e = b.finish().expect_err("break outside a loop");
    assert_eq!(e.path, "body[1].then[1]");
    assert_eq!(e.loc, Some(SourceLoc::new("src/saxpy.rs", 12, 9)));
    assert_eq!(
        e.to_string(),
        "kernel `saxpy`, body[1].then[1] (src/saxpy.rs:12:9): `break` outside of a loop"
    );
    // Without positions the message is what it always was.
    let mut b = KernelBuilder::new("saxpy", 32);
    b.break_();
    let e = b.finish().expect_err("break outside a loop");
    assert_eq!(e.loc, None);
    assert_eq!(
        e.to_string(),
        "kernel `saxpy`, body[0]: `break` outside of a loop"
    );
}
