//! W002 where the lanes that exist decide: a mask that names lanes 0..k is right for blocks of at
//! most k threads (templates instantiated for 8- or 16-thread blocks) and wrong for larger ones. With
//! the launch (`.reqntid`, `--block`) the linter decides; without it, a warning that says so.

use warpforge_analysis::{lint_ptx, lint_ptx_assuming, PtxAssumptions, Rule, Severity};

/// A kernel whose every thread shuffles with `mask`, then stores the result.
fn shuffle_with(mask: &str) -> String {
    format!(
        ".version 8.0\n.target sm_80\n.address_size 64\n\n\
         .visible .entry k(.param .u64 out)\n{{\n\
         .reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n\
         mov.u32 %r1, %tid.x;\n\
         shfl.sync.idx.b32 %r2, %r1, 0, 31, {mask};\n\
         ld.param.u64 %rd1, [out];\n\
         cvta.to.global.u64 %rd2, %rd1;\n\
         mul.wide.u32 %rd3, %r1, 4;\n\
         add.s64 %rd2, %rd2, %rd3;\n\
         st.global.u32 [%rd2], %r2;\n\
         ret;\n}}\n"
    )
}

fn w002(ptx: &str, block: Option<u32>) -> Vec<(Severity, String)> {
    let assume = PtxAssumptions {
        warp_aligned: true,
        block,
        ..PtxAssumptions::default()
    };
    let diags = match block {
        Some(_) => lint_ptx_assuming(ptx, &assume),
        None => lint_ptx(ptx),
    };
    diags
        .expect("PTX")
        .into_iter()
        .filter(|d| d.rule == Rule::W002)
        .map(|d| (d.severity, d.message))
        .collect()
}

#[test]
fn a_low_lanes_mask_is_right_for_blocks_it_covers_and_wrong_for_larger_ones() {
    let ptx = shuffle_with("65535");
    assert!(
        w002(&ptx, Some(16)).is_empty(),
        "16 threads: every lane named"
    );
    assert!(
        w002(&ptx, Some(8)).is_empty(),
        "8 threads: every lane named"
    );
    let full = w002(&ptx, Some(64));
    assert!(
        matches!(full.as_slice(), [(Severity::Error, m)] if m.contains("all 32 lanes")),
        "{full:?}"
    );
    let unknown = w002(&ptx, None);
    assert!(
        matches!(unknown.as_slice(), [(Severity::Warning, m)]
            if m.contains("blocks of at most 16 threads") && m.contains("--block")),
        "{unknown:?}"
    );
}

#[test]
fn a_mask_short_of_the_blocks_lanes_or_without_lane_0_is_an_error() {
    let eight = w002(&shuffle_with("255"), Some(16));
    assert!(
        matches!(eight.as_slice(), [(Severity::Error, m)] if m.contains("leaves out lanes 8, 9")),
        "{eight:?}"
    );
    // Lane 0 exists in every launch.
    let no_lane_0 = w002(&shuffle_with("65534"), None);
    assert!(
        matches!(no_lane_0.as_slice(), [(Severity::Error, m)] if m.contains("lane 0")),
        "{no_lane_0:?}"
    );
}

#[test]
fn a_two_dimensional_block_has_full_warps_even_when_its_x_is_small() {
    // `.reqntid 16, 16, 1`: 256 threads, full warps of two rows each; a 16-lane mask is wrong.
    let ptx = shuffle_with("65535").replace(
        ".visible .entry k(.param .u64 out)\n",
        ".visible .entry k(.param .u64 out)\n.reqntid 16, 16, 1\n",
    );
    assert!(ptx.contains(".reqntid 16, 16, 1"));
    let found = w002(&ptx, None);
    assert!(
        matches!(found.as_slice(), [(Severity::Error, m)] if m.contains("blocks of 256 threads")),
        "{found:?}"
    );
    // `.reqntid 16, 1, 1`: only lanes 0-15 exist, and the mask names them all.
    let ptx = shuffle_with("65535").replace(
        ".visible .entry k(.param .u64 out)\n",
        ".visible .entry k(.param .u64 out)\n.reqntid 16, 1, 1\n",
    );
    assert!(w002(&ptx, None).is_empty());
}
