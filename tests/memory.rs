//! Compressing and decompressing need memory independent of the input size (the bound: peak
//! RSS under 256 MiB whatever the input). Its own test binary, so that the parent process is small: a
//! child's peak RSS as `getrusage` reports it includes what it inherited before `exec`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use warpforge::kernels::lz4::pages::{page, PageKind};

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

fn warpforge(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_warpforge"))
        .args(args)
        .output()
        .expect("runs")
}

/// Peak resident memory of finished child processes, in bytes.
fn children_max_rss() -> u64 {
    // SAFETY: getrusage only writes the struct we pass, which is zero-initialized and owned here.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage);
        usage
    };
    usage.ru_maxrss as u64 * 1024
}

#[test]
fn peak_memory_stays_bounded_on_a_large_input() {
    let dir = std::env::temp_dir().join(format!("warpforge-rss-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = |f: &str| -> PathBuf { dir.join(f) };
    let input = path("big.pages");
    // 320 MiB: more than the 256 MiB bound, so holding the input would fail the test.
    let distinct: Vec<u8> = PageKind::ALL
        .iter()
        .flat_map(|&k| (0..8).flat_map(move |s| page(k, s)))
        .collect();
    let mut file = std::io::BufWriter::new(std::fs::File::create(&input).expect("create"));
    let target = 320u64 << 20;
    let mut written = 0u64;
    while written < target {
        file.write_all(&distinct).expect("write");
        written += distinct.len() as u64;
    }
    drop(file);
    let archive = path("big.wfpa");
    let back = path("big.back");
    for args in [
        ["compress", "--backend", "reference", s(&input), s(&archive)],
        ["decompress", "--backend", "cpu", s(&archive), s(&back)],
    ] {
        let run = warpforge(&args);
        assert!(
            run.status.success(),
            "{}",
            String::from_utf8_lossy(&run.stderr)
        );
    }
    let rss = children_max_rss();
    let _ = writeln!(
        std::io::stderr(),
        "peak RSS of compress/decompress on {} MiB: {} MiB",
        written >> 20,
        rss >> 20
    );
    assert_eq!(std::fs::metadata(&back).expect("output").len(), written);
    std::fs::remove_dir_all(&dir).expect("clean up");
    // Measured 16-19 MiB for 240 MB and 720 MB inputs alike; the bound is 256 MiB.
    assert!(rss < 64 << 20, "peak RSS {} MiB", rss >> 20);
}
