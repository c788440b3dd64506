//! `warpforge run` with PTX: a `.wfir` kernel's emitted PTX on `--backend ptx-sim` (checked against
//! the IR simulator), and a PTX file's entry on the PTX simulator with byte-counted buffers, scalars
//! of the declared type, the block size rules of `.reqntid`, and findings that name the PTX line.

use crate::run_support;
use run_support::{f32_bytes, f32s, scratch, strs, text, warpforge, write, Saxpy};

fn corpus(name: &str) -> String {
    concat!(env!("CARGO_MANIFEST_DIR"), "/analysis/tests/corpus/ptx/").to_owned() + name
}

#[test]
fn a_wfir_kernels_ptx_on_ptx_sim_matches_the_simulator_for_every_target() {
    let saxpy = Saxpy::new();
    for sm in ["70", "80", "90"] {
        let dir = scratch(&format!("ptx-sim-{sm}"));
        let paths = saxpy.paths(&dir);
        let words = format!(
            "--backend ptx-sim --sm {sm} --check sim --stats {}",
            Saxpy::WORDS
        );
        let out = warpforge(&words, &strs(&paths));
        let stdout = text(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
        assert!(
            stdout.contains(&format!("on ptx-sim (CPU PTX simulator, sm_{sm})")),
            "{stdout}"
        );
        assert!(stdout.contains("clean (0 findings)"), "{stdout}");
        assert!(
            stdout.contains("check: every read_write buffer is identical on sim"),
            "{stdout}"
        );
        assert!(stdout.contains("warp-instructions"), "{stdout}");
        saxpy.check_outputs(&dir);
    }
    // The LZ4 compress kernel runs in CUDA's shape (4 pages per block) on ptx-sim.
    let dir = scratch("ptx-sim-lz4");
    let pages: Vec<u8> = (0..4 * 4096u32).map(|i| (i / 7 % 251) as u8).collect();
    let input = write(&dir, "pages.bin", &pages);
    let words = "--kernel lz4-compress --backend ptx-sim --check sim --arg output=zeros:16384 \
                 --arg meta=zeros:16 --arg scratch=zeros:16384 --arg pages=4";
    let more = ["--arg".to_owned(), format!("input=@{input}")];
    let out = warpforge(words, &strs(&more));
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains("1 block of 128 threads"), "{stdout}");
}

#[test]
fn an_nvcc_ptx_entry_runs_with_byte_buffers_and_writes_its_output() {
    let dir = scratch("ptx-file");
    let input: Vec<f32> = (0..1000).map(|i| (i % 17) as f32 - 8.0).collect();
    let x = write(&dir, "in.bin", &f32_bytes(&input));
    let out_file = dir.join("out.bin");
    let ptx = corpus("smem_reduce.nvcc13.sm80.ptx");
    let args = [
        ptx.clone(),
        "--arg".into(),
        format!("smem_reduce_dynamic_param_0=@{x}"),
        "--out".into(),
        format!("smem_reduce_dynamic_param_1={}", out_file.display()),
    ];
    let words = "--entry smem_reduce_dynamic --backend sim --block 128 --blocks 8 \
                 --dynamic-shared 512 --arg smem_reduce_dynamic_param_1=zeros:32 \
                 --arg smem_reduce_dynamic_param_2=1000";
    let out = warpforge(words, &strs(&args));
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.contains("kernel `smem_reduce_dynamic` on sim (the PTX simulator, sm_80), 8 blocks of 128 threads: clean"),
        "{stdout}"
    );
    let sums = f32s(&std::fs::read(&out_file).expect("written"));
    let want: Vec<f32> = input.chunks(128).map(|c| c.iter().sum()).collect();
    assert_eq!(sums, want);
}

#[test]
fn a_misaligned_shared_load_exits_1_with_716_and_its_line() {
    let ptx = corpus("bug_a001_misaligned_int.nvcc13.sm80.ptx");
    let words = "--backend sim --block 128 --arg bug_a001_misaligned_int_param_0=zeros:512 \
                 --arg bug_a001_misaligned_int_param_1=zeros:512";
    let out = warpforge(words, &[&ptx]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.contains("error[memcheck/misaligned] line 45: `ld.shared.u32 %r9, [%r8+2];`"),
        "{stdout}"
    );
    assert!(
        stdout.contains("misaligned address (CUDA_ERROR_MISALIGNED_ADDRESS, 716)"),
        "{stdout}"
    );
    assert!(stdout.contains("1 block stopped"), "{stdout}");
}

