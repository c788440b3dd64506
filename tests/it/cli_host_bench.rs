//! `warpforge host-bench` end to end on a small corpus: every row measured with no CPU fallback, the
//! CLI pipeline's rows (each round trip checked by the command itself), and the latency rows (1,000
//! calls of a 64-page batch, each checked by the command itself) with ordered percentiles.

use std::process::Command;

use warpforge::kernels::lz4::pages::{page, PageKind};

#[test]
fn host_bench_reports_throughput_and_latency_rows() {
    let dir = std::env::temp_dir().join(format!("warpforge-host-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    let corpus = dir.join("pages.bin");
    let bytes: Vec<u8> = (0..32u64)
        .flat_map(|i| page(PageKind::ALL[i as usize % PageKind::ALL.len()], i))
        .collect();
    std::fs::write(&corpus, bytes).expect("writes the corpus");
    let out = Command::new(env!("CARGO_BIN_EXE_warpforge"))
        .args([
            "host-bench",
            "--mib",
            "1",
            "--runs",
            "2",
            "--json",
            "--corpus",
        ])
        .arg(&corpus)
        .output()
        .expect("runs");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!(json["cpu_fallback_pages"], 0);
    assert_eq!(json["pages"], 256);
    for row in [
        "compress",
        "decompress",
        "compress_staged",
        "compress_batch",
        "compress_batch_host",
        "compress_host",
        "decompress_batch",
        "compress_batch_registered",
        "decompress_registered",
    ] {
        assert!(
            json[row]["host_ms"].as_f64().expect("a number") > 0.0,
            "{row}: {json}"
        );
        assert!(
            json[row]["host_spread"].as_f64().expect("a number") >= 0.0,
            "{row}: {json}"
        );
    }
    let pipeline = &json["cli_pipeline"];
    assert_eq!(pipeline["cpu_fallback_pages"], 0, "{pipeline}");
    for row in ["compress_file", "decompress_file"] {
        assert!(
            pipeline[row]["host_ms"].as_f64().expect("a number") > 0.0,
            "{row}: {pipeline}"
        );
    }
    let latency = &json["latency_64_pages"];
    assert_eq!(latency["calls"], 1000);
    assert_eq!(latency["pages"], 64);
    for direction in ["compress", "decompress"] {
        let p = &latency[direction];
        let get = |k: &str| p[k].as_f64().expect("a number");
        assert!(
            get("wall_p50_ms") > 0.0 && get("wall_p50_ms") <= get("wall_p99_ms"),
            "{p}"
        );
        assert!(get("host_p50_ms") <= get("host_p99_ms"), "{p}");
    }
}
