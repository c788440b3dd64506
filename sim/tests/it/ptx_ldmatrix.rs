//! `ldmatrix` and `stmatrix` (`.m8n8`, `.x1`/`.x2`/`.x4`, with and without `.trans`, `.shared` and
//! generic addresses) on the PTX simulator: 1 KiB of shared memory filled from a buffer, each lane
//! giving the shared offset of one row (rows scattered over the memory in a random order), the
//! registers stored lane by lane. Expected registers (and memory images for `stmatrix`) come from
//! `fixtures/mma/make_expected.py`, which follows the ISA's description of the instructions.
//! The accesses go through the shared-memory checks: a misaligned or out-of-bounds row address
//! and a row never written are reported; `.x1`/`.x2` ignore the addresses of the other lanes.

use crate::mma_support;

use mma_support::{bytes_of, case, ints, run, run_clean, words_of};
use warpforge_sim::ptx::{PtxArg, PtxKernel};
use warpforge_sim::BufferArg;

const HEAD: &str = ".version 8.0\n.target sm_90\n.address_size 64\n\
    .visible .entry k(.param .u64 pmem, .param .u64 poffs, .param .u64 pout)\n{\n\
    .shared .align 16 .b8 smem[1024];\n.reg .b32 %r<10>;\n.reg .b64 %rd<16>;\n.reg .b32 %d<4>;\n\
    mov.u32 %r0, %laneid;\nld.param.u64 %rd0, [pmem];\nld.param.u64 %rd1, [poffs];\n\
    ld.param.u64 %rd2, [pout];\nmov.u32 %r5, smem;\nmul.lo.u32 %r6, %r0, 32;\n\
    add.u32 %r7, %r5, %r6;\nmul.wide.u32 %rd3, %r0, 32;\nadd.s64 %rd4, %rd0, %rd3;\n\
    mul.wide.u32 %rd5, %r0, 4;\nadd.s64 %rd6, %rd1, %rd5;\nld.global.u32 %r8, [%rd6];\n\
    add.u32 %r9, %r5, %r8;\n";

