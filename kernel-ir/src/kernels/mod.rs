//! Kernels written in the IR, with CPU references of exactly their algorithms.
//!
//! - [`lz4`]: LZ4 block compression and decompression of 4 KiB pages.

pub mod lz4;
