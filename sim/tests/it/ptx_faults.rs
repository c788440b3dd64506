//! What the PTX simulator reports instead of running a kernel wrong: misaligned accesses as the
//! misaligned address CUDA returns (716) with the PTX line, out-of-range ones as the illegal
//! address (700), instructions it does not implement by name and line (when loading), barriers
//! that cannot complete, collectives whose lanes cannot meet, and launch shapes that contradict
//! `.reqntid`.

use crate::common::ptx::line_of;
use warpforge_sim::ptx::{self, PtxArg, PtxError, PtxKernel, PtxLaunch};
use warpforge_sim::BufferArg;
use warpforge_sim::{FindingKind, SimOptions, SimReport};

fn corpus(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../analysis/tests/corpus/ptx")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn run(
    kernel: &PtxKernel,
    blocks: u32,
    threads: u32,
    args: &[PtxArg],
    buffers: &mut [BufferArg<'_>],
) -> SimReport {
    let launch = PtxLaunch {
        grid: [blocks, 1, 1],
        block: kernel
            .block_shape(Some([threads, 1, 1]))
            .expect("a block shape"),
        dynamic_shared: 0,
    };
    ptx::run(kernel, &launch, args, buffers, &SimOptions::default()).expect("the launch starts")
}

#[test]
fn a_misaligned_shared_load_from_nvcc_is_error_716_with_its_line() {
    for (file, access) in [
        ("bug_a001_misaligned_int.nvcc13.sm80.ptx", "ld.shared.u32"),
        ("bug_a001_v4_offset8.nvrtc129.sm70.ptx", "ld.shared.v4"),
    ] {
        let text = corpus(file);
        let module = warpforge_ptx::parse::parse(&text).expect("parses");
        let entry = module.entries().next().expect("an entry").name.clone();
        let kernel = PtxKernel::from_module(&module, &entry).expect("decodes");
        let input = vec![7u8; 128 * 16];
        let mut out = vec![0u8; 128 * 16];
        let mut buffers = [BufferArg::ReadOnly(&input), BufferArg::ReadWrite(&mut out)];
        let report = run(
            &kernel,
            1,
            128,
            &[PtxArg::Buffer, PtxArg::Buffer],
            &mut buffers,
        );
        assert_eq!(report.stopped_blocks, 1, "{file}");
        let f = report
            .errors()
            .find(|f| f.kind == FindingKind::Misaligned)
            .unwrap_or_else(|| panic!("{file}: {:?}", report.findings));
        let line = line_of(&text, access);
        let text = f.to_string();
        assert!(
            text.contains("misaligned address (CUDA_ERROR_MISALIGNED_ADDRESS, 716)"),
            "{file}: {text}"
        );
        assert!(text.contains(&format!("line {line}: `")), "{file}: {text}");
        assert!(text.contains(access), "{file}: {text}");
        assert!(
            out.iter().all(|&b| b == 0),
            "{file}: nothing stored after the fault"
        );
    }
}

/// A small hand-written kernel: `st.global.u32` to `out[tid + offset]`.
const STORE: &str = "\
.version 7.0
.target sm_80
.address_size 64

.visible .entry store(
    .param .u64 out,
    .param .u32 offset
)
.reqntid 64, 1, 1
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r1, [offset];
    mov.u32 %r2, %tid.x;
    add.u32 %r3, %r2, %r1;
    cvta.to.global.u64 %rd1, %rd1;
    mul.wide.u32 %rd2, %r3, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r2;
    ret;
}
";

#[test]
fn a_store_past_the_buffer_is_error_700_and_one_inside_is_done() {
    let kernel = PtxKernel::load(STORE, "store").expect("decodes");
    let mut out = vec![0u8; 64 * 4];
    let mut buffers = [BufferArg::ReadWrite(&mut out)];
    let report = run(
        &kernel,
        1,
        64,
        &[PtxArg::Buffer, PtxArg::Scalar(0)],
        &mut buffers,
    );
    assert!(report.findings.is_empty(), "{:?}", report.findings);
    let words: Vec<u32> = out
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().expect("4")))
        .collect();
    assert_eq!(words, (0..64).collect::<Vec<u32>>());

    let mut out = vec![0u8; 64 * 4];
    let mut buffers = [BufferArg::ReadWrite(&mut out)];
    let report = run(
        &kernel,
        1,
        64,
        &[PtxArg::Buffer, PtxArg::Scalar(1)],
        &mut buffers,
    );
    let f = report.errors().next().expect("an error");
    assert_eq!(f.kind, FindingKind::OutOfBounds);
    let text = f.to_string();
    assert!(
        text.contains("illegal address (CUDA_ERROR_ILLEGAL_ADDRESS, 700)"),
        "{text}"
    );
    assert!(
        text.contains("line 20: `st.global.u32 [%rd3], %r2;`"),
        "{text}"
    );
    assert!(
        text.contains("byte 256 of `out`, past its end (256 bytes)"),
        "{text}"
    );
    assert_eq!(f.warp, 1, "the second warp's last lane");
    assert_eq!(f.lanes, 1 << 31);
}

