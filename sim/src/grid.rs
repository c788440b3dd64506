//! A launch's grid of blocks: [`run`] for the IR, and the driver both executors share (blocks on
//! worker threads, global buffers, the merging of their outcomes into one report).

use std::collections::HashMap;
use std::time::Instant;

use warpforge_ir::{Access, Verified};

use crate::arguments::check_arguments;
use crate::block::{BlockOutcome, BlockRun};
use crate::buffer_arg::BufferArg;
use crate::decode;
use crate::finding::FindingKind;
use crate::memory::GlobalBuffer;
use crate::options::{check_blocks, SimOptions, MAX_SHARED_BYTES};
use crate::profile::{self, Sites};
use crate::report::{SimError, SimReport};
use crate::stats::Counters;

/// Runs `kernel` over `blocks` blocks on the CPU. `buffers` are the buffer parameters in parameter
/// order (a `read_write` buffer needs [`BufferArg::ReadWrite`]); `scalars` the scalar parameters' bits
/// in parameter order (see `warpforge_ir::Literal::to_bits`). Every `ReadWrite` slice holds the
/// buffer's contents after the launch — also when a finding stopped some blocks, so the damage can be
/// inspected.
///
/// # Errors
///
/// [`SimError::Arguments`] when the arguments do not match the kernel, its shared arrays are larger
/// than [`MAX_SHARED_BYTES`] or the grid than [`MAX_BLOCKS`](crate::MAX_BLOCKS). Kernel faults are not errors of
/// the call: they are findings in the [`SimReport`] ([`SimReport::is_clean`]).
pub fn run(
    kernel: &Verified<'_>,
    blocks: u32,
    buffers: &mut [BufferArg<'_>],
    scalars: &[u64],
    options: &SimOptions,
) -> Result<SimReport, SimError> {
    run_grid(kernel, [blocks, 1, 1], buffers, scalars, options)
}

/// [`run`] over a grid of `grid = [x, y, z]` blocks (`x·y·z` blocks, numbered x fastest as CUDA
/// does: the kernel's `block_index` is linear, `block_index_x/y/z` its coordinates).
///
/// # Errors
///
/// As [`run`]; also a zero dimension.
pub fn run_grid(
    kernel: &Verified<'_>,
    grid: [u32; 3],
    buffers: &mut [BufferArg<'_>],
    scalars: &[u64],
    options: &SimOptions,
) -> Result<SimReport, SimError> {
    let blocks = grid_blocks(&kernel.name, grid)?;
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
    let mut program = decode::decode(kernel, scalars);
    program.grid_dims = grid;
    let globals = global_buffers(buffers, options, blocks);
    let threads = worker_threads(program.global_atomics, options, blocks);
    let outcomes = run_blocks(blocks, threads, |block| {
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
pub(crate) fn run_blocks(
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
        report.printed_dropped += outcome.printed_dropped;
        for line in outcome.printed {
            if report.printed.len() < crate::report::MAX_PRINTED {
                report.printed.push(line);
            } else {
                report.printed_dropped += 1;
            }
        }
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

/// The number of blocks of a grid, or why it cannot be launched (a zero dimension, or more than
/// `u32::MAX` blocks; [`check_blocks`] then applies the simulator's own limit).
pub(crate) fn grid_blocks(kernel: &str, grid: [u32; 3]) -> Result<u32, SimError> {
    let product: u64 = grid.iter().map(|&d| u64::from(d)).product();
    match u32::try_from(product) {
        Ok(blocks) if blocks > 0 => Ok(blocks),
        _ => Err(SimError::Arguments(format!(
            "kernel `{kernel}`: a grid of {}×{}×{} blocks cannot be launched (each dimension at least 1, {} blocks at most)",
            grid[0],
            grid[1],
            grid[2],
            u32::MAX
        ))),
    }
}
