//! The PTX crate's integration tests, one module per subject, in one test binary (one link).
//! Run one subject with a filter: `cargo test -p warpforge-ptx --test it roundtrip::`.

#[path = "support/lift.rs"]
mod lift;
#[path = "support/corpus.rs"]
mod support;

mod constructs;
mod corpus;
mod errors;
mod roundtrip;
mod source_locs;
