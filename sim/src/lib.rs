//! `warpforge-sim`, the CPU simulator behind the `sim` and `ptx-sim` backends (`warpforge-runtime`
//! launches through it and re-exports it as `warpforge_runtime::sim`): verified IR executed on the CPU with the IR's defined semantics. It is the
//! definition of what a kernel computes — every emitter and backend is checked against it — and it
//! reports what compute-sanitizer would and counts what a profiler would.
//!
//! [`run`] launches a kernel over a grid of blocks: blocks run in parallel across the machine's cores;
//! within a block, warps of 32 lanes execute in lockstep with an active mask that follows `if`, `loop`,
//! `break`, `continue` and `return` (each structure reconverges at its end); barriers, every warp
//! collective with its explicit mask, shared memory per block, global buffers and atomics behave as the
//! IR documents them.
//!
//! # What it guarantees
//!
//! - **Deterministic.** The same launch gives the same buffers and the same findings. Warps of a block
//!   run in a fixed order (warp 0 until it waits at a barrier or finishes, then warp 1, …), lanes of a
//!   warp access memory in ascending lane order, and blocks that could observe each other (the kernel has
//!   a global atomic) run one after another in block order. Blocks of kernels without global atomics run
//!   in parallel; they cannot observe each other's writes in a race-free kernel.
//! - **It never hangs or crashes.** Every access is bounds-checked, a barrier that part of the block never
//!   reaches stops the block with a finding, and a block that runs past
//!   [`SimOptions::step_limit`] warp-instructions is stopped with a finding.
//! - **Sanitizer** ([`SimOptions::sanitize`], [`Finding`]): memcheck (out-of-bounds and misaligned
//!   accesses, reads of shared memory no thread wrote), synccheck (partial barriers, collectives whose
//!   mask does not name exactly the lanes executing them, shuffles reading outside their mask), racecheck
//!   (shared memory between barriers, global memory within a block, and global memory between blocks:
//!   a byte one block writes and another reads or writes without atomics — blocks run in no defined
//!   order; the block that reports it is whichever got there second on this run, and the check costs
//!   8 bytes of memory per byte of read-write buffer). Bounds, alignment, barriers and
//!   collective masks are checked even with the sanitizer off: they are faults, not diagnostics.
//! - **Counters** ([`SimOptions::stats`], [`Counters`]) per launch and per block.
//!
//! # Where it differs from hardware
//!
//! - Independent thread scheduling is not modelled: a warp's lanes stay in lockstep and reconverge at the
//!   end of each structure. A kernel whose result depends on the difference is what synccheck and
//!   racecheck report (collective masks naming absent lanes; lanes of one warp communicating through
//!   memory without a `warp_sync`).
//! - Shared arrays are bounds-checked against their declared size; hardware faults only outside the
//!   block's whole allocation. Unwritten shared memory reads as zero (hardware: whatever was there).
//! - Stores from several lanes to one address land in ascending lane order (hardware: unspecified), and
//!   racecheck reports them when the values differ.
//! - A warp access with any lane out of bounds or misaligned is performed for no lane (the block stops
//!   there); hardware would trap too, but may have performed some lanes' accesses.
//! - `f32` follows IEEE 754, as CUDA does. WGSL lets an implementation assume no NaN or infinity
//!   occurs and ignore the sign of a zero, so where [`Counters::f32_special`] is non-zero a WebGPU run
//!   may differ.
//! - The counters are a model (32 banks of 4 bytes, 32-byte sectors, NVIDIA's half- and quarter-warp
//!   phases for 8- and 16-byte shared accesses), not a measurement; no caches, no latencies, no timing.
//!
//! Files: `decode.rs` (IR to a linear program), `eval.rs` (the operators), `warp.rs` (the SIMT stack),
//! `block.rs` (the per-block state every executor shares, and the IR's scheduling and barriers),
//! `lanes.rs` (`let` and collectives), `access.rs` (the IR's memory instructions), `lane_access.rs`
//! (one lane's checked access, shared), `memory.rs` (global memory), `race.rs` (racecheck),
//! `stats.rs` (counters), `finding.rs`. The launch driver ([`run`]'s grid of blocks on worker threads
//! and the merging of their findings) is shared too: [`ptx`] executes PTX over all of it.

mod access;
mod arguments;
mod block;
mod buffer_arg;
mod decode;
mod eval;
mod finding;
mod grid;
mod lane_access;
mod lanes;
mod memory;
mod options;
mod profile;
pub mod ptx;
mod race;
mod race_shadow;
mod report;
mod simd;
mod site;
mod stats;
mod sync_blocks;
mod warp;

pub use finding::{lane_list, Check, Finding, FindingKind, Severity};

pub use profile::{ProfileEntry, ProfileSite};
pub use stats::Counters;

pub use arguments::check_arguments;
pub use buffer_arg::BufferArg;
pub use grid::{run, run_grid};
pub use options::{SimOptions, MAX_BLOCKS, MAX_SHARED_BYTES};
pub use report::{SimError, SimReport, MAX_PRINTED};