#[test]
fn ptx_usage_errors_exit_2_and_unimplemented_instructions_exit_1() {
    let fixed = corpus("smem_reduce.nvcc13.sm80.ptx");
    let case = |words: &str, file: &str| {
        let out = warpforge(words, &[file]);
        (out.status.code(), text(&out.stderr))
    };
    let (code, stderr) = case("--backend sim --block 256", &fixed);
    assert_eq!(code, Some(2));
    assert!(
        stderr.contains(
            "has 2 entries (smem_reduce_fixed, smem_reduce_dynamic): choose one with --entry NAME"
        ),
        "{stderr}"
    );
    let (code, stderr) = case("--entry smem_reduce_fixed --backend sim --arg x=1", &fixed);
    assert_eq!(code, Some(2));
    assert!(
        stderr.contains("has no .reqntid: give the threads per block"),
        "{stderr}"
    );
    let words = "--entry smem_reduce_fixed --backend sim --block 256 --arg x=1 \
                 --arg smem_reduce_fixed_param_2=@in.bin";
    let (code, stderr) = case(words, &fixed);
    assert_eq!(code, Some(2));
    for line in [
        "--arg `x`: unknown parameter; entry `smem_reduce_fixed` has 0: smem_reduce_fixed_param_0 (.u64)",
        "missing parameter 0, `smem_reduce_fixed_param_0` (.u64): --arg 0=@FILE.bin",
        "--arg `smem_reduce_fixed_param_2`: the parameter is .u32, a scalar: give it a value",
    ] {
        assert!(stderr.contains(line), "expected `{line}` in\n{stderr}");
    }
    let (code, stderr) = case("--entry nope --backend sim --block 32", &fixed);
    assert_eq!(code, Some(2));
    assert!(
        stderr.contains("no entry `nope`; the module's entries: smem_reduce_fixed"),
        "{stderr}"
    );
    for words in [
        "--entry smem_reduce_fixed --backend webgpu --block 256",
        "--entry smem_reduce_fixed --backend sim --block 256 --check sim",
        "--entry smem_reduce_fixed --backend sim --block 256 --sm 80",
    ] {
        let (code, stderr) = case(words, &fixed);
        assert_eq!(code, Some(2), "{words}: {stderr}");
    }
    // A .reqntid that the given block contradicts.
    let dir = scratch("ptx-reqntid");
    let reqntid = std::fs::read_to_string(&fixed)
        .expect("readable")
        .replace(".maxntid 256, 1, 1", ".reqntid 256, 1, 1");
    let file = write(&dir, "fixed.ptx", reqntid.as_bytes());
    let (code, stderr) = case("--entry smem_reduce_fixed --backend sim --block 128", &file);
    assert_eq!(code, Some(2));
    assert!(
        stderr.contains("requires blocks of 256 threads (.reqntid 256, 1, 1); 128 given"),
        "{stderr}"
    );
    // An instruction the simulator does not implement: named with its line, exit 1.
    let (code, stderr) = case(
        "--backend sim --block 128",
        &corpus("matmul.triton39.sm90.ptx"),
    );
    assert_eq!(code, Some(1));
    assert!(
        stderr.contains(": line 933: `wgmma.fence.sync.aligned;`: wgmma (Hopper warpgroup MMA) is not supported by the simulator"),
        "{stderr}"
    );
    // .wfir kernels take neither --entry nor --block.
    let out = warpforge(
        "--kernel vector-add --backend sim --block 64 --entry x",
        &[],
    );
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("--block is for PTX files") && stderr.contains("--entry is for PTX files"),
        "{stderr}"
    );
}

#[test]
fn a_ptx_entry_runs_on_a_2d_grid_of_2d_blocks_and_bad_shapes_are_named() {
    let dir = scratch("ptx-2d");
    let (width, height) = (70u32, 45u32);
    let input: Vec<f32> = (0..width * height).map(|i| i as f32).collect();
    let x = write(&dir, "in.bin", &f32_bytes(&input));
    let out_file = dir.join("out.bin");
    let args = [
        corpus("transpose.nvcc13.sm80.ptx"),
        "--arg".into(),
        format!("transpose_param_1=@{x}"),
        "--out".into(),
        format!("transpose_param_0={}", out_file.display()),
    ];
    let words = format!(
        "--backend sim --grid 3,2 --block 32,8,1 --arg transpose_param_0=zeros:{} \
         --arg transpose_param_2={width} --arg transpose_param_3={height}",
        input.len() * 4
    );
    let out = warpforge(&words, &strs(&args));
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.contains("6 blocks of 256 threads: clean"),
        "{stdout}"
    );
    let got = f32s(&std::fs::read(&out_file).expect("written"));
    let mut want = vec![0f32; input.len()];
    for y in 0..height {
        for x in 0..width {
            want[(x * height + y) as usize] = input[(y * width + x) as usize];
        }
    }
    assert_eq!(got, want);

    // A zero dimension, four numbers, a block past 1024 threads: exit 2, each named.
    for (shape, says) in [
        ("--grid 3,0", "y is 0"),
        ("--grid 1,2,3,4", "at most three"),
        ("--block 64,32", "1 to 1024 threads"),
    ] {
        let words = format!(
            "--backend sim {shape} --arg transpose_param_0=zeros:64 \
             --arg transpose_param_1=zeros:64 --arg transpose_param_2=4 \
             --arg transpose_param_3=4"
        );
        let out = warpforge(&words, &strs(&args[..1]));
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{shape}: {stderr}");
        assert!(stderr.contains(says), "{shape}: {stderr}");
    }
}

