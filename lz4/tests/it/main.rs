//! The LZ4 crate's integration tests, one module per subject, in one test binary (one link).
//! Run one subject with a filter: `cargo test -p warpforge-lz4 --test it lz4::`.

mod lz4;
mod lz4_compact_macro;
mod statement_lines;
