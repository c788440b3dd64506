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
mod lane_access;
mod lanes;
mod memory;
mod profile;
pub mod ptx;
mod race;
mod stats;
mod warp;

use std::collections::HashMap;
use std::fmt;
use std::time::Instant;

use warpforge_ir::{Access, Verified};

pub use finding::{lane_list, Check, Finding, FindingKind, Severity};

pub use profile::{ProfileEntry, ProfileSite};
pub use stats::Counters;

pub use arguments::check_arguments;
use block::{BlockOutcome, BlockRun, Sites};
pub use buffer_arg::BufferArg;
use memory::GlobalBuffer;

/// How a launch runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimOptions {
    /// racecheck, initcheck and shuffle-outside-mask checks (default on). Bounds, alignment, barriers
    /// and collective masks are checked either way.
    pub sanitize: bool,
    /// Count bank conflicts and global sectors, and keep per-block counters (default off; the
    /// instruction counts are always kept).
    pub stats: bool,
    /// Keep the counters per instruction as well, summed over blocks into [`SimReport::profile`]
    /// (default off; turn `stats` on too for sectors and bank conflicts).
    pub profile: bool,
    /// Worker threads for blocks; 0 = one per core (default).
    pub threads: usize,
    /// Warp-instructions a block may execute before it is stopped as endless (default 100 million).
    pub step_limit: u64,
    /// Findings kept per block (default 16).
    pub max_findings: usize,
}

impl Default for SimOptions {
    fn default() -> Self {
        SimOptions {
            sanitize: true,
            stats: false,
            profile: false,
            threads: 0,
            step_limit: 100_000_000,
            max_findings: 16,
        }
    }
}

/// What a launch did.
#[derive(Clone, Debug, Default)]
pub struct SimReport {
    /// Every finding, in block order; one per kind and statement (the count of other blocks with the
    /// same is in [`Finding::other_blocks`]).
    pub findings: Vec<Finding>,
    /// Counters of the whole launch.
    pub counters: Counters,
    /// Counters per block (with [`SimOptions::stats`]; empty otherwise).
    pub blocks: Vec<Counters>,
    /// Counters per instruction with [`SimOptions::profile`], in program order, summed over blocks;
    /// only instructions that counted something (empty otherwise).
    pub profile: Vec<ProfileEntry>,
    /// Blocks an error stopped before they finished.
    pub stopped_blocks: u32,
    /// Host-clock time of the launch (decoding, copies and execution), nanoseconds.
    pub elapsed_ns: u64,
}

impl SimReport {
    /// The error-level findings.
    pub fn errors(&self) -> impl Iterator<Item = &Finding> {
        self.findings
            .iter()
            .filter(|f| f.severity() == Severity::Error)
    }

    /// Whether the launch ran to the end with no error-level finding.
    pub fn is_clean(&self) -> bool {
        self.errors().next().is_none() && self.stopped_blocks == 0
    }
}

/// Why a launch did not start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SimError {
    /// The arguments do not match the kernel (count, access, length, scalar width, grid).
    Arguments(String),
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SimError::Arguments(m) => write!(f, "bad launch arguments: {m}"),
        }
    }
}

impl std::error::Error for SimError {}

/// The most shared memory an IR kernel's block may have in the simulator (each block running at a
/// time allocates it; the verifier lets a kernel declare up to 4 GiB).
pub const MAX_SHARED_BYTES: u64 = 1 << 20;

/// The most blocks a simulated launch may have: the simulator keeps every block's outcome (counters,
/// findings) until the launch ends, so the grid bounds its memory.
pub const MAX_BLOCKS: u32 = 1 << 22;

/// `Err` naming [`MAX_BLOCKS`] when a grid of `blocks` blocks is larger.
pub(crate) fn check_blocks(blocks: u32) -> Result<(), String> {
    if blocks > MAX_BLOCKS {
        return Err(format!(
            "{blocks} blocks; the simulator runs at most {MAX_BLOCKS} per launch \
             (MAX_BLOCKS in sim/src/lib.rs): launch the grid in parts"
        ));
    }
    Ok(())
}

