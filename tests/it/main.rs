//! The root package's integration tests, one module per subject, gathered into one test binary so
//! that the workspace (wgpu, naga, cudarc and all) is linked once for them instead of once per file.
//! `tests/memory.rs` stays a binary of its own: it measures its children's peak memory, which in a
//! shared process would include every other test's children.
//!
//! Run one subject with a filter: `cargo test --test it ptx::` (or a single test by its full path).

mod backends_support;
mod catalog_cases;
mod common;
#[path = "../../sim/tests/it/corpus_support/mod.rs"]
mod corpus_support;
mod layout_support;
mod run_support;
mod zoo_support;

mod archive;
mod byte_access;
mod cli;
mod cli_accept;
mod cli_auto;
mod cli_host_bench;
mod cli_profile;
mod cli_run;
mod cli_run_backends;
mod cli_run_ptx;
mod conversions;
mod corpus_cuda;
mod device_codec;
mod differential;
mod f64_generic;
mod file_sizes;
mod float_atomics;
mod float_math;
mod funnel_shift;
mod gpu_batch;
mod gpu_check_perf;
mod gpu_check_run;
mod gpu_check_script;
mod half_floats;
mod half_math;
mod host_pages;
mod host_pipeline;
mod launch_shapes;
mod layout;
mod lint;
mod lint_vs_naga;
mod lz4_custom_levels;
mod lz4_decompress_window;
mod lz4_device;
mod lz4_device_warps;
mod lz4_in_place;
mod lz4_kernels;
mod lz4_levels;
mod math_functions;
mod op_table;
mod pipeline_batches;
mod ptx;
mod ptx_corpus_cuda;
mod ptx_sim;
mod ptx_sim_pipeline;
mod reference_gpu_batch_doc;
mod reference_lz4_kernel_doc;
mod registered_pages;
mod sim;
mod spirv_webgpu;
mod targets;
mod webgpu;
mod wgsl;
mod zoo;
