//! `warpforge run --profile`: the kernel's source with the simulator's counters per line, for a
//! `.wfir`/catalog kernel on sim, its PTX on ptx-sim and a PTX file, as text and as JSON; the counters
//! of the lines add up to the launch's, and a backend without simulator counters is a usage error.

use crate::run_support;
use run_support::{f32_bytes, scratch, text, warpforge, write};

/// The row of the profile whose source text is `needle` (trimmed, and without the Rust position a
/// statement of a `#[kernel]` kernel carries, ` @ "file":line:column`): its columns before the source.
fn row<'a>(stdout: &'a str, needle: &str) -> Vec<&'a str> {
    let line = stdout
        .lines()
        .find(|l| {
            let l = l.trim_end();
            l.split(" @ \"").next().unwrap_or(l).ends_with(needle)
        })
        .unwrap_or_else(|| panic!("no profile line for `{needle}`:\n{stdout}"));
    line.split_whitespace().collect()
}

/// vector-add: one block of 128 threads (4 warps), n = 200, so every lane of every warp is active.
fn vector_add(test: &str, backend: &str, extra: &str) -> (String, String) {
    let dir = scratch(test);
    let a = write(&dir, "a.bin", &f32_bytes(&[1.5; 256]));
    let words = format!(
        "--kernel vector-add --backend {backend} --arg b=zeros:256 --arg out=zeros:256 --arg n=200 \
         --profile {extra}"
    );
    let out = warpforge(&words, &["--arg", &format!("a=@{a}")]);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    std::fs::remove_dir_all(&dir).expect("clean up");
    (stdout, stderr)
}

#[test]
fn ir_profile_counts_each_statement_on_its_wfir_line() {
    let (stdout, _) = vector_add("profile-ir", "sim", "");
    assert!(stdout.contains("profile (ir source; simulator counters summed over 1 block(s)"));
    // Each statement ran once per warp, with all 32 lanes.
    let add = row(&stdout, "%9: f32 = add %7, %8");
    assert_eq!(add[1], "4", "{add:?}");
    assert_eq!(add[3], "32.0", "{add:?}");
    // A coalesced f32 store: 4 warp-accesses of 128 bytes, 4 sectors each.
    let store = row(&stdout, "store global out[%4], %9");
    assert_eq!(
        (store[1], store[6], store[7]),
        ("4", "4", "16"),
        "{store:?}"
    );
    // Declarations carry no counters: the row is the line number and the text only.
    let param = row(&stdout, "param n: u32");
    assert_eq!(param[1], "param", "{param:?}");
    assert!(stdout.contains("hottest lines ("), "{stdout}");
}

#[test]
fn ptx_sim_profile_shows_the_emitted_ptx_and_a_ptx_files_lines() {
    let (stdout, _) = vector_add("profile-ptx-sim", "ptx-sim", "--sm 80");
    assert!(stdout.contains("profile (ptx source;"), "{stdout}");
    let st = stdout
        .lines()
        .find(|l| l.contains("st.global.f32"))
        .unwrap_or_else(|| panic!("no st.global line:\n{stdout}"));
    let cols: Vec<&str> = st.split_whitespace().collect();
    assert_eq!((cols[1], cols[6], cols[7]), ("4", "4", "16"), "{st}");

    // The same PTX as a file: its own line numbers.
    let dir = scratch("profile-ptx-file");
    let emitted = std::process::Command::new(env!("CARGO_BIN_EXE_warpforge"))
        .args([
            "emit",
            "--kernel",
            "vector-add",
            "--target",
            "ptx",
            "--sm",
            "80",
        ])
        .output()
        .expect("emit runs");
    let ptx = write(&dir, "vector_add.ptx", &emitted.stdout);
    let a = write(&dir, "a.bin", &f32_bytes(&[2.0; 256]));
    let out = warpforge(
        "--backend sim --arg p_b=zeros:1024 --arg p_out=zeros:1024 --arg p_n=200 --profile --format json",
        &[&ptx, "--arg", &format!("p_a=@{a}")],
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    let json: serde_json::Value = serde_json::from_str(&stdout).expect("one JSON object");
    assert_eq!(json["profile"]["source"], "ptx");
    let lines = json["profile"]["lines"].as_array().expect("lines");
    let ptx_text = String::from_utf8(emitted.stdout).expect("utf-8");
    let source: Vec<&str> = ptx_text.lines().collect();
    for l in lines {
        let n = l["line"].as_u64().expect("line") as usize;
        assert_eq!(l["text"], source[n - 1].trim(), "line {n}");
    }
    std::fs::remove_dir_all(&dir).expect("clean up");
}

#[test]
fn json_profile_lines_add_up_to_the_launch_counters() {
    let (stdout, _) = vector_add("profile-json", "sim", "--stats --format json");
    let json: serde_json::Value = serde_json::from_str(&stdout).expect("one JSON object");
    assert_eq!(json["profile"]["source"], "ir");
    let lines = json["profile"]["lines"].as_array().expect("lines");
    let sum = |key: &str| {
        lines
            .iter()
            .map(|l| l[key].as_u64().expect(key))
            .sum::<u64>()
    };
    assert_eq!(sum("warp_instructions"), json["stats"]["warp_instructions"]);
    assert_eq!(sum("global_sectors"), json["stats"]["global_sectors"]);
    assert_eq!(sum("shared_wavefronts"), json["stats"]["shared_wavefronts"]);
}

#[test]
fn profile_without_simulator_counters_is_a_usage_error() {
    let out = warpforge(
        "--kernel vector-add --backend webgpu --arg a=zeros:256 --arg b=zeros:256 \
         --arg out=zeros:256 --arg n=1 --profile",
        &[],
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains(
            "--profile shows the simulator's counters: run on sim or ptx-sim, or add --check sim"
        ),
        "{}",
        text(&out.stderr)
    );
}