/// Runs `kernel` over `blocks` blocks on the CPU. `buffers` are the buffer parameters in parameter
/// order (a `read_write` buffer needs [`BufferArg::ReadWrite`]); `scalars` the scalar parameters' bits
/// in parameter order (see `warpforge_ir::Literal::to_bits`). Every `ReadWrite` slice holds the
/// buffer's contents after the launch — also when a finding stopped some blocks, so the damage can be
/// inspected.
///
/// # Errors
///
/// [`SimError::Arguments`] when the arguments do not match the kernel, its shared arrays are larger
/// than [`MAX_SHARED_BYTES`] or the grid than [`MAX_BLOCKS`]. Kernel faults are not errors of
/// the call: they are findings in the [`SimReport`] ([`SimReport::is_clean`]).
pub fn run(
    kernel: &Verified<'_>,
    blocks: u32,
    buffers: &mut [BufferArg<'_>],
    scalars: &[u64],
    options: &SimOptions,
) -> Result<SimReport, SimError> {
    let params = kernel.params.iter().map(|(_, p)| (p.name.as_str(), p.kind));
    check_arguments(&kernel.name, params, blocks, buffers, scalars).map_err(SimError::Arguments)?;
    check_blocks(blocks)
        .map_err(|m| SimError::Arguments(format!("kernel `{}`: {m}", kernel.name)))?;
    match kernel.shared_bytes() {
        Some(bytes) if bytes <= MAX_SHARED_BYTES => {}
        bytes => {
            return Err(SimError::Arguments(format!(
                "kernel `{}`: {} bytes of shared memory per block; the simulator allows {MAX_SHARED_BYTES} \
                 (MAX_SHARED_BYTES in sim/src/lib.rs; sm_90 allows 227 KiB)",
                kernel.name,
                bytes.map_or("too many".to_owned(), |b| b.to_string())
            )))
        }
    }
    let start = Instant::now();
    let program = decode::decode(kernel, scalars);
    let globals = global_buffers(buffers, options, blocks);
    let threads = worker_threads(program.global_atomics, options, blocks);
    let outcomes = run_grid(blocks, threads, |block| {
        BlockRun::new(&program, &globals, options, block, blocks).run()
    });
    copy_back(&globals, buffers);
    let mut report = merge_outcomes(outcomes, options, &program);
    report.elapsed_ns = start.elapsed().as_nanos() as u64;
    Ok(report)
}

/// The launch's global buffers: a read-write buffer keeps the cross-block racecheck shadow when the
/// sanitizer is on and there are several blocks.
pub(crate) fn global_buffers(
    buffers: &[BufferArg<'_>],
    options: &SimOptions,
    blocks: u32,
) -> Vec<GlobalBuffer> {
    buffers
        .iter()
        .map(|b| {
            let track = options.sanitize && b.access() == Access::ReadWrite && blocks > 1;
            GlobalBuffer::with_tracking(b.bytes(), track)
        })
        .collect()
}

/// Worker threads for `blocks` blocks: one when blocks can observe each other (`serial`: the kernel
/// has a global atomic), else the option's count (0 = one per core), never more than the blocks.
pub(crate) fn worker_threads(serial: bool, options: &SimOptions, blocks: u32) -> usize {
    if serial {
        1
    } else if options.threads == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        options.threads
    }
    .min(blocks as usize)
    .max(1)
}

/// Runs blocks `0..blocks` with `run_block` on `threads` worker threads (rayon: the global pool when
/// `threads` is every core, else a pool of `threads`; one thread runs them in order); their outcomes
/// in block order.
pub(crate) fn run_grid(
    blocks: u32,
    threads: usize,
    run_block: impl Fn(u32) -> BlockOutcome + Sync,
) -> Vec<BlockOutcome> {
    use rayon::prelude::*;
    if threads <= 1 {
        return (0..blocks).map(run_block).collect();
    }
    // One block per task: blocks differ widely in cost (a page of zeros against a page of text).
    let run = || -> Vec<BlockOutcome> {
        (0..blocks)
            .into_par_iter()
            .with_max_len(1)
            .map(&run_block)
            .collect()
    };
    if threads >= rayon::current_num_threads() {
        return run();
    }
    match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
        Ok(pool) => pool.install(run),
        Err(_) => (0..blocks).map(run_block).collect(),
    }
}

/// Copies every read-write buffer's contents back into its argument.
pub(crate) fn copy_back(globals: &[GlobalBuffer], buffers: &mut [BufferArg<'_>]) {
    for (global, arg) in globals.iter().zip(buffers.iter_mut()) {
        if let BufferArg::ReadWrite(out) = arg {
            global.copy_to(out);
        }
    }
}

/// The launch's report from its blocks' outcomes: counters summed (and kept per block with
/// [`SimOptions::stats`]), findings in block order, one per kind and statement.
pub(crate) fn merge_outcomes(
    outcomes: Vec<BlockOutcome>,
    options: &SimOptions,
    sites: &impl Sites,
) -> SimReport {
    let mut report = SimReport::default();
    let mut seen: HashMap<(FindingKind, String), usize> = HashMap::new();
    let mut per_pc: Vec<Counters> = Vec::new();
    for outcome in outcomes {
        report.counters += &outcome.counters;
        if per_pc.len() < outcome.per_pc.len() {
            per_pc.resize(outcome.per_pc.len(), Counters::default());
        }
        for (sum, c) in per_pc.iter_mut().zip(&outcome.per_pc) {
            *sum += c;
        }
        if options.stats {
            report.blocks.push(outcome.counters);
        }
        report.stopped_blocks += u32::from(outcome.stopped);
        for f in outcome.findings {
            let key = (f.kind, f.statement.clone());
            match seen.get(&key) {
                Some(&i) if report.findings[i].block != f.block => {
                    report.findings[i].other_blocks += 1
                }
                Some(_) => {}
                None => {
                    seen.insert(key, report.findings.len());
                    report.findings.push(f);
                }
            }
        }
    }
    report.profile = profile::entries(&per_pc, sites);
    report
}
