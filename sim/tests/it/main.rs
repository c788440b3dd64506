//! The simulator's integration tests, one module per subject, in one test binary (one link).
//! Run one subject with a filter: `cargo test -p warpforge-sim --test it corpus_run::`.

mod common;
mod corpus_support;
mod mma_support;

mod corpus_lint;
mod corpus_run;
mod hostile_ir;
mod hostile_ptx;
mod macro_locs;
mod planted_confirmed;
mod ptx_approx;
mod ptx_assert;
mod ptx_async;
mod ptx_bulk;
mod ptx_calls;
mod ptx_calls_corpus;
mod ptx_calls_sync;
mod ptx_f64;
mod ptx_faults;
mod ptx_fence_blocks;
mod ptx_half;
mod ptx_int_carry;
mod ptx_int_forms;
mod ptx_ldmatrix;
mod ptx_mbarrier;
mod ptx_mma;
mod ptx_mma_nvcc;
mod ptx_nvcc;
mod ptx_poison;
mod ptx_printf;
mod ptx_release_acquire;
mod ptx_reserved_smem;
mod ptx_rounding;
mod ptx_shapes;
mod ptx_spin;
mod ptx_strong;
mod sanitizer;
mod source_locs;
