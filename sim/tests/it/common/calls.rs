//! A harness for the `.func` call tests: an entry `k(out, scalars…)` on one block, and its prologue.

// Each test binary uses a part of these helpers.
#![allow(dead_code)]

use super::ptx;
use warpforge_sim::{SimOptions, SimReport};

pub const HEADER: &str = ".version 7.0\n.target sm_80\n.address_size 64\n\n";

/// Runs entry `k` of `HEADER + text` on one block of `threads` threads: the first parameter is a
/// buffer of `out_bytes`, then the scalars `scalars`.
pub fn run(text: &str, threads: u32, out_bytes: usize, scalars: &[u64]) -> (SimReport, Vec<u8>) {
    let text = format!("{HEADER}{text}");
    ptx::run_out(
        &text,
        "k",
        &ptx::shape(1, threads),
        out_bytes,
        scalars,
        &SimOptions::default(),
    )
}

pub use super::ptx::words as u32s;

pub fn u64s(bytes: &[u8]) -> Vec<u64> {
    bytes
        .chunks(8)
        .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
        .collect()
}

/// The entry's prologue: `%r1` = `%tid.x`, `%rd2` = `out + 4 * tid`, `%rd3` = `out + 8 * tid`.
pub const PROLOGUE: &str = "
    .reg .pred %p<8>;
    .reg .b32 %r<32>;
    .reg .b64 %rd<16>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd4, %r1, 4;
    add.s64 %rd2, %rd1, %rd4;
    mul.wide.u32 %rd4, %r1, 8;
    add.s64 %rd3, %rd1, %rd4;
";