#[test]
fn an_instruction_it_does_not_implement_is_named_with_its_line() {
    let text = STORE.replace(
        "    add.u32 %r3, %r2, %r1;",
        "    vabsdiff4.u32.u32.u32.add %r3, %r2, %r1, %r1;",
    );
    let err = PtxKernel::load(&text, "store").expect_err("vabsdiff4 is not implemented");
    match &err {
        PtxError::Unsupported { line, text, .. } => {
            assert_eq!(*line, 16);
            assert_eq!(text, "vabsdiff4.u32.u32.u32.add %r3, %r2, %r1, %r1;");
        }
        other => panic!("{other}"),
    }
    assert!(err
        .to_string()
        .starts_with("line 16: `vabsdiff4.u32.u32.u32.add %r3, %r2, %r1, %r1;`"));

    // A modifier it does not implement is refused too, never guessed.
    let text = STORE.replace("add.u32 %r3, %r2, %r1", "min.relu.s32 %r3, %r2, %r1");
    let err = PtxKernel::load(&text, "store").expect_err(".relu is not implemented");
    assert!(err.to_string().contains("`.relu`"), "{err}");

    // Real compiler output: Triton's sm_90 matmul uses Hopper's warpgroup MMA, refused by name at
    // its first `wgmma` (the sm_80 build, ldmatrix + mma.sync, loads).
    let matmul = corpus("matmul.triton39.sm90.ptx");
    let err = PtxKernel::load(&matmul, "matmul").expect_err("wgmma is not implemented");
    let line = line_of(&matmul, "wgmma.");
    assert!(
        err.to_string()
            .starts_with(&format!("line {line}: `wgmma.")),
        "{err}"
    );
    assert!(
        err.to_string().contains("wgmma (Hopper warpgroup MMA)"),
        "{err}"
    );
    PtxKernel::load(&corpus("matmul.triton39.sm80.ptx"), "matmul").expect("sm_80 loads");
    let err = PtxKernel::load(STORE, "nope").expect_err("no such entry");
    assert_eq!(
        err.to_string(),
        "no entry `nope`; the module's entries: store"
    );
}

#[test]
fn block_shapes_follow_reqntid() {
    let kernel = PtxKernel::load(STORE, "store").expect("decodes");
    assert_eq!(kernel.block_shape(None), Ok([64, 1, 1]));
    assert_eq!(kernel.block_shape(Some([64, 1, 1])), Ok([64, 1, 1]));
    let err = kernel
        .block_shape(Some([128, 1, 1]))
        .expect_err("contradicts .reqntid");
    assert!(err.contains("requires blocks of 64 threads"), "{err}");
    let free =
        PtxKernel::load(&STORE.replace(".reqntid 64, 1, 1\n", ""), "store").expect("decodes");
    assert!(
        free.block_shape(None).is_err(),
        "no .reqntid: a size is required"
    );
    assert_eq!(free.block_shape(Some([96, 1, 1])), Ok([96, 1, 1]));
    let launch = PtxLaunch {
        grid: [1, 1, 1],
        block: [128, 1, 1],
        dynamic_shared: 0,
    };
    let mut out = vec![0u8; 256];
    let err = ptx::run(
        &kernel,
        &launch,
        &[PtxArg::Buffer, PtxArg::Scalar(0)],
        &mut [BufferArg::ReadWrite(&mut out)],
        &SimOptions::default(),
    )
    .expect_err("the shape contradicts .reqntid");
    assert!(err.to_string().contains(".reqntid"), "{err}");
}

/// Warp 0 waits at barrier 1, warp 1 at barrier 2: neither can complete.
const TWO_BARRIERS: &str = "\
.version 7.0
.target sm_80
.address_size 64

.visible .entry two(
)
.reqntid 64, 1, 1
{
    .reg .pred %p<2>;
    .reg .b32 %r<2>;
    mov.u32 %r1, %tid.x;
    setp.lt.u32 %p1, %r1, 32;
    @!%p1 bra $L__second;
    bar.sync 1;
    ret;
$L__second:
    bar.sync 2;
    ret;
}
";

