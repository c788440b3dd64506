//! `warpforge run`, run as a user runs it: kernels from `.wfir` files and the catalog, buffers from files,
//! outputs to files, the exit status of each outcome, and every bad argument named.

use crate::common;

use crate::run_support;

use run_support::*;

#[test]
fn a_users_wfir_file_runs_on_sim_and_writes_the_computed_buffers() {
    let dir = scratch("saxpy");
    let saxpy = Saxpy::new();
    let paths = saxpy.paths(&dir);
    let out = warpforge(&format!("--backend sim {}", Saxpy::WORDS), &strs(&paths));
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    let summary = "run: kernel `saxpy_offset` on sim, 2 blocks of 64 threads: clean (0 findings), ";
    assert!(stdout.starts_with(summary), "{stdout}");
    assert!(stdout.contains("ms (host clock)\n"), "{stdout}");
    assert!(stdout.contains("wrote `y` (512 bytes) to "), "{stdout}");
    assert!(stdout.contains("wrote `idx` (512 bytes) to "), "{stdout}");
    saxpy.check_outputs(&dir);
    std::fs::remove_dir_all(&dir).expect("clean up");
}

#[test]
fn a_catalog_kernel_takes_zeros_and_hex_scalars_on_a_default_grid_of_one_block() {
    let dir = scratch("vector-add");
    let a: Vec<f32> = (0..256).map(|i| i as f32 + 0.5).collect();
    let a_arg = format!("a=@{}", write(&dir, "a.bin", &f32_bytes(&a)));
    let out_file = dir.join("out.bin");
    let out_arg = format!("out={}", out_file.display());
    let words = "--kernel vector-add --backend sim --arg b=zeros:256 --arg out=zeros:256 \
                 --arg n=0xC8 --stats";
    let out = warpforge(words, &["--arg", &a_arg, "--out", &out_arg]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains("1 block of 128 threads: clean"), "{stdout}");
    assert!(
        stdout.contains("sim counters:\nwarp-instructions"),
        "{stdout}"
    );
    // One block of 128 threads covers elements 0..128 of n = 0xC8 = 200; the rest stays zero.
    let expected: Vec<f32> = (0..256).map(|i| if i < 128 { a[i] } else { 0.0 }).collect();
    let written = std::fs::read(&out_file).expect("out written");
    assert_eq!(f32s(&written), expected);
    std::fs::remove_dir_all(&dir).expect("clean up");
}

/// Runs vector-add on sim with `words` and `more`; asserts exit status 2 and returns stderr.
fn usage_error(words: &str, more: &[&str]) -> String {
    let out = warpforge(&format!("--kernel vector-add --backend sim {words}"), more);
    let stderr = text(&out.stderr);
    let context = format!("{words} {more:?}: {stderr}{}", text(&out.stdout));
    assert_eq!(out.status.code(), Some(2), "{context}");
    assert!(
        out.stdout.is_empty(),
        "nothing runs on bad usage: {context}"
    );
    stderr
}

