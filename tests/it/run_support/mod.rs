//! What the `warpforge run` tests share: running the binary, scratch folders, the saxpy fixture (a
//! user's kernel, not in the catalog) with its inputs and the outputs it must give.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub const SAXPY: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/run/saxpy.wfir");
pub const OOB_STORE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/run/oob_store.wfir");

/// The saxpy fixture's path: where it was built, or relative to the repository root when the test
/// binary runs on another machine (scripts/gpu-check.sh runs it from the root of a copy).
pub fn saxpy_path() -> String {
    if std::path::Path::new(SAXPY).exists() {
        SAXPY.to_owned()
    } else {
        "tests/data/run/saxpy.wfir".to_owned()
    }
}

/// `warpforge run` with `words` (split at spaces, so no paths there), then `more`.
pub fn warpforge(words: &str, more: &[&str]) -> Output {
    // WARPFORGE_BIN: the binary when the tests run away from their build (scripts/gpu-check.sh).
    let bin =
        std::env::var_os("WARPFORGE_BIN").unwrap_or_else(|| env!("CARGO_BIN_EXE_warpforge").into());
    Command::new(bin)
        .arg("run")
        .args(words.split_whitespace())
        .args(more)
        .output()
        .expect("the warpforge binary runs")
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A fresh directory for one test's files.
pub fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("warpforge-run-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// Writes `bytes` to `dir/name`; returns the path.
pub fn write(dir: &Path, name: &str, bytes: &[u8]) -> String {
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("write");
    path.display().to_string()
}

pub fn f32_bytes(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

pub fn f32s(bytes: &[u8]) -> Vec<f32> {
    let words = bytes.chunks_exact(4);
    words
        .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")))
        .collect()
}

/// The saxpy fixture's inputs: 128 elements, of which the kernel touches `n` = 100 (a = 2.5,
/// offset = -7, two blocks of 64 threads).
pub struct Saxpy {
    pub x: Vec<f32>,
    pub y: Vec<f32>,
}

impl Saxpy {
    pub const WORDS: &str = "--grid 2 --arg idx=zeros:128 --arg a=2.5 --arg offset=-7 --arg n=100";

    pub fn new() -> Saxpy {
        let x = (0..128).map(|i| i as f32 * 0.75 - 20.0).collect();
        let y = (0..128).map(|i| 1000.0 - i as f32 * 1.5).collect();
        Saxpy { x, y }
    }

    /// The arguments that are paths: the kernel, `x` and `y` from files, `y` and `idx` to files.
    pub fn paths(&self, dir: &Path) -> Vec<String> {
        let x = write(dir, "x.bin", &f32_bytes(&self.x));
        let y = write(dir, "y.bin", &f32_bytes(&self.y));
        let (y_out, idx_out) = (dir.join("y.out"), dir.join("idx.out"));
        let mut args = vec![saxpy_path(), "--arg".into(), format!("x=@{x}")];
        args.extend(["--arg".into(), format!("y=@{y}"), "--out".into()]);
        args.extend([format!("y={}", y_out.display()), "--out".into()]);
        args.push(format!("idx={}", idx_out.display()));
        args
    }

    /// Checks the files the run wrote in `dir` against the values computed here.
    pub fn check_outputs(&self, dir: &Path) {
        let a = 2.5f32;
        let expected_y: Vec<f32> = (0..128)
            .map(|i| match i < 100 {
                true => a * self.x[i] + self.y[i],
                false => self.y[i],
            })
            .collect();
        let expected_idx: Vec<i32> = (0..128).map(|i| if i < 100 { i - 7 } else { 0 }).collect();
        let y = std::fs::read(dir.join("y.out")).expect("y written");
        assert_eq!(
            f32s(&y),
            expected_y,
            "y = a * x + y for i < n, untouched after"
        );
        let idx = std::fs::read(dir.join("idx.out")).expect("idx written");
        let idx: Vec<i32> = idx
            .chunks_exact(4)
            .map(|c| i32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect();
        assert_eq!(
            idx, expected_idx,
            "idx = i + offset, with a negative offset"
        );
    }
}

pub fn strs(strings: &[String]) -> Vec<&str> {
    strings.iter().map(String::as_str).collect()
}