fn regs(count: usize) -> String {
    (0..count)
        .map(|i| format!("%d{i}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Fills shared memory from `pmem` (unless `fill` is false), loads the matrices at each lane's row
/// offset (from `poffs`), stores the registers to `pout`.
fn ld_kernel(count: usize, trans: bool, generic: bool, fill: bool) -> String {
    let mut s = HEAD.to_owned();
    if fill {
        s += "ld.global.v4.u32 {%r1, %r2, %r3, %r4}, [%rd4];\n\
              st.shared.v4.u32 [%r7], {%r1, %r2, %r3, %r4};\n\
              ld.global.v4.u32 {%r1, %r2, %r3, %r4}, [%rd4+16];\n\
              st.shared.v4.u32 [%r7+16], {%r1, %r2, %r3, %r4};\n";
    }
    s += "bar.warp.sync -1;\n";
    let t = if trans { ".trans" } else { "" };
    if generic {
        s += &format!(
            "cvt.u64.u32 %rd7, %r9;\ncvta.shared.u64 %rd8, %rd7;\n\
             ldmatrix.sync.aligned.m8n8.x{count}{t}.b16 {{{}}}, [%rd8];\n",
            regs(count)
        );
    } else {
        s += &format!(
            "ldmatrix.sync.aligned.m8n8.x{count}{t}.shared.b16 {{{}}}, [%r9];\n",
            regs(count)
        );
    }
    s += &format!(
        "mul.wide.u32 %rd9, %r0, {};\nadd.s64 %rd10, %rd2, %rd9;\n",
        4 * count
    );
    for i in 0..count {
        s += &format!("st.global.u32 [%rd10+{}], %d{i};\n", 4 * i);
    }
    s + "ret;\n}\n"
}

/// Zeroes shared memory, stores the registers from `pmem` (lane by lane) at each lane's row
/// offset, copies shared memory to `pout`.
fn st_kernel(count: usize, trans: bool) -> String {
    let mut s = HEAD.to_owned();
    s += "mov.u32 %r1, 0;\nst.shared.v4.u32 [%r7], {%r1, %r1, %r1, %r1};\n\
          st.shared.v4.u32 [%r7+16], {%r1, %r1, %r1, %r1};\nbar.warp.sync -1;\n";
    s += &format!(
        "mul.wide.u32 %rd11, %r0, {};\nadd.s64 %rd12, %rd0, %rd11;\n",
        4 * count
    );
    for i in 0..count {
        s += &format!("ld.global.u32 %d{i}, [%rd12+{}];\n", 4 * i);
    }
    let t = if trans { ".trans" } else { "" };
    s += &format!(
        "stmatrix.sync.aligned.m8n8.x{count}{t}.shared.b16 [%r9], {{{}}};\nbar.warp.sync -1;\n",
        regs(count)
    );
    s += "add.s64 %rd13, %rd2, %rd3;\nld.shared.v4.u32 {%r1, %r2, %r3, %r4}, [%r7];\n\
          st.global.v4.u32 [%rd13], {%r1, %r2, %r3, %r4};\n\
          ld.shared.v4.u32 {%r1, %r2, %r3, %r4}, [%r7+16];\n\
          st.global.v4.u32 [%rd13+16], {%r1, %r2, %r3, %r4};\nret;\n}\n";
    s
}

fn name(op: &str, count: usize, trans: bool) -> String {
    format!("{op}_x{count}{}", if trans { ".trans" } else { "" })
}

/// Runs `kernel` with memory `mem` (bytes), row offsets `offs`; returns `pout` and the findings.
fn launch(kernel: &str, mem: &[u8], offs: &[u64], out_len: usize) -> (Vec<u8>, Vec<String>) {
    let kernel = PtxKernel::load(kernel, "k").unwrap_or_else(|e| panic!("{e}"));
    let offs = bytes_of(offs, 4);
    let mut out = vec![0u8; out_len];
    let mut buffers = [
        BufferArg::ReadOnly(mem),
        BufferArg::ReadOnly(&offs),
        BufferArg::ReadWrite(&mut out),
    ];
    let report = run(
        &kernel,
        [1, 1, 1],
        32,
        &[const { PtxArg::Buffer }; 3],
        &mut buffers,
    );
    let findings = report.findings.iter().map(|f| f.to_string()).collect();
    (out, findings)
}

#[test]
fn ldmatrix_gives_each_lane_its_elements() {
    for count in [1, 2, 4] {
        for trans in [false, true] {
            for generic in [false, true] {
                let c = case(&name("ldmatrix", count, trans));
                let mem = bytes_of(&ints(&c["mem"]), 2);
                let (out, findings) = launch(
                    &ld_kernel(count, trans, generic, true),
                    &mem,
                    &ints(&c["offs"]),
                    32 * 4 * count,
                );
                let what = format!("x{count} trans {trans} generic {generic}");
                assert!(findings.is_empty(), "{what}: {findings:#?}");
                assert_eq!(words_of(&out, 4), ints(&c["words"]), "{what}");
            }
        }
    }
}

#[test]
fn stmatrix_writes_each_lanes_elements() {
    for count in [1, 2, 4] {
        for trans in [false, true] {
            let c = case(&name("stmatrix", count, trans));
            let regs = bytes_of(&ints(&c["regs"]), 4);
            let kernel = PtxKernel::load(&st_kernel(count, trans), "k").expect("loads");
            let offs = bytes_of(&ints(&c["offs"]), 4);
            let mut out = vec![0u8; 1024];
            let mut buffers = [
                BufferArg::ReadOnly(&regs),
                BufferArg::ReadOnly(&offs),
                BufferArg::ReadWrite(&mut out),
            ];
            run_clean(
                &kernel,
                [1, 1, 1],
                32,
                &[const { PtxArg::Buffer }; 3],
                &mut buffers,
            );
            assert_eq!(words_of(&out, 2), ints(&c["mem"]), "x{count} trans {trans}");
        }
    }
}

#[test]
fn only_the_lanes_giving_rows_need_valid_addresses() {
    // `.x1` reads the rows of lanes 0-7: the other lanes' offsets may be anything.
    let c = case("ldmatrix_x1");
    let mem = bytes_of(&ints(&c["mem"]), 2);
    let mut offs = ints(&c["offs"]);
    for o in &mut offs[8..] {
        *o = 0xffff_fff3;
    }
    let (out, findings) = launch(&ld_kernel(1, false, false, true), &mem, &offs, 128);
    assert!(findings.is_empty(), "{findings:#?}");
    assert_eq!(words_of(&out, 4), ints(&c["words"]));
}

#[test]
fn bad_row_addresses_and_unwritten_rows_are_reported() {
    let c = case("ldmatrix_x4");
    let mem = bytes_of(&ints(&c["mem"]), 2);
    let good = ints(&c["offs"]);
    let kernel = ld_kernel(4, false, false, true);
    let mut offs = good.clone();
    offs[13] += 8;
    let (_, f) = launch(&kernel, &mem, &offs, 512);
    assert!(
        f.len() == 1 && f[0].contains("misaligned") && f[0].contains("lane 13"),
        "{f:#?}"
    );
    let mut offs = good.clone();
    offs[22] = 1024;
    let (_, f) = launch(&kernel, &mem, &offs, 512);
    assert!(
        f.len() == 1 && f[0].contains("illegal address") && f[0].contains("lane 22"),
        "{f:#?}"
    );
    // Shared memory never written: initcheck.
    let (_, f) = launch(&ld_kernel(4, false, false, false), &mem, &good, 512);
    assert!(
        !f.is_empty() && f.iter().all(|f| f.contains("uninitialized")),
        "{f:#?}"
    );
}