/// A `.wfir` kernel takes a 2-D or 3-D `--grid`: one that does not read the grid's shape (saxpy
/// reads only `block_index`, the linear index) runs as many blocks, with the same results.
#[test]
fn a_wfir_kernel_takes_a_multi_dimensional_grid() {
    let saxpy = Saxpy::new();
    let dir = scratch("wfir-2d");
    let paths = saxpy.paths(&dir);
    let words = format!(
        "--backend sim {}",
        Saxpy::WORDS.replace("--grid 2 ", "--grid 1,2 ")
    );
    let out = warpforge(&words, &strs(&paths));
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    saxpy.check_outputs(&dir);
}

/// A `.wfir` kernel with a 2-D block reading the grid's shape runs on `--grid 2,3`: every thread
/// writes its block's coordinates and the grid's x extent, in CUDA's numbering.
#[test]
fn a_wfir_kernel_reads_its_2d_grid() {
    let dir = scratch("wfir-grid-shape");
    let kernel = "kernel shape {
    block_size 32
    block_shape 16, 2, 1
    param out: global u32 read_write
    %0: u32 = special block_index
    %1: u32 = special block_size
    %2: u32 = mul %0, %1
    %3: u32 = special thread_index
    %4: u32 = add %2, %3
    %5: u32 = special block_index_x
    %6: u32 = special block_index_y
    %7: u32 = const 100
    %8: u32 = mul %6, %7
    %9: u32 = add %5, %8
    %10: u32 = special grid_size_x
    %11: u32 = const 10000
    %12: u32 = mul %10, %11
    %13: u32 = add %9, %12
    store global out[%4], %13
}
";
    let path = write(&dir, "shape.wfir", kernel.as_bytes());
    let want: Vec<u32> = (0..6u32)
        .flat_map(|b| std::iter::repeat_n(b % 2 + (b / 2) * 100 + 2 * 10_000, 32))
        .collect();
    for backend in ["sim", "ptx-sim"] {
        let out_path = dir.join(format!("out-{backend}.bin"));
        let words = format!(
            "--backend {backend} --grid 2,3 --arg out=zeros:192 --out out={}",
            out_path.display()
        );
        let out = warpforge(&words, &[path.as_str()]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{backend}: {}",
            text(&out.stderr)
        );
        let got: Vec<u32> = std::fs::read(&out_path)
            .expect("out written")
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect();
        assert_eq!(got, want, "{backend}");
    }
}

/// The launch `warpforge run --help` shows, run as it is written: nvcc's templated reduction with its
/// parameters by position (`tests/fixtures/ptx/reduce_template.cu`, nvcc 13, sm_80), each block's sum
/// checked; `param_N` names them too, and a position past the end, a name given twice and a
/// missing parameter are each named.
#[test]
fn a_templated_kernels_parameters_go_by_position_as_the_help_shows() {
    let help = text(&warpforge("--help", &[]).stdout);
    let example = "--backend sim --entry _Z6reduceILj256EEvPKfPfj --block 256 --grid 4";
    assert!(help.contains(example), "{help}");
    assert!(help.contains("--arg 0=@in.bin --arg 1=zeros:16 --arg 2=1024 --out 1=sums.bin"));
    let dir = scratch("ptx-template");
    let input: Vec<f32> = (0..1024).map(|i| (i % 7) as f32 * 0.5).collect();
    let x = write(&dir, "in.bin", &f32_bytes(&input));
    let sums = dir.join("sums.bin");
    let ptx = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/ptx/reduce_template.nvcc13.sm80.ptx"
    );
    let args = [
        ptx.to_owned(),
        format!("--arg=0=@{x}"),
        format!("--out=1={}", sums.display()),
    ];
    let out = warpforge(
        &format!("{example} --arg 1=zeros:16 --arg 2=1024"),
        &strs(&args),
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let got = f32s(&std::fs::read(&sums).expect("the sums"));
    let want: Vec<f32> = input.chunks(256).map(|c| c.iter().sum()).collect();
    assert_eq!(got, want);
    let bad = [
        ptx.to_owned(),
        format!("--arg=param_0=@{x}"),
        "--arg=param_1=zeros:16".to_owned(),
        "--arg=1=zeros:16".to_owned(),
        "--arg=3=5".to_owned(),
    ];
    let out = warpforge(example, &strs(&bad));
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    for line in [
        "--arg `1`: parameter `_Z6reduceILj256EEvPKfPfj_param_1` is given twice",
        "--arg `3`: unknown parameter; entry `_Z6reduceILj256EEvPKfPfj` has 0: ",
        "missing parameter 2, `_Z6reduceILj256EEvPKfPfj_param_2` (.u32): --arg 2=VALUE",
    ] {
        assert!(stderr.contains(line), "expected `{line}` in\n{stderr}");
    }
}

