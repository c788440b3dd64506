//! The LZ4 compaction kernel, written as a Rust function (`#[kernel]`, in
//! `kernels/lz4/compact_kernel.rs`), is the kernel its builder form built: the same IR text and the
//! same kernel once the macro's source positions are set aside, for every block size the runtimes
//! use. Its PTX and WGSL therefore match too (the emitters see the same IR); the backends run it on
//! the sample pages in the root crate's tests as before.

use warpforge_ir::builder::{KernelBuilder, U32, U8};
use warpforge_ir::{verify, Access, Kernel};
use warpforge_lz4::kernels::lz4::lz4_compact_kernel;

/// The builder form the macro kernel replaced (with the LZ4 kernels' strided-loop helper written
/// out: counter = start; loop { i = counter; if i >= end break; body(i); counter = i + 32 }).
fn builder_form(warps_per_block: u32) -> Kernel {
    let mut b = KernelBuilder::new("lz4_compact_pages", 32 * warps_per_block);
    let slots = b.buffer::<U8>("slots", Access::ReadOnly);
    let meta = b.buffer::<U32>("meta", Access::ReadOnly);
    let offsets = b.buffer::<U32>("offsets", Access::ReadOnly);
    let compact = b.buffer::<U8>("compact", Access::ReadWrite);
    let pages = b.scalar_param::<U32>("pages");
    let j = b.local::<U32>("j");
    let block = b.block_index();
    let w = b.u32(warps_per_block);
    let first = b.mul(block, w);
    let warp = b.warp_index();
    let g = b.add(first, warp);
    let pages = b.param(pages);
    let in_range = b.lt(g, pages);
    b.if_(in_range, |b| {
        let four = b.u32(4);
        let m = b.mul(g, four);
        let kind = b.load(meta, m);
        let zero = b.u32(0);
        let is_lz4 = b.eq(kind, zero);
        b.if_(is_lz4, |b| {
            let one = b.u32(1);
            let at = b.add(m, one);
            let len = b.load(meta, at);
            let dst = b.load(offsets, g);
            let page = b.u32(4096);
            let src = b.mul(g, page);
            let lane = b.lane_id();
            b.assign(j, lane);
            b.loop_(|b| {
                let k = b.read(j);
                let done = b.ge(k, len);
                b.if_(done, |b| b.break_());
                let from = b.add(src, k);
                let byte = b.load(slots, from);
                let to = b.add(dst, k);
                b.store(compact, to, byte);
                let step = b.u32(32);
                let next = b.add(k, step);
                b.assign(j, next);
            });
        });
    });
    b.finish().expect("the compaction kernel verifies")
}

#[test]
fn the_macro_kernel_is_the_builder_kernel() {
    for warps in [1, 2, 4, 8, 32] {
        let mut from_macro = lz4_compact_kernel(warps);
        verify(&from_macro).expect("verifies");
        assert!(
            !from_macro.locs.is_empty(),
            "the macro records Rust positions"
        );
        let located = from_macro.to_string();
        assert!(located.contains("compact_kernel.rs\":"), "{located}");
        from_macro.locs = Default::default();
        let by_hand = builder_form(warps);
        assert_eq!(from_macro.to_string(), by_hand.to_string(), "{warps} warps");
        assert_eq!(from_macro, by_hand, "{warps} warps");
    }
}

#[test]
fn a_block_size_outside_the_warps_limit_is_refused() {
    let err = std::panic::catch_unwind(|| lz4_compact_kernel(33)).expect_err("33 warps");
    let message = err.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(message.contains("1 to 32 warps"), "{message}");
}
