//! Sanitizer findings name the kernel's source position beside the statement: the Rust position an
//! IR statement records (`#[warpforge::kernel]`; here the builder's `set_loc` standing in for it), and
//! on PTX the `.loc` in force at the instruction — in warpforge's emitted PTX (the same Rust line) and
//! in nvcc's `-lineinfo` PTX (the `.cu` line).

use warpforge_ir::builder::{KernelBuilder, U32};
use warpforge_ir::{verify, Access, Kernel};
use warpforge_ptx::{emit, Sm};
use warpforge_sim::ptx::{self, PtxArg, PtxKernel, PtxLaunch};
use warpforge_sim::{BufferArg, Finding, FindingKind, SimOptions, SimReport};

/// ```text
/// 3 fn shift(data: &mut [u32]) {
/// 4     let t = thread_index();
/// 5     let next = t + 1;
/// 6     data[next] = t;           // thread 31 writes past the end of a 32-element buffer
/// 7     if lane_id() < 16 {
/// 8         barrier();            // half of the warp: a partial barrier
/// 9     }
/// ```
fn shift() -> Kernel {
    let mut b = KernelBuilder::new("shift", 32);
    let data = b.buffer::<U32>("data", Access::ReadWrite);
    b.set_loc("src/shift.rs", 4, 13);
    let t = b.thread_index();
    b.set_loc("src/shift.rs", 5, 16);
    let one = b.u32(1);
    let next = b.add(t, one);
    b.set_loc("src/shift.rs", 6, 5);
    b.store(data, next, t);
    b.set_loc("src/shift.rs", 7, 8);
    let lane = b.lane_id();
    let sixteen = b.u32(16);
    let low = b.lt(lane, sixteen);
    b.set_loc("src/shift.rs", 7, 5);
    b.if_(low, |b| {
        b.set_loc("src/shift.rs", 8, 9);
        b.barrier();
    });
    b.finish().expect("verifies")
}

fn finding(report: &SimReport, kind: FindingKind) -> &Finding {
    report
        .findings
        .iter()
        .find(|f| f.kind == kind)
        .unwrap_or_else(|| panic!("no {kind:?} in {:#?}", report.findings))
}

#[test]
fn a_finding_on_an_ir_kernel_names_the_rust_line() {
    let kernel = shift();
    let mut data = vec![0u8; 32 * 4];
    let mut args = [BufferArg::ReadWrite(&mut data)];
    let report = warpforge_sim::run(
        &verify(&kernel).unwrap(),
        1,
        &mut args,
        &[],
        &SimOptions::default(),
    )
    .expect("runs");
    let oob = finding(&report, FindingKind::OutOfBounds);
    assert_eq!(oob.statement, "body[3] (src/shift.rs:6:5, store to `data`)");
    assert!(
        oob.to_string()
            .contains("body[3] (src/shift.rs:6:5, store to `data`): block 0"),
        "{oob}"
    );
    // Without positions, the statement as before.
    let mut plain = kernel.clone();
    plain.locs = Default::default();
    let mut data = vec![0u8; 32 * 4];
    let mut args = [BufferArg::ReadWrite(&mut data)];
    let report = warpforge_sim::run(
        &verify(&plain).unwrap(),
        1,
        &mut args,
        &[],
        &SimOptions::default(),
    )
    .unwrap();
    let oob = finding(&report, FindingKind::OutOfBounds);
    assert_eq!(oob.statement, "body[3] (store to `data`)");
}

#[test]
fn a_partial_barrier_on_an_ir_kernel_names_the_rust_line() {
    // A 33-element buffer: every store is in range, and the barrier is what stops the block.
    let kernel = shift();
    let mut data = vec![0u8; 33 * 4];
    let mut args = [BufferArg::ReadWrite(&mut data)];
    let report = warpforge_sim::run(
        &verify(&kernel).unwrap(),
        1,
        &mut args,
        &[],
        &SimOptions::default(),
    )
    .expect("runs");
    let bar = finding(&report, FindingKind::PartialBarrier);
    assert!(
        bar.statement
            .starts_with("body[7].then[0] (src/shift.rs:8:9, barrier)"),
        "{bar}"
    );
}

fn run_ptx(text: &str, threads: u32, buffer_words: usize) -> SimReport {
    let module = warpforge_ptx::parse::parse(text).expect("parses");
    let entry = module.entries().next().expect("an entry").name.clone();
    let kernel = PtxKernel::from_module(&module, &entry).expect("decodes");
    let launch = PtxLaunch {
        grid: [1, 1, 1],
        block: kernel.block_shape(Some([threads, 1, 1])).expect("a shape"),
        dynamic_shared: 0,
    };
    // nvcc's kernels take (in, out), warpforge's `shift` only `data`: the last `n` of these.
    let input = vec![7u8; buffer_words * 4];
    let mut out = vec![0u8; buffer_words * 4];
    let mut buffers = [BufferArg::ReadOnly(&input), BufferArg::ReadWrite(&mut out)];
    let args = [PtxArg::Buffer, PtxArg::Buffer];
    let n = kernel_params(text);
    ptx::run(
        &kernel,
        &launch,
        &args[2 - n..],
        &mut buffers[2 - n..],
        &SimOptions::default(),
    )
    .expect("the launch starts")
}

/// How many `.param`s the entry has (1 or 2 here).
fn kernel_params(text: &str) -> usize {
    text.lines()
        .filter(|l| l.trim_start().starts_with(".param"))
        .count()
}

#[test]
fn a_finding_on_the_emitted_ptx_names_the_rust_line() {
    let kernel = shift();
    for sm in Sm::ALL {
        let text = emit(&verify(&kernel).unwrap(), sm).unwrap().text;
        let report = run_ptx(&text, 32, 32);
        let oob = finding(&report, FindingKind::OutOfBounds);
        let line = text.lines().position(|l| l.contains("st.global")).unwrap() + 1;
        assert!(
            oob.statement
                .starts_with(&format!("line {line} (src/shift.rs:6:5): `st.global.u32")),
            "{sm}: {oob}\n{text}"
        );
    }
}

#[test]
fn a_finding_on_nvcc_lineinfo_ptx_names_the_cuda_line() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../analysis/tests/corpus/ptx");
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).expect("the corpus file");
    let text = read("bug_a001_misaligned_int.nvcc13-lineinfo.sm80.ptx");
    let report = run_ptx(&text, 128, 128);
    let f = finding(&report, FindingKind::Misaligned);
    // `*reinterpret_cast<const int*>(buf + 4 * t + 2)` is line 12 of the .cu source.
    let line = text
        .lines()
        .position(|l| l.contains("ld.shared.u32"))
        .unwrap()
        + 1;
    assert!(
        f.statement.starts_with(&format!(
            "line {line} (/tmp/warpforge-corpus/src/bug_a001_misaligned_int.cu:12:5): `ld.shared.u32"
        )),
        "{f}"
    );
    // Without -lineinfo: the PTX line alone.
    let text = read("bug_a001_misaligned_int.nvcc13.sm80.ptx");
    let f = finding(&run_ptx(&text, 128, 128), FindingKind::Misaligned).clone();
    assert!(
        f.statement.starts_with("line ") && !f.statement.contains(".cu"),
        "{f}"
    );
}