/// A `__constant__` table set before the launch (`--arg coeffs=@FILE`, as `cudaMemcpyToSymbol` does):
/// nvcc 13's PTX of `tests/fixtures/ptx/constant_poly.cu` evaluates the cubic with those
/// coefficients; a value that is not a file, too many bytes and a misspelt name are each named.
#[test]
fn a_constant_table_is_set_before_the_launch() {
    let dir = scratch("ptx-constant");
    let x: Vec<f32> = (0..64).map(|i| i as f32 * 0.125).collect();
    let xs = write(&dir, "x.bin", &f32_bytes(&x));
    let c = write(&dir, "c.bin", &f32_bytes(&[1.0, -2.0, 0.5, 0.25]));
    let big = write(&dir, "big.bin", &[0u8; 20]);
    let y = dir.join("y.bin");
    let ptx = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/ptx/constant_poly.nvcc13.sm80.ptx"
    );
    let words = "--backend sim --block 64 --arg 1=zeros:256 --arg 2=64";
    let args = [
        ptx.to_owned(),
        format!("--arg=0=@{xs}"),
        format!("--arg=coeffs=@{c}"),
        format!("--out=1={}", y.display()),
    ];
    let out = warpforge(words, &strs(&args));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let got = f32s(&std::fs::read(&y).expect("the output"));
    for (i, v) in x.iter().enumerate() {
        let want = ((0.25 * v + 0.5) * v - 2.0) * v + 1.0;
        assert!(
            (got[i] - want).abs() <= 1e-6 * want.abs().max(1.0),
            "y[{i}] = {} not {want}",
            got[i]
        );
    }
    let bad = [
        ptx.to_owned(),
        format!("--arg=0=@{xs}"),
        "--arg=coeffs=5".to_owned(),
        format!("--arg=coefs=@{c}"),
    ];
    let stderr = text(&warpforge(words, &strs(&bad)).stderr);
    for line in [
        "--arg `coeffs`: a module variable is set from a file of its bytes: coeffs=@FILE.bin",
        "--arg `coefs`: unknown parameter; entry `constant_poly` has 0: constant_poly_param_0 (.u64)",
        "; module variables: coeffs",
    ] {
        assert!(stderr.contains(line), "expected `{line}` in\n{stderr}");
    }
    let too_big = [
        ptx.to_owned(),
        format!("--arg=0=@{xs}"),
        format!("--arg=coeffs=@{big}"),
    ];
    let out = warpforge(words, &strs(&too_big));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("module variable `coeffs` has 16 bytes; 20 given"),
        "{}",
        text(&out.stderr)
    );
}

