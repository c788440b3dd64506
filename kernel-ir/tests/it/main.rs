//! The IR crate's integration tests, one module per subject, in one test binary (one link).
//! Run one subject with a filter: `cargo test -p warpforge-ir --test it verifier::`.

mod hoisted_constants;
mod hostile_text;
mod ir_doc;
mod macro_registers;
mod macro_samples;
mod macro_subset;
mod macro_ui;
mod roundtrip;
mod source_locs;
mod source_locs_text;
mod verifier;
