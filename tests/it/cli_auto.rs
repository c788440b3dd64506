//! `--backend auto` and the user's first commands: `demo`, `info` and `compress` succeed on a machine
//! without any Vulkan driver (the CPU reference runs, and one line says why), and no successful run
//! prints a line that starts with `error:` (Mesa's GL probe used to print one).

use std::process::{Command, Output};

/// Runs warpforge with `env` set, `XDG_RUNTIME_DIR` unset (as on a headless machine, where Mesa's GL
/// probe complains about it), and `hide_vulkan` pointing the Vulkan loader at no driver.
fn warpforge(args: &[&str], hide_vulkan: bool) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_warpforge"));
    command.args(args).env_remove("XDG_RUNTIME_DIR");
    if hide_vulkan {
        command.env("VK_ICD_FILENAMES", "/nonexistent.json");
    }
    command.output().expect("the warpforge binary runs")
}

/// Both streams of a successful run, after checking it succeeded and printed no `error:` line.
fn clean_success(what: &str, out: &Output) -> String {
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{what} failed:\n{text}");
    assert!(
        !text.lines().any(|l| l.starts_with("error:")),
        "{what} succeeded but printed an error: line:\n{text}"
    );
    text
}

#[test]
fn without_vulkan_the_demo_runs_on_the_cpu_reference_and_says_why() {
    let out = warpforge(&["demo"], true);
    let text = clean_success("demo without Vulkan", &out);
    let line = text
        .lines()
        .find(|l| l.starts_with("backend auto:"))
        .unwrap_or_else(|| panic!("no `backend auto:` line:\n{text}"));
    assert!(
        line.starts_with("backend auto: reference (not cuda: "),
        "{line}"
    );
    assert!(line.contains("; not webgpu: "), "{line}");
    assert!(text.contains("compared byte for byte"), "{text}");
}

#[test]
fn demo_info_and_compress_print_no_error_line_when_they_succeed() {
    for hide_vulkan in [false, true] {
        clean_success("demo", &warpforge(&["demo"], hide_vulkan));
        clean_success("info", &warpforge(&["info"], hide_vulkan));
        let dir = std::env::temp_dir().join(format!(
            "warpforge-auto-{}-{hide_vulkan}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let pages: Vec<u8> = warpforge::kernels::lz4::pages::PageKind::ALL
            .iter()
            .flat_map(|&k| warpforge::kernels::lz4::pages::page(k, 3))
            .collect();
        let (input, archive) = (dir.join("in.pages"), dir.join("out.wfpa"));
        std::fs::write(&input, &pages).expect("write pages");
        let args = [
            "compress",
            input.to_str().expect("utf-8"),
            archive.to_str().expect("utf-8"),
        ];
        let text = clean_success("compress --backend auto", &warpforge(&args, hide_vulkan));
        assert!(text.contains("backend auto: "), "{text}");
        let back = dir.join("back.pages");
        let args = [
            "decompress",
            archive.to_str().expect("utf-8"),
            back.to_str().expect("utf-8"),
        ];
        clean_success("decompress --backend auto", &warpforge(&args, hide_vulkan));
        assert!(std::fs::read(&back).expect("read") == pages, "round trip");
        std::fs::remove_dir_all(&dir).expect("clean up");
    }
}

#[test]
fn without_vulkan_webgpu_named_explicitly_is_a_clear_error() {
    let out = warpforge(&["demo", "--backend", "webgpu"], true);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no WebGPU adapter"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}