#[test]
fn every_bad_argument_exits_2_and_names_the_parameter() {
    let dir = scratch("usage");
    let a_ten = format!("a=@{}", write(&dir, "ten.bin", &[0; 10]));
    let a_good = format!("a=@{}", write(&dir, "good.bin", &[0; 16]));
    let missing = dir.join("no-such.bin").display().to_string();
    let a_missing = format!("a=@{missing}");
    let rest = "--arg b=zeros:4 --arg out=zeros:4 --arg n=4";
    let cases: [(&str, &str, &[&str]); 13] = [
        (
            "--arg m=1",
            &a_good,
            &["--arg `m`: unknown parameter", "has a, b, out, n"],
        ),
        (
            "--arg a=zeros:4",
            &a_good,
            &["--arg `a`: parameter `a` is given twice"],
        ),
        (
            "",
            "",
            &["missing buffer `a` (f32 read): --arg a=@FILE.bin"],
        ),
        (
            "",
            &a_ten,
            &[
                "--arg `a`: ",
                "has 10 bytes, not a whole number of f32 elements",
            ],
        ),
        ("", &a_missing, &["--arg `a`: cannot read ", &missing]),
        (
            "--arg a=3",
            "",
            &["--arg `a`: `a` is a buffer", "not the value `3`"],
        ),
        (
            "--arg a=zeros:x",
            "",
            &["--arg `a`: `x` is not an element count"],
        ),
        ("--out a=o.bin", &a_good, &["--out `a`: a read-only buffer"]),
        ("--out q=o.bin", &a_good, &["--out `q`: unknown parameter"]),
        (
            "--out n=o.bin",
            &a_good,
            &["--out `n`: a scalar parameter, not a buffer"],
        ),
        (
            "--out out=/no/such/d/o.bin",
            &a_good,
            &["--out `out`: ", "no directory /no/such/d"],
        ),
        (
            "--out out=1.bin --out out=2.bin",
            &a_good,
            &["--out `out`: given twice"],
        ),
        (
            "--out out",
            &a_good,
            &["--out `out`: expected NAME=FILE.bin"],
        ),
    ];
    for (words, a, expected) in cases {
        let more: &[&str] = if a.is_empty() { &[] } else { &["--arg", a] };
        let stderr = usage_error(&format!("{rest} {words}"), more);
        for e in expected {
            assert!(stderr.contains(e), "{words}: expected `{e}` in\n{stderr}");
        }
    }
    // Scalars that do not fit their type, or are not scalars (n is u32).
    for (n, expected) in [
        (
            "n=0x100000000",
            "--arg `n`: `0x100000000` does not fit in u32",
        ),
        (
            "n=4294967296",
            "--arg `n`: `4294967296` does not fit in u32",
        ),
        ("n=-1", "--arg `n`: `-1` is negative, but u32 is unsigned"),
        (
            "n=1.5",
            "--arg `n`: `1.5` is not a decimal or 0x hexadecimal integer",
        ),
        (
            "n=zeros:4",
            "--arg `n`: `zeros:4` is a buffer's value, but `n` is a scalar u32",
        ),
    ] {
        let words = format!("--arg b=zeros:4 --arg out=zeros:4 --arg {n}");
        let stderr = usage_error(&words, &["--arg", &a_good]);
        assert!(stderr.contains(expected), "{n}: {stderr}");
    }
    // Several bad arguments at once: each is named on its own line.
    let stderr = usage_error("--arg a=3 --arg zz=1 --arg out=zeros:4", &[]);
    for e in [
        "`a` is a buffer",
        "`zz`: unknown",
        "missing buffer `b`",
        "missing scalar `n` (u32)",
    ] {
        assert!(stderr.contains(e), "expected `{e}` in\n{stderr}");
    }
    let lines = stderr.lines().filter(|l| l.starts_with("error: ")).count();
    assert_eq!(lines, 4, "{stderr}");
    std::fs::remove_dir_all(&dir).expect("clean up");
}

#[test]
fn signed_and_float_scalars_are_range_checked() {
    let dir = scratch("scalars");
    let x = format!("x=@{}", write(&dir, "x.bin", &[0; 8]));
    let run = |offset: &str, a: &str| {
        let words = format!(
            "--backend sim --arg y=zeros:2 --arg idx=zeros:2 --arg n=2 --arg offset={offset} \
             --arg a={a}"
        );
        warpforge(&words, &[SAXPY, "--arg", &x])
    };
    for (offset, a) in [
        ("-2147483648", "1.5"),
        ("2147483647", "-0.25"),
        ("0xffffffff", "0x3fc00000"),
    ] {
        let out = run(offset, a);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{offset} {a}: {}",
            text(&out.stderr)
        );
    }
    for (offset, a, expected) in [
        (
            "2147483648",
            "1",
            "--arg `offset`: `2147483648` does not fit in i32",
        ),
        (
            "-2147483649",
            "1",
            "--arg `offset`: `-2147483649` does not fit in i32",
        ),
        ("0", "1e39", "--arg `a`: `1e39` does not fit in f32"),
        ("0", "one", "--arg `a`: `one` is not a decimal number"),
    ] {
        let out = run(offset, a);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{offset} {a}: {stderr}");
        assert!(stderr.contains(expected), "{stderr}");
    }
    std::fs::remove_dir_all(&dir).expect("clean up");
}