/// Two parameters on one buffer (`add_halves(data, data + 64, 64)`, nvcc 13, in place): `buf:0+256`
/// points the second at byte 256 of the first's buffer, and the buffer comes back with its second
/// half added to; an offset past the end, a later parameter and a bad offset are named.
#[test]
fn two_parameters_point_into_one_buffer() {
    let dir = scratch("ptx-in-place");
    let data: Vec<f32> = (0..128).map(|i| i as f32).collect();
    let d = write(&dir, "d.bin", &f32_bytes(&data));
    let o = dir.join("o.bin");
    let ptx = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/ptx/add_halves.nvcc13.sm80.ptx"
    );
    let words = "--backend sim --block 64 --arg 1=buf:0+256 --arg 2=64";
    let args = [
        ptx.to_owned(),
        format!("--arg=0=@{d}"),
        format!("--out=0={}", o.display()),
    ];
    let out = warpforge(words, &strs(&args));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let got = f32s(&std::fs::read(&o).expect("the buffer"));
    let want: Vec<f32> = (0..128)
        .map(|i| {
            if i < 64 {
                i as f32
            } else {
                (i + i - 64) as f32
            }
        })
        .collect();
    assert_eq!(got, want);
    for (words, line) in [
        (
            "--backend sim --block 64 --arg 1=buf:0+600 --arg 2=64",
            "points at byte 600 of buffer 0, past its 512 bytes",
        ),
        (
            "--backend sim --block 64 --arg 1=buf:0+x --arg 2=64",
            "`x` is not a byte offset (buf:P+OFFSET)",
        ),
    ] {
        let out = warpforge(words, &strs(&[ptx.to_owned(), format!("--arg=0=@{d}")]));
        assert_eq!(out.status.code(), Some(2));
        assert!(
            text(&out.stderr).contains(line),
            "`{line}` in {}",
            text(&out.stderr)
        );
    }
    let later = [
        ptx.to_owned(),
        "--arg=0=buf:1".to_owned(),
        format!("--arg=1=@{d}"),
    ];
    let out = warpforge("--backend sim --block 64 --arg 2=64", &strs(&later));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("is not an earlier buffer parameter"),
        "{}",
        text(&out.stderr)
    );
}

/// A struct passed by value (`affine_struct(Affine p, …)`, nvcc 13: `.param .align 4 .b8 p[16]`) is
/// given its bytes from a file; a file of the wrong size and a number are named.
#[test]
fn a_struct_parameter_is_given_its_bytes() {
    let dir = scratch("ptx-struct");
    let mut p = Vec::new();
    p.extend(2.0f32.to_le_bytes());
    p.extend(0.5f32.to_le_bytes());
    p.extend(40i32.to_le_bytes());
    p.extend(0i32.to_le_bytes());
    let params = write(&dir, "p.bin", &p);
    let short = write(&dir, "short.bin", &p[..12]);
    let x: Vec<f32> = (0..64).map(|i| i as f32).collect();
    let xs = write(&dir, "x.bin", &f32_bytes(&x));
    let y = dir.join("y.bin");
    let ptx = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/ptx/affine_struct.nvcc13.sm80.ptx"
    );
    let words = "--backend sim --block 64 --arg 2=zeros:256";
    let args = [
        ptx.to_owned(),
        format!("--arg=0=@{params}"),
        format!("--arg=1=@{xs}"),
        format!("--out=2={}", y.display()),
    ];
    let out = warpforge(words, &strs(&args));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let got = f32s(&std::fs::read(&y).expect("the output"));
    let want: Vec<f32> = (0..64)
        .map(|i| if i < 40 { 2.0 * i as f32 + 0.5 } else { 0.0 })
        .collect();
    assert_eq!(got, want);
    for (value, line) in [
        (
            format!("@{short}"),
            "the parameter is a 16-byte value; 12 given",
        ),
        (
            "5".to_owned(),
            "is given its bytes: --arg affine_struct_param_0=@FILE.bin",
        ),
    ] {
        let args = [
            ptx.to_owned(),
            format!("--arg=0={value}"),
            format!("--arg=1=@{xs}"),
        ];
        let out = warpforge(words, &strs(&args));
        assert_eq!(out.status.code(), Some(2));
        assert!(
            text(&out.stderr).contains(line),
            "`{line}` in {}",
            text(&out.stderr)
        );
    }
}

#[test]
fn device_printf_goes_to_stdout_and_into_the_json() {
    let dir = scratch("ptx-printf");
    let x: Vec<f32> = (0..4).map(|i| i as f32 * 0.25 + 1.5).collect();
    let xs = write(&dir, "x.bin", &f32_bytes(&x));
    let ptx = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/sim/tests/fixtures/printf/hello.sm80.ptx"
    );
    let args = [ptx.to_owned(), format!("--arg=0=@{xs}")];
    let out = warpforge("--backend sim --block 4 --arg 1=2", &strs(&args));
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.starts_with(
            "thread 0 of block 0: x=1.50, ok, 0, 0xff, a|    0|\n\
             thread 1 of block 0: x=1.75, ok, 1000000000, 0x100, b|   -1|\nrun: "
        ),
        "{stdout}"
    );
    let out = warpforge(
        "--backend sim --block 4 --arg 1=2 --format json",
        &strs(&args),
    );
    let json: serde_json::Value = serde_json::from_str(&text(&out.stdout)).expect("one object");
    assert_eq!(
        json["printed"][1],
        "thread 1 of block 0: x=1.75, ok, 1000000000, 0x100, b|   -1|\n"
    );
    assert_eq!(json["printed_dropped"], 0);
}
