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

/// The first byte offset at which the files `a` and `b` differ (or the block in which the shorter one
/// ends); `None` if they are equal. Read a block at a time so that the comparison holds neither file
/// in memory.
fn first_difference(a: &Path, b: &Path) -> Option<u64> {
    use std::io::Read;
    let open = |p: &Path| std::io::BufReader::new(std::fs::File::open(p).expect("open"));
    let (mut a, mut b) = (open(a), open(b));
    let (mut x, mut y) = (vec![0u8; 1 << 20], vec![0u8; 1 << 20]);
    let mut offset = 0u64;
    loop {
        let n = a.read(&mut x).expect("read");
        if b.read_exact(&mut y[..n]).is_err() {
            return Some(offset); // `b` ends within this block
        }
        if let Some(i) = x[..n].iter().zip(&y[..n]).position(|(p, q)| p != q) {
            return Some(offset + i as u64);
        }
        if n == 0 {
            return (b.read(&mut y).expect("read") != 0).then_some(offset);
        }
        offset += n as u64;
    }
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
    let difference = first_difference(&input, &back);
    std::fs::remove_dir_all(&dir).expect("clean up");
    assert_eq!(
        difference, None,
        "the round trip changed the data at this byte offset"
    );
    // Measured 16-19 MiB for 240 MB and 720 MB inputs alike; the bound is 256 MiB.
    assert!(rss < 64 << 20, "peak RSS {} MiB", rss >> 20);
}
