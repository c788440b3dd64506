//! The `warpforge` binary, run as a user runs it.

use std::process::{Command, Output};

use warpforge::catalog;

fn warpforge(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_warpforge"))
        .args(args)
        .output()
        .expect("the warpforge binary runs")
}

#[test]
fn emit_ir_prints_the_text_form_of_every_catalog_kernel() {
    for entry in catalog::entries() {
        let out = warpforge(&["emit", "--target", "ir", "--kernel", entry.name]);
        assert!(
            out.status.success(),
            "{}: {}",
            entry.name,
            String::from_utf8_lossy(&out.stderr)
        );
        let printed = String::from_utf8(out.stdout).expect("utf-8");
        assert_eq!(printed, entry.build().to_string(), "{}", entry.name);
        let again = warpforge(&["emit", "--target", "ir", "--kernel", entry.name]);
        assert_eq!(
            printed.as_bytes(),
            again.stdout,
            "emission is deterministic"
        );
    }
}

#[test]
fn unknown_kernel_fails_and_lists_the_valid_names() {
    let out = warpforge(&["emit", "--target", "ir", "--kernel", "no-such-kernel"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unknown kernel `no-such-kernel`"), "{err}");
    for entry in catalog::entries() {
        assert!(err.contains(entry.name), "{err}");
    }
}

#[test]
fn list_prints_every_kernel_with_its_description_in_one_column() {
    let out = warpforge(&["list"]);
    assert!(out.status.success());
    let printed = String::from_utf8(out.stdout).expect("utf-8");
    let lines: Vec<&str> = printed.lines().collect();
    let entries = catalog::entries();
    assert_eq!(lines.len(), entries.len(), "{printed}");
    let column = entries.iter().map(|e| e.name.len()).max().expect("kernels") + 1;
    for (line, entry) in lines.iter().zip(&entries) {
        let (name, description) = line.split_at(column);
        assert_eq!(name.trim_end(), entry.name, "{printed}");
        assert_eq!(description, entry.description, "{printed}");
    }
}

#[test]
fn emit_reads_wfir_files_and_reports_errors_with_their_location() {
    let dir = std::env::temp_dir().join(format!("warpforge-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let good = dir.join("good.wfir");
    let text = catalog::find("vector-add").expect("exists").build();
    std::fs::write(&good, text.to_string()).expect("write");
    let out = warpforge(&["emit", "--file", good.to_str().expect("utf-8 path")]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), text.to_string());

    let bad = dir.join("bad.wfir");
    std::fs::write(
        &bad,
        "kernel k {\n    block_size 32\n    %0: u32 = const 1\n    if %0 {\n    }\n}\n",
    )
    .expect("write");
    let out = warpforge(&["emit", "--file", bad.to_str().expect("utf-8 path")]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("body[1]") && err.contains("must be bool"),
        "{err}"
    );

    let garbled = dir.join("garbled.wfir");
    std::fs::write(
        &garbled,
        "kernel k {\n    block_size 32\n    %0: u32 = cosnt 1\n}\n",
    )
    .expect("write");
    let out = warpforge(&["emit", "--file", garbled.to_str().expect("utf-8 path")]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("garbled.wfir") && err.contains("line 3"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).expect("clean up");
}

#[test]
fn emit_ptx_prints_the_library_emission_deterministically() {
    for entry in catalog::entries() {
        for sm in warpforge::ptx::Sm::ALL {
            let number = sm.number().to_string();
            let args = [
                "emit", "--target", "ptx", "--sm", &number, "--kernel", entry.name,
            ];
            let out = warpforge(&args);
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let kernel = entry.build();
            let expected =
                warpforge::ptx::emit(&warpforge::ir::verify(&kernel).expect("verifies"), sm)
                    .expect("emits");
            assert_eq!(
                String::from_utf8_lossy(&out.stdout),
                expected.text,
                "{} {sm}",
                entry.name
            );
            assert_eq!(
                warpforge(&args).stdout,
                out.stdout,
                "two runs print identical bytes"
            );
        }
    }
    let out = warpforge(&[
        "emit",
        "--target",
        "ptx",
        "--sm",
        "75",
        "--kernel",
        "vector-add",
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("supported: 70, 80, 90"));
}

#[test]
fn build_time_example_embeds_exactly_what_the_cli_prints() {
    let out = warpforge(&[
        "emit",
        "--target",
        "ptx",
        "--sm",
        "80",
        "--kernel",
        "vector-add",
    ]);
    assert!(out.status.success());
    // The example's kernel is the catalog's vector-add written again as a Rust function in its
    // build.rs: the same PTX but for the `.file`/`.loc` lines, which name each one's Rust source.
    let embedded = warpforge_example_build_time::VECTOR_ADD_SM80_PTX;
    assert!(embedded.contains("build-time-ptx/build.rs"), "{embedded}");
    let printed = String::from_utf8_lossy(&out.stdout);
    assert!(printed.contains("kernel-ir/src/samples.rs"), "{printed}");
    let without_positions = |ptx: &str| {
        ptx.lines()
            .filter(|l| !l.trim_start().starts_with(".file") && !l.trim_start().starts_with(".loc"))
            .map(|l| format!("{l}\n"))
            .collect::<String>()
    };
    assert_eq!(without_positions(&printed), without_positions(embedded));
}

#[test]
fn emit_wgsl_prints_the_validated_library_emission() {
    for entry in catalog::entries() {
        let out = warpforge(&["emit", "--target", "wgsl", "--kernel", entry.name]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let kernel = entry.webgpu_build();
        let expected = warpforge::wgsl::emit(&warpforge::ir::verify(&kernel).expect("verifies"))
            .expect("emits");
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            expected.source,
            "{}",
            entry.name
        );
        warpforge::wgsl::check_text(&expected.source, expected.requirements.shader_int64)
            .expect("valid WGSL");
    }
}

#[test]
fn emit_wgsl_refuses_a_divergent_barrier_naming_the_statement() {
    let dir = std::env::temp_dir().join(format!("warpforge-cli-wgsl-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("divergent.wfir");
    let src = "kernel k {\n    block_size 64\n    %0: u32 = special thread_index\n    %1: u32 = const 5\n    %2: bool = cmp lt %0, %1\n    if %2 {\n        barrier\n    }\n}\n";
    std::fs::write(&path, src).expect("write");
    let out = warpforge(&[
        "emit",
        "--target",
        "wgsl",
        "--file",
        path.to_str().expect("utf-8 path"),
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("body[3].then[0]") && err.contains("thread index"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).expect("clean up");
}

#[test]
fn info_lists_the_webgpu_adapters() {
    let out = warpforge(&["info"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let adapters = warpforge::runtime::webgpu::list_adapters();
    for adapter in &adapters {
        assert!(text.contains(&adapter.name), "{text}");
    }
    if adapters.is_empty() {
        assert!(text.contains("no adapter found"), "{text}");
    }
}

#[test]
fn demo_verifies_the_embedded_sample() {
    let out = warpforge(&["demo", "--backend", "reference"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    for kind in ["same-filled", "compressible", "incompressible", "all"] {
        assert!(text.contains(kind), "{text}");
    }
    assert!(text.contains("compared byte for byte"), "{text}");
}

#[test]
fn bench_reports_every_cpu_codec_and_liblz4() {
    let dir = std::env::temp_dir().join(format!("warpforge-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let corpus = dir.join("corpus.pages");
    let pages: Vec<u8> = warpforge::kernels::lz4::pages::PageKind::ALL
        .iter()
        .flat_map(|&k| (0..4).flat_map(move |s| warpforge::kernels::lz4::pages::page(k, s)))
        .collect();
    std::fs::write(&corpus, pages).expect("write");
    let out = warpforge(&[
        "bench",
        "--corpus",
        corpus.to_str().expect("utf-8"),
        "--json",
        "--seconds",
        "0.05",
        "--no-webgpu",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!(json["pages"], 24, "{json}");
    for ratio in ["liblz4_ratio", "liblz4_hc9_ratio"] {
        assert!(json[ratio].as_f64().expect("a ratio") > 1.0, "{json}");
    }
    let rows = json["rows"].as_array().expect("rows");
    let names: Vec<&str> = rows
        .iter()
        .map(|r| r["name"].as_str().expect("name"))
        .collect();
    for name in [
        "lz4_flex (1 thread)",
        "cpu (lz4_flex, all cores)",
        "reference L1 (all cores)",
        "reference L2, default (all cores)",
        "reference L3 (all cores)",
    ] {
        assert!(names.contains(&name), "{name} in {json}");
    }
    for row in rows {
        for key in [
            "compress_gbps",
            "decompress_gbps",
            "compress_pages_per_s",
            "ratio",
        ] {
            assert!(row[key].as_f64().expect("a number") > 0.0, "{key} in {row}");
        }
        assert!(row["runs"].as_u64().expect("runs") >= 1, "{row}");
    }
    assert!(json["skipped"].is_array(), "{json}");
    std::fs::remove_dir_all(&dir).expect("clean up");
}

/// `compress --level N`: each level writes an archive of its own that every decoder reads back, the
/// summary names the level, and what is not a level (or a level for lz4_flex) is refused by name.
#[test]
fn compress_level_writes_each_levels_archive_and_refuses_what_is_not_a_level() {
    let dir = std::env::temp_dir().join(format!("warpforge-cli-level-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let input = dir.join("pages.bin");
    let pages: Vec<u8> = warpforge::sample_pages()
        .expect("the embedded sample")
        .iter()
        .take(64)
        .flatten()
        .copied()
        .collect();
    std::fs::write(&input, &pages).expect("write");
    let path = |name: &str| dir.join(name).to_str().expect("utf-8").to_owned();
    let mut sizes = Vec::new();
    for level in ["1", "2", "3"] {
        let archive = path(&format!("l{level}.wfpa"));
        let args = ["compress", "--backend", "reference", "--level", level];
        let out = warpforge(&[&args[..], &[&path("pages.bin"), &archive]].concat());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{stderr}");
        assert!(
            stderr.contains(&format!("with reference at level {level}")),
            "{stderr}"
        );
        sizes.push(std::fs::metadata(&archive).expect("written").len());
        let back = path(&format!("l{level}.bin"));
        let out = warpforge(&["decompress", "--backend", "cpu", &archive, &back]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            std::fs::read(&back).expect("written") == pages,
            "level {level}"
        );
    }
    assert!(sizes[0] > sizes[1] && sizes[1] > sizes[2], "{sizes:?}");
    let default = path("default.wfpa");
    let out = warpforge(&[
        "compress",
        "--backend",
        "reference",
        &path("pages.bin"),
        &default,
    ]);
    assert!(out.status.success());
    assert_eq!(
        std::fs::read(&default).ok(),
        std::fs::read(path("l2.wfpa")).ok()
    );
    for (args, says) in [
        (
            &["--backend", "reference", "--level", "4"][..],
            "no LZ4 level 4",
        ),
        (
            &["--backend", "reference", "--level", "x"][..],
            "`x` is not a level",
        ),
        (
            &["--backend", "cpu", "--level", "3"][..],
            "lz4_flex, which has no levels",
        ),
    ] {
        let out = warpforge(
            &[
                &["compress"][..],
                args,
                &[&path("pages.bin"), &path("no.wfpa")],
            ]
            .concat(),
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && stderr.contains(says),
            "{args:?}: {stderr}"
        );
        assert!(!dir.join("no.wfpa").exists(), "{args:?} wrote an archive");
    }
    std::fs::remove_dir_all(&dir).expect("clean up");
}

/// `emit --target msl|hlsl|spirv` prints exactly what the library writes for the kernel's WebGPU form
/// (the same naga module as the WGSL), and `-o FILE` writes the same bytes to the file.
#[test]
fn emit_spirv_msl_and_hlsl_print_the_library_emission() {
    use warpforge::wgsl::{emit_target, ShaderTarget};
    let entry = catalog::find("lz4-compress").expect("in the catalog");
    let kernel = entry.webgpu_build();
    let verified = warpforge::ir::verify(&kernel).expect("verifies");
    let dir = std::env::temp_dir().join(format!("warpforge-cli-targets-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    for (flag, target) in [
        ("spirv", ShaderTarget::SpirV),
        ("msl", ShaderTarget::Msl),
        ("hlsl", ShaderTarget::Hlsl),
    ] {
        let expected = emit_target(&verified, target).expect("the library writes it");
        let out = warpforge(&["emit", "--target", flag, "--kernel", entry.name]);
        assert!(
            out.status.success(),
            "{flag}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            out.stdout == *expected.bytes(),
            "{flag}: stdout is not the library's output"
        );

        let file = dir.join(format!("kernel.{}", target.extension()));
        let path = file.to_str().expect("utf-8 path");
        let out = warpforge(&["emit", "--target", flag, "--kernel", entry.name, "-o", path]);
        assert!(
            out.status.success(),
            "{flag} -o: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.stdout.is_empty(), "{flag} -o also wrote to stdout");
        let written = std::fs::read(&file).expect("the file was written");
        assert!(
            written == *expected.bytes(),
            "{flag}: the file is not the library's output"
        );
    }
    let spirv = std::fs::read(dir.join("kernel.spv")).expect("written");
    assert_eq!(
        spirv[..4],
        0x0723_0203u32.to_le_bytes(),
        "SPIR-V magic, little-endian"
    );
}

/// A binary SPIR-V module is not written to a terminal: the command fails and says how to get it.
#[cfg(target_os = "linux")]
#[test]
fn emit_spirv_refuses_to_write_to_a_terminal() {
    use std::os::fd::{FromRawFd, OwnedFd};
    use std::process::Stdio;
    let (mut master, mut slave) = (0, 0);
    // SAFETY: openpty stores two new descriptors in the integers it is given; the name, termios and
    // window-size pointers may be null (no name wanted, default settings).
    let rc = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            std::ptr::null(),
        )
    };
    assert_eq!(rc, 0, "openpty: {}", std::io::Error::last_os_error());
    // SAFETY: both descriptors were just opened by openpty and nothing else owns them.
    let (master, slave) = unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
    let out = Command::new(env!("CARGO_BIN_EXE_warpforge"))
        .args(["emit", "--target", "spirv", "--kernel", "vector-add"])
        .stdout(Stdio::from(slave))
        .output()
        .expect("the warpforge binary runs");
    drop(master);
    assert!(!out.status.success(), "SPIR-V was written to a terminal");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("terminal") && err.contains("-o"), "{err}");
}

/// `warpforge lint` on a file that is not PTX, and on one cut short: an error naming the file and the
/// line, exit status 2 (not a clean exit 0), and the other files are still linted.
#[test]
fn lint_refuses_text_that_is_not_ptx_with_exit_2_naming_the_line() {
    let dir = std::env::temp_dir().join(format!("warpforge-lint-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let not_ptx = dir.join("notes.ptx");
    std::fs::write(&not_ptx, "these are my notes\n").expect("write");
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/analysis/tests/fixtures/divergent_barrier.ptx"
    );
    let text = std::fs::read_to_string(fixture).expect("fixture");
    let cut = dir.join("cut.ptx");
    std::fs::write(&cut, &text[..text.find("LATER:").expect("label")]).expect("write");
    let paths = [
        not_ptx.to_str().expect("utf-8"),
        cut.to_str().expect("utf-8"),
        fixture,
    ];
    let out = warpforge(&[&["lint"][..], &paths[..]].concat());
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "{stderr}{stdout}");
    assert!(
        stderr.contains(&format!("error: {}:1: not PTX", not_ptx.display())),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("error: {}:", cut.display())) && stderr.contains("cut short"),
        "{stderr}"
    );
    assert!(
        stdout.contains("B001"),
        "the good file is still linted: {stdout}"
    );
    std::fs::remove_dir_all(&dir).expect("clean up");
}

/// `warpforge lint --format sarif`: one SARIF 2.1.0 log for every source, the exit status unchanged.
#[test]
fn lint_writes_sarif() {
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/analysis/tests/fixtures/divergent_barrier.ptx"
    );
    let out = warpforge(&[
        "lint",
        "--format",
        "sarif",
        "--kernel",
        "warp-reduce",
        fixture,
    ]);
    assert_eq!(out.status.code(), Some(1), "B001 is an error");
    let log: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!(
        log["$schema"],
        "https://json.schemastore.org/sarif-2.1.0.json"
    );
    assert_eq!(log["version"], "2.1.0");
    let results = log["runs"][0]["results"].as_array().expect("results");
    let b001 = (results.iter())
        .find(|r| r["ruleId"] == "B001")
        .unwrap_or_else(|| panic!("a B001 result in {log}"));
    let region = &b001["locations"][0]["physicalLocation"]["region"];
    assert_eq!(region["startLine"], 14, "{log}");
}