#[test]
fn bad_kernels_and_bad_combinations_are_usage_errors_naming_the_file() {
    let dir = scratch("kernels");
    let garbled = "kernel k {\n    block_size 32\n    %0: u32 = cosnt 1\n}\n";
    let garbled = write(&dir, "garbled.wfir", garbled.as_bytes());
    let ill_typed = "kernel k {\n    block_size 32\n    %0: u32 = const 1\n    if %0 {\n    }\n}\n";
    let ill_typed = write(&dir, "ill_typed.wfir", ill_typed.as_bytes());
    let absent = dir.join("absent.wfir").display().to_string();
    for (file, expected) in [
        (&garbled, &["line 3", "not a valid .wfir kernel"][..]),
        (&ill_typed, &["body[1]", "must be bool"][..]),
        (&absent, &["cannot read "][..]),
    ] {
        let out = warpforge("--backend sim", &[file]);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{file}: {stderr}");
        assert!(stderr.contains(file.as_str()), "{stderr}");
        for e in expected {
            assert!(stderr.contains(e), "{file}: expected `{e}` in\n{stderr}");
        }
    }
    let out = warpforge("--kernel no-such-kernel --backend sim", &[]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("unknown kernel `no-such-kernel`") && stderr.contains("vector-add"));
    let stderr = usage_error("--check sim --arg n=1", &[]);
    assert!(
        stderr.contains("--check sim") && stderr.contains("--backend webgpu"),
        "{stderr}"
    );
    // clap's own usage errors exit 2 as well.
    let out = warpforge("--kernel vector-add --backend sim --grid 0", &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("--grid"),
        "{}",
        text(&out.stderr)
    );
    std::fs::remove_dir_all(&dir).expect("clean up");
}

#[test]
fn a_planted_out_of_bounds_store_exits_1_names_the_statement_and_still_writes_outputs() {
    let dir = scratch("oob");
    let out_file = dir.join("out.bin");
    let out_arg = format!("out={}", out_file.display());
    let out = warpforge(
        "--backend sim --arg out=zeros:16",
        &[OOB_STORE, "--out", &out_arg],
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}{}", text(&out.stderr));
    let finding = stdout.lines().next().expect("a finding line");
    let start =
        "error[memcheck/out-of-bounds] body[1] (store to `out`): block 0, warp 0, lanes 16-31";
    assert!(finding.starts_with(start), "{stdout}");
    assert!(finding.contains("`out` byte 64"), "{stdout}");
    assert!(
        stdout.contains("failed (1 finding), 1 block stopped"),
        "{stdout}"
    );
    let written = std::fs::read(&out_file).expect("written also after an error");
    assert_eq!(
        written.len(),
        64,
        "the buffer's bytes after the run, for inspection"
    );
    // --no-sanitize keeps bounds checks: an out-of-bounds store is a fault, not a diagnostic.
    let out = warpforge(
        "--backend sim --arg out=zeros:16 --no-sanitize",
        &[OOB_STORE],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stdout).contains("out-of-bounds"));
    std::fs::remove_dir_all(&dir).expect("clean up");
}

/// `stdout` as one JSON object on one line.
fn one_json_object(stdout: &str) -> serde_json::Value {
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    let json: serde_json::Value = serde_json::from_str(stdout).expect("one JSON object");
    assert!(json.is_object(), "{stdout}");
    json
}