#[test]
fn a_barrier_that_cannot_complete_is_reported_instead_of_hanging() {
    let kernel = PtxKernel::load(TWO_BARRIERS, "two").expect("decodes");
    let report = run(&kernel, 1, 64, &[], &mut []);
    let f = report.errors().next().expect("a finding");
    assert_eq!(f.kind, FindingKind::PartialBarrier);
    let text = f.to_string();
    assert!(text.contains("line 14: `bar.sync 1;`"), "{text}");
    assert!(
        text.contains("warp 1 waits at barrier 2 (line 17"),
        "{text}"
    );
    // Exited threads never hold a barrier up (PTX ISA, `exit`): when the second warp returns
    // instead, the first warp's barrier completes.
    let exits = TWO_BARRIERS.replace("    bar.sync 2;\n", "");
    let kernel = PtxKernel::load(&exits, "two").expect("decodes");
    let report = run(&kernel, 1, 64, &[], &mut []);
    assert!(report.is_clean(), "{:?}", report.findings);
    assert_eq!(report.counters.barriers, 1);
}

#[test]
fn a_warp_divided_at_a_barrier_or_a_full_mask_shuffle_is_reported() {
    // Lanes 0-15 reach the barrier; lanes 16-31 wait where the paths reconverge, after it, and
    // leave the kernel from there: they run ahead and exit (as on Volta and later), and exited
    // threads do not hold a barrier up (PTX ISA, `exit`) — the barrier completes.
    let divided = TWO_BARRIERS
        .replace("setp.lt.u32 %p1, %r1, 32;", "setp.lt.u32 %p1, %r1, 16;")
        .replace("    bar.sync 1;\n    ret;\n", "    bar.sync 1;\n")
        .replace("    bar.sync 2;\n", "");
    let kernel = PtxKernel::load(&divided, "two").expect("decodes");
    let report = run(&kernel, 1, 64, &[], &mut []);
    assert!(report.is_clean(), "{:?}", report.findings);
    // When a barrier lies on their way (here after the reconvergence point), they cannot leave
    // alone: the warp is divided at the first barrier.
    let meets_another = divided.replace(
        "$L__second:\n    ret;",
        "$L__second:\n    bar.sync 1;\n    ret;",
    );
    assert_ne!(meets_another, divided);
    let kernel = PtxKernel::load(&meets_another, "two").expect("decodes");
    let report = run(&kernel, 1, 64, &[], &mut []);
    let f = report.errors().next().expect("a finding");
    assert_eq!(f.kind, FindingKind::PartialBarrier);
    assert!(f.to_string().contains("divergent"), "{f}");

    let shuffle = divided.replace(
        "    bar.sync 1;\n",
        "    shfl.sync.idx.b32 %r1, %r1, 0, 31, 0xffffffff;\n",
    );
    let kernel = PtxKernel::load(&shuffle, "two").expect("decodes");
    let report = run(&kernel, 1, 64, &[], &mut []);
    let f = report.errors().next().expect("a finding");
    assert_eq!(f.kind, FindingKind::CollectiveMask);
    assert!(f.to_string().contains("lanes 16-31"), "{f}");
}

#[test]
fn trap_aborts_with_a_finding_and_a_guarded_off_trap_does_nothing() {
    // Thread `t` stores t + 1, then traps if t == `which` (a parameter; 64: nobody).
    let text = "\
.version 7.0
.target sm_80
.address_size 64

.visible .entry k(.param .u64 out, .param .u32 which)
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r2, [which];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, %tid.x;
    setp.eq.u32 %p1, %r1, %r2;
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    add.u32 %r3, %r1, 1;
    st.global.u32 [%rd3], %r3;
    @%p1 trap;
    ret;
}
";
    let kernel = PtxKernel::load(text, "k").expect("loads");
    let mut out = vec![0u8; 64 * 4];
    let quiet = run(
        &kernel,
        1,
        64,
        &[PtxArg::Buffer, PtxArg::Scalar(64)],
        &mut [BufferArg::ReadWrite(&mut out)],
    );
    assert!(quiet.findings.is_empty(), "{:#?}", quiet.findings);
    assert_eq!(out[4 * 63], 64);
    let report = run(
        &kernel,
        1,
        64,
        &[PtxArg::Buffer, PtxArg::Scalar(37)],
        &mut [BufferArg::ReadWrite(&mut out)],
    );
    assert_eq!(report.findings.len(), 1, "{:#?}", report.findings);
    let f = &report.findings[0];
    assert_eq!((f.kind, f.warp, f.lanes), (FindingKind::Trap, 1, 1 << 5));
    assert!(
        f.statement
            .contains(&format!("line {}", line_of(text, "@%p1 trap;"))),
        "{f}"
    );
    assert!(f.detail.contains("the kernel aborts"), "{f}");
}
