//! The WGSL crate's integration tests, one module per subject, in one test binary (one link).
//! Run one subject with a filter: `cargo test -p warpforge-wgsl --test it emit::`.

mod emit;
mod naga_run;
mod subgroup_runs;
mod subgroups;
mod targets;