#[test]
fn json_format_prints_one_object_with_findings_stats_and_outputs() {
    let dir = scratch("json");
    let out = warpforge(
        "--backend sim --arg out=zeros:16 --format json",
        &[OOB_STORE],
    );
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    let json = one_json_object(&stdout);
    // The keys in the order they have always been printed.
    assert!(
        stdout.starts_with(r#"{"kernel":"oob_store","backend":"sim","grid":1,"block_size":32,"#),
        "{stdout}"
    );
    assert_eq!(json["clean"], false);
    let findings = json["findings"].as_array().expect("findings");
    assert_eq!(findings.len(), 1, "{stdout}");
    let lanes: Vec<serde_json::Value> = (16..32).map(serde_json::Value::from).collect();
    let expected = serde_json::json!({
        "kind": "out-of-bounds",
        "check": "memcheck",
        "severity": "error",
        "statement": "body[1] (store to `out`)",
        "block": 0,
        "warp": 0,
        "lanes": lanes,
        "address": {"array": "out", "offset": 64},
        "detail": "index 16 (4-byte access at byte 64) is past the end of `out` (64 bytes)",
        "other_blocks": 0,
    });
    assert_eq!(findings[0], expected, "{stdout}");
    for key in ["stats", "check", "profile"] {
        assert!(json[key].is_null(), "{key} in {stdout}");
    }
    assert_eq!(json["outputs"], serde_json::json!([]));
    assert!(json["time"]
        .as_str()
        .expect("time")
        .ends_with("(host clock)"));

    let out_file = dir.join("out.bin");
    let out_arg = format!("out={}", out_file.display());
    let words = "--kernel vector-add --backend sim --arg a=zeros:128 --arg b=zeros:128 \
                 --arg out=zeros:128 --arg n=128 --format json --stats";
    let out = warpforge(words, &["--out", &out_arg]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let json = one_json_object(&stdout);
    assert_eq!(json["clean"], true);
    assert_eq!(json["findings"], serde_json::json!([]));
    let file = out_file.display().to_string();
    assert_eq!(
        json["outputs"],
        serde_json::json!([{"name": "out", "file": file, "bytes": 512}])
    );
    let stats = &json["stats"];
    assert_eq!(stats["warp_instructions"], 48, "{stdout}");
    assert_eq!(stats["simt_efficiency"], 1.0, "{stdout}");
    assert_eq!(stats["global_bytes"], 1536, "{stdout}");
    assert!(
        stdout.contains(r#""stats":{"warp_instructions":48,"arithmetic":"#),
        "{stdout}"
    );
    std::fs::remove_dir_all(&dir).expect("clean up");
}

#[test]
fn webgpu_checked_against_the_simulator_matches_byte_for_byte() {
    let test = "webgpu_checked_against_the_simulator_matches_byte_for_byte";
    let kernel = std::fs::read_to_string(SAXPY).expect("fixture");
    let kernel = warpforge::ir::parse_kernel(&kernel).expect("parses");
    let verified = warpforge::ir::verify(&kernel).expect("verifies");
    let wgsl = warpforge::wgsl::emit(&verified).expect("emits");
    if !common::webgpu_or_skip(test, &wgsl.requirements) {
        return;
    }
    let dir = scratch("webgpu");
    let saxpy = Saxpy::new();
    let paths = saxpy.paths(&dir);
    let words = format!("--backend webgpu --check sim --stats {}", Saxpy::WORDS);
    let out = warpforge(&words, &strs(&paths));
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.starts_with("run: kernel `saxpy_offset` on webgpu ("),
        "{stdout}"
    );
    assert!(
        stdout.contains("2 blocks of 64 threads: clean (0 findings on sim)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("check: every read_write buffer is identical on sim"),
        "{stdout}"
    );
    assert!(
        stdout.contains("sim counters:\nwarp-instructions"),
        "{stdout}"
    );
    saxpy.check_outputs(&dir);

    // A catalog kernel in JSON: the check's verdict is part of the object.
    let words = "--kernel vector-add --backend webgpu --check sim --grid 2 --arg a=zeros:256 \
                 --arg b=zeros:256 --arg out=zeros:256 --arg n=0x100 --format json";
    let out = warpforge(words, &[]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    let json = one_json_object(&stdout);
    assert_eq!(
        json["check"],
        serde_json::json!({"identical": true, "first_difference": null}),
        "{stdout}"
    );
    std::fs::remove_dir_all(&dir).expect("clean up");
}
