//! Findings name the kernel's source position beside their statement path or PTX line: the Rust
//! position of an IR statement (`#[warpforge::kernel]`, here the builder's `set_loc` standing in for
//! it), the `.loc` in force at a PTX instruction — in warpforge's emitted PTX (the same Rust line) and
//! in nvcc's `-lineinfo` PTX (the `.cu` line).

use warpforge_analysis::Rule;
use warpforge_analysis::{lint_kernel, lint_ptx, render_json, render_text, Diagnostic};
use warpforge_ir::builder::{KernelBuilder, U32};
use warpforge_ir::{verify, Access, Kernel, SourceLoc};
use warpforge_ptx::{emit, Sm};

/// ```text
///  3 fn partial(data: &mut [u32]) {
///  4     let lane = lane_id();
///  5     if lane < 16 {
///  6         barrier();          // B001: not every thread of the block gets here
///  7     }
///  8     data[lane] = lane;
///  9 }
/// ```
fn partial_barrier() -> Kernel {
    let mut b = KernelBuilder::new("partial", 64);
    let data = b.buffer::<U32>("data", Access::ReadWrite);
    b.set_loc("src/partial.rs", 4, 16);
    let lane = b.lane_id();
    b.set_loc("src/partial.rs", 5, 8);
    let sixteen = b.u32(16);
    let low = b.lt(lane, sixteen);
    b.set_loc("src/partial.rs", 5, 5);
    b.if_(low, |b| {
        b.set_loc("src/partial.rs", 6, 9);
        b.barrier();
    });
    b.set_loc("src/partial.rs", 8, 5);
    b.store(data, lane, lane);
    b.finish().expect("verifies")
}

fn b001(diags: &[Diagnostic]) -> &Diagnostic {
    diags
        .iter()
        .find(|d| d.rule == Rule::B001)
        .unwrap_or_else(|| panic!("no B001 in {diags:#?}"))
}

#[test]
fn a_lint_finding_on_ir_names_the_rust_line() {
    let kernel = partial_barrier();
    let diags = lint_kernel(&verify(&kernel).unwrap());
    let d = b001(&diags);
    assert_eq!(d.location.to_string(), "body[3].then[0]");
    assert_eq!(d.source, Some(SourceLoc::new("src/partial.rs", 6, 9)));
    let text = render_text("partial.rs", &diags);
    assert!(
        text.contains("kernel `partial`, body[3].then[0] (src/partial.rs:6:9): "),
        "{text}"
    );
    let json = render_json("partial.rs", &diags);
    assert!(
        json.contains("\"source\": \"src/partial.rs:6:9\""),
        "{json}"
    );
    // Without positions, no source and the text as before.
    let mut plain = kernel.clone();
    plain.locs = Default::default();
    let diags = lint_kernel(&verify(&plain).unwrap());
    assert_eq!(b001(&diags).source, None);
    let text = render_text("partial.rs", &diags);
    assert!(
        text.contains("kernel `partial`, body[3].then[0]: "),
        "{text}"
    );
    assert!(!render_json("partial.rs", &diags).contains("\"source\""));
}

#[test]
fn a_lint_finding_on_the_emitted_ptx_names_the_rust_line() {
    let kernel = partial_barrier();
    let ir = lint_kernel(&verify(&kernel).unwrap());
    for sm in Sm::ALL {
        let ptx = emit(&verify(&kernel).unwrap(), sm).unwrap().text;
        let diags = lint_ptx(&ptx).expect("lints");
        let d = b001(&diags);
        assert_eq!(
            d.source,
            Some(SourceLoc::new("src/partial.rs", 6, 9)),
            "{ptx}"
        );
        let bar_line = ptx.lines().position(|l| l.contains("bar.sync")).unwrap() + 1;
        assert_eq!(d.location.to_string(), format!("line {bar_line}, column 5"));
        // Every finding on the PTX names a Rust position the IR's findings use too.
        for d in &diags {
            let src = d.source.as_ref().unwrap_or_else(|| panic!("{d:?}"));
            assert!(
                kernel.locs.iter().any(|(_, l)| l == src),
                "{src} is no statement's position"
            );
        }
        assert_eq!(
            ir.iter().map(|d| d.rule).collect::<Vec<_>>(),
            diags.iter().map(|d| d.rule).collect::<Vec<_>>()
        );
    }
}

#[test]
fn a_lint_finding_on_nvcc_lineinfo_ptx_names_the_cuda_line() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/corpus/ptx/bug_b001_partial_barrier.nvcc13-lineinfo.sm80.ptx"
    );
    let ptx = std::fs::read_to_string(path).expect("the corpus file");
    let diags = lint_ptx(&ptx).expect("lints");
    let d = b001(&diags);
    // `if (threadIdx.x < 16) __syncthreads();` is line 10 of the .cu source; the `.file` directive
    // comes after the entry.
    let src = d.source.as_ref().expect("a source position");
    assert_eq!(
        src.to_string(),
        "/tmp/warpforge-corpus/src/bug_b001_partial_barrier.cu:10:5"
    );
    // The same file without `-lineinfo` has none.
    let plain = path.replace("nvcc13-lineinfo.sm80", "nvcc13.sm80");
    let diags = lint_ptx(&std::fs::read_to_string(plain).unwrap()).unwrap();
    assert!(diags.iter().all(|d| d.source.is_none()));
}

#[test]
fn a_loc_naming_no_file_is_named_by_its_number() {
    let kernel = partial_barrier();
    let ptx = emit(&verify(&kernel).unwrap(), Sm::Sm80).unwrap().text;
    let ptx = ptx.replace(".file 1 \"src/partial.rs\"\n", "");
    let diags = lint_ptx(&ptx).expect("lints");
    assert_eq!(
        b001(&diags).source.as_ref().unwrap().to_string(),
        "file 1:6:9"
    );
}
