//! The analyzer's integration tests, one module per subject, in one test binary (one link).
//! Run one subject with a filter: `cargo test -p warpforge-analysis --test it fixtures::`.

mod corpus;
mod exits;
mod fixtures;
mod hostile_ptx;
mod ptx_input;
mod race;
mod reaching;
mod refine;
mod sarif;
mod settled;
mod small_blocks;
mod source_locs;
mod uniformity;
mod warp_size;
