//! racecheck and the PTX memory model: two accesses to one byte by different threads with no barrier
//! between them are a data race unless both are strong (morally strong within a block) — an atomic,
//! or a load or store with `.relaxed`, `.acquire`, `.release` or `.volatile`. A flag published with
//! `st.release` (or an atomic) and polled with `ld.acquire` is how `cuda::atomic_ref` and cooperative
//! groups synchronise warps; the same code with plain `ld`/`st` is a race and stays one.

use crate::common::ptx::{run_out, shape};
use warpforge_sim::ptx::{self, PtxArg, PtxKernel, PtxLaunch};
use warpforge_sim::BufferArg;
use warpforge_sim::{FindingKind, SimOptions};

/// Warp 1's lane 0 publishes 7 in shared word 0 with `WRITE`, warp 0's lane 0 reads it with `READ`
/// (no barrier between them), then every thread passes a barrier and thread 0 stores what it read.
fn kernel(write: &str, read: &str) -> String {
    format!(
        "\
.version 7.8
.target sm_80
.address_size 64

.visible .entry flag(.param .u64 out)
{{
    .reg .pred %p<4>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    .shared .align 4 .b32 s_flag[1];
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, s_flag;
    mov.u32 %r3, 0;
    setp.ne.u32 %p1, %r1, 32;
    @%p1 bra READER;
    mov.u32 %r4, 7;
    {write};
READER:
    setp.ne.u32 %p2, %r1, 0;
    @%p2 bra DONE;
    {read};
DONE:
    bar.sync 0;
    @%p2 bra END;
    st.global.u32 [%rd1], %r3;
END:
    ret;
}}
"
    )
}

/// Runs it with the producer warp first (the reader then sees 7); the findings' kinds.
fn races(write: &str, read: &str) -> Vec<FindingKind> {
    let text = kernel(write, read);
    let (report, _) = run_out(&text, "flag", &shape(1, 64), 4, &[], &SimOptions::default());
    report.findings.iter().map(|f| f.kind).collect()
}

const ST_PLAIN: &str = "st.shared.u32 [%r2], %r4";
const ST_RELEASE: &str = "st.release.cta.shared.u32 [%r2], %r4";
const ST_RELAXED: &str = "st.relaxed.gpu.shared.u32 [%r2], %r4";
const ST_VOLATILE: &str = "st.volatile.shared.u32 [%r2], %r4";
const ATOM: &str = "atom.shared.exch.b32 %r5, [%r2], %r4";
const LD_PLAIN: &str = "ld.shared.u32 %r3, [%r2]";
const LD_ACQUIRE: &str = "ld.acquire.cta.shared.u32 %r3, [%r2]";
const LD_RELAXED: &str = "ld.relaxed.cta.shared.u32 %r3, [%r2]";
const LD_VOLATILE: &str = "ld.volatile.shared.u32 %r3, [%r2]";
const ATOM_READ: &str = "atom.shared.or.b32 %r3, [%r2], 0";

#[test]
fn strong_pairs_do_not_race() {
    for write in [ST_RELEASE, ST_RELAXED, ST_VOLATILE, ATOM] {
        for read in [LD_ACQUIRE, LD_RELAXED, LD_VOLATILE, ATOM_READ] {
            let found = races(write, read);
            assert!(
                !found.contains(&FindingKind::SharedRace),
                "`{write}` then `{read}`: {found:?}"
            );
        }
    }
}

#[test]
fn a_plain_access_on_either_side_is_still_a_race() {
    for (write, read) in [
        (ST_PLAIN, LD_ACQUIRE),
        (ST_RELEASE, LD_PLAIN),
        (ST_PLAIN, LD_PLAIN),
        (ATOM, LD_PLAIN),
        (ST_PLAIN, ATOM_READ),
    ] {
        let found = races(write, read);
        assert!(
            found.contains(&FindingKind::SharedRace),
            "`{write}` then `{read}` should race: {found:?}"
        );
    }
}

/// Across blocks: thread 0 of every block adds to a global word atomically, reads it with `READ` and
/// stores what it read in its block's own word.
fn cross_block(read: &str) -> Vec<FindingKind> {
    let text = format!(
        "\
.version 7.8
.target sm_80
.address_size 64

.visible .entry k(.param .u64 buf)
{{
    .reg .pred %p<2>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [buf];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, %tid.x;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra END;
    atom.global.add.u32 %r2, [%rd1], 1;
    {read};
    mov.u32 %r4, %ctaid.x;
    mul.wide.u32 %rd2, %r4, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3+4], %r3;
END:
    ret;
}}
"
    );
    let kernel = PtxKernel::load(&text, "k").unwrap_or_else(|e| panic!("{e}\n{text}"));
    let mut buf = vec![0u8; 16];
    let launch = PtxLaunch {
        grid: [3, 1, 1],
        block: [32, 1, 1],
        dynamic_shared: 0,
    };
    let report = ptx::run(
        &kernel,
        &launch,
        &[PtxArg::Buffer],
        &mut [BufferArg::ReadWrite(&mut buf)],
        &SimOptions::default(),
    )
    .expect("launches");
    report.findings.iter().map(|f| f.kind).collect()
}

#[test]
fn device_scope_strong_loads_do_not_race_with_other_blocks_atomics() {
    for read in [
        "ld.volatile.global.u32 %r3, [%rd1]",
        "ld.relaxed.gpu.global.u32 %r3, [%rd1]",
        "ld.acquire.sys.global.u32 %r3, [%rd1]",
    ] {
        let found = cross_block(read);
        assert!(
            !found.contains(&FindingKind::GlobalRace),
            "`{read}`: {found:?}"
        );
    }
    // A plain load, and a `.cta`-scoped one (strong only within its block), still race with the
    // other blocks' atomics.
    for read in [
        "ld.global.u32 %r3, [%rd1]",
        "ld.relaxed.cta.global.u32 %r3, [%rd1]",
    ] {
        let found = cross_block(read);
        assert!(
            found.contains(&FindingKind::GlobalRace),
            "`{read}` should race: {found:?}"
        );
    }
}
