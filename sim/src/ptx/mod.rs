//! The PTX simulator: a PTX entry (parsed by `warpforge_ptx::parse`, from the emitter or from nvcc)
//! executed on the CPU with warp semantics, over the same machinery as the IR simulator — shared
//! memory per block, global buffers, the sanitizer (memcheck, synccheck, racecheck), the counters,
//! the grid of blocks on worker threads and the merged [`SimReport`] — so a PTX launch reports what
//! an IR launch does, in PTX terms: each finding names the PTX line and instruction.
//!
//! [`PtxKernel::load`] decodes an entry once (every instruction to a compact form with resolved
//! register indices; an instruction or modifier it does not implement is a [`PtxError`] naming it
//! and its line). [`run`] launches it: a block shape (`.reqntid`, or given), a number of blocks,
//! the parameters in order ([`PtxArg`]: a buffer for a pointer, a scalar's bits), the dynamic
//! shared memory.
//!
//! # Semantics (PTX ISA 8.x)
//!
//! - **Control flow.** Each warp keeps a SIMT stack; divergent branches reconverge at their
//!   immediate post-dominator (`simt.rs`, `cfg.rs`). `.sync` instructions and barriers wait for the
//!   lanes they name, which may be on a sibling path (see `simt.rs`). `exit`, and `ret` in the
//!   entry, end threads.
//! - **Calls** (`call`, `ret` in a `.func`, `brx.idx`): the calling lanes run the callee while the
//!   others wait after the call; each activation has a frame in the thread's local memory and its
//!   registers saved; arguments and return values are copied by value (`decode_call.rs`,
//!   `exec_call.rs`). Indirect calls through a function pointer are refused.
//! - **Barriers** (`bar`, `barrier`, PTX ISA "Parallel Synchronization and Communication
//!   Instructions: bar, barrier"): a warp arrives when all its non-exited threads have executed
//!   the barrier; the barrier completes when every non-exited thread of the block has arrived, or
//!   the given thread count; exited threads never hold it up (ISA, `exit`). A barrier that cannot
//!   complete, an aligned barrier (`bar.sync`) met at different instructions, or a warp arriving
//!   divergent is a synccheck error, not a hang.
//! - **Memory.** Global buffers are placed far apart in a 64-bit address space, shared and local
//!   memory have generic windows (`address.rs`); every access is checked for alignment (716) and
//!   bounds (700) before it happens. `membar`/`fence` are no-ops: the simulator is sequentially
//!   consistent (every access is performed in program order, lanes in ascending order).
//! - **Asynchronous copies and mbarriers** (`cp.async`, `mbarrier.*`): a copy is performed at the
//!   latest moment the ISA allows — the wait that covers it (`exec_async.rs`); an mbarrier is 8
//!   bytes of shared memory holding its phase, counts and tx-count (`exec_mbarrier.rs`). Reading
//!   a copy's destination before its wait, or misusing an mbarrier, is a finding. The global-to-
//!   shared bulk copy on an mbarrier runs (`exec_bulk.rs`); the other bulk forms, TMA and `wgmma`
//!   are refused.
//! - **Arithmetic**: integer instructions exactly as the ISA defines them (`exec_int.rs`; the
//!   24-bit multiplies, bit-mask, dot-product, funnel-shift and `lop3` forms in `exec_bits.rs`, the
//!   carry chains with their per-thread `CC.CF` in `exec_ext.rs`); `f32`
//!   (`exec_float.rs`) and `f64` (`exec_f64.rs`) with IEEE results where PTX defines them, in every
//!   rounding direction (`round.rs`); half precision (`.f16`, `.bf16` and their packed pairs,
//!   correctly rounded), `set`, `testp` and `copysign` in `decode_half.rs`, `inst_half.rs`,
//!   `exec_half.rs`, `half_fmt.rs`.
//! - **Matrix instructions** (`ldmatrix`, `stmatrix`, `mma.sync`, `wmma`; `inst_mma.rs`,
//!   `decode_mma.rs`, `exec_mma.rs`): warp collectives that every lane of the warp must execute
//!   together (otherwise a synccheck error); `mma.sync` fragments as the ISA's figures, `wmma`
//!   fragments self-consistent; D = A·B + C from exact products summed in `f64` and rounded once.
//!
//! Files: `decode.rs` (+ `decode_mods.rs`, `decode_alu.rs`, `decode_int.rs`, `decode_float.rs`,
//! `decode_mem.rs`, `decode_call.rs`, `decode_async.rs`, `decode_mma.rs`, `decode_operands.rs`, `approx.rs`,
//! `registers.rs`, `layout.rs`, `cfg.rs`), `inst.rs`, `inst_int.rs`, `inst_mem.rs`,
//! `inst_async.rs` and `inst_mma.rs` (the decoded form), `block.rs` (warps, scheduling),
//! `barrier.rs`, `simt.rs`, `exec_alu.rs` (+ `exec_int.rs`, `exec_bits.rs`, `exec_ext.rs`,
//! `exec_float.rs`, `exec_f64.rs`, `round.rs`), `exec_mem.rs` (+ `exec_mem_fast.rs`, `exec_fault.rs`), `exec_async.rs`,
//! `exec_mbarrier.rs`, `exec_warp.rs`, `exec_call.rs`, `exec_mma.rs`, `poison.rs`, `address.rs`.

mod address;
mod approx;
mod async_state;
mod barrier;
mod block;
mod calls;
mod cfg;
mod decode;
mod decode_alu;
mod decode_async;
mod decode_call;
mod decode_float;
mod decode_half;
mod decode_int;
mod decode_mem;
mod decode_mma;
mod decode_mods;
mod decode_operands;
mod error;
mod exec_alu;
mod exec_assert;
mod exec_async;
mod exec_bits;
mod exec_bulk;
mod exec_call;
mod exec_cvt;
mod exec_ext;
mod exec_f64;
mod exec_fault;
mod exec_float;
mod exec_half;
mod exec_hot;
mod exec_hot_half;
#[cfg(test)]
mod exec_hot_tests;
mod exec_int;
mod exec_mbarrier;
mod exec_mem;
mod exec_mem_checked;
#[cfg(test)]
mod exec_mem_checked_tests;
mod exec_mem_fast;
mod exec_mma;
mod exec_poison;
mod exec_printf;
mod exec_warp;
mod half_fmt;
mod inst;
mod inst_async;
mod inst_half;
mod inst_int;
mod inst_mem;
mod inst_mma;
mod inst_types;
mod ir_convert;
mod launch_state;
mod layout;
mod poison;
mod printf;
mod registers;
mod round;
mod schedule;
mod simt;
mod uninit;
mod warp_init;

use std::time::Instant;

use warpforge_ptx::parse::{parse, Module};

pub use error::PtxError;
pub(crate) use exec_f64::atomic_add as f64_atomic_add;
pub(crate) use ir_convert::float_convert;
use launch_state::LaunchState;
pub use layout::{ModuleVariable, PtxParam};

use crate::buffer_arg::BufferArg;
use crate::grid::{copy_back, global_buffers, merge_outcomes, run_blocks, worker_threads};
use crate::memory::GlobalBuffer;
use crate::options::{check_blocks, SimOptions};
use crate::report::{SimError, SimReport};
use address::{buffer_base, GlobalMap};
use block::PtxBlock;
use decode::Program;

pub(crate) use crate::lanes::lanes;

/// The most shared memory a block may have (sm_90 allows 227 KiB).
const MAX_SHARED: u32 = 1 << 20;

/// A PTX entry decoded for the simulator.
#[derive(Debug)]
pub struct PtxKernel {
    program: Program,
}

impl PtxKernel {
    /// Parses `text` and decodes its entry `entry`.
    pub fn load(text: &str, entry: &str) -> Result<PtxKernel, PtxError> {
        let module = parse(text).map_err(|e| PtxError::Parse(e.to_string()))?;
        PtxKernel::from_module(&module, entry)
    }

    /// Decodes entry `entry` of a parsed module.
    pub fn from_module(module: &Module, entry: &str) -> Result<PtxKernel, PtxError> {
        let Some(function) = module.entries().find(|f| f.name == entry) else {
            return Err(PtxError::NoEntry {
                entry: entry.to_owned(),
                entries: module.entries().map(|f| f.name.clone()).collect(),
            });
        };
        Ok(PtxKernel {
            program: decode::decode(module, function)?,
        })
    }

    /// The entry's name.
    pub fn name(&self) -> &str {
        &self.program.name
    }

    /// The parameters, in order.
    pub fn params(&self) -> &[PtxParam] {
        &self.program.params
    }

    /// The module's variables (`__device__`: `.global`, `__constant__`: `.const`), in declaration
    /// order.
    pub fn variables(&self) -> &[ModuleVariable] {
        &self.program.variables
    }

    /// Sets module variable `name`'s bytes before a launch (a `__constant__` table, a `__device__`
    /// counter): `bytes` replace its initial bytes from the start; bytes past them keep theirs.
    pub fn set_variable(&mut self, name: &str, bytes: &[u8]) -> Result<(), String> {
        let Some(v) = self.program.variables.iter().find(|v| v.name == name) else {
            let names: Vec<&str> = (self.program.variables.iter())
                .map(|v| v.name.as_str())
                .collect();
            return Err(format!(
                "no module variable `{name}`; the module's variables: {}",
                if names.is_empty() {
                    "none".to_owned()
                } else {
                    names.join(", ")
                }
            ));
        };
        if bytes.len() as u64 > v.size {
            return Err(format!(
                "module variable `{name}` has {} bytes; {} given",
                v.size,
                bytes.len()
            ));
        }
        let (start, constant) = (v.offset as usize, v.constant);
        let memory = if constant {
            &mut self.program.constants
        } else {
            &mut self.program.module_globals
        };
        memory[start..start + bytes.len()].copy_from_slice(bytes);
        Ok(())
    }

    /// `.reqntid`: the block shape every launch must have.
    pub fn reqntid(&self) -> Option<[u32; 3]> {
        self.program.reqntid
    }

    /// `.maxntid`: the largest block a launch may have.
    pub fn maxntid(&self) -> Option<[u32; 3]> {
        self.program.maxntid
    }

    /// Decoded instructions.
    pub fn instruction_count(&self) -> usize {
        self.program.insts.len()
    }

    /// The block shape of a launch with `given` threads per block (or none): `.reqntid`'s; a given
    /// size must agree with it, and one is required when the entry has none.
    pub fn block_shape(&self, given: Option<[u32; 3]>) -> Result<[u32; 3], String> {
        let name = self.name();
        match (self.reqntid(), given) {
            (Some(req), None) => Ok(req),
            (Some(req), Some(t)) if t == req => Ok(req),
            // One number for a `.reqntid` of several dimensions: the same thread count.
            (Some(req), Some([t, 1, 1])) if threads_of(req) == u64::from(t) => Ok(req),
            (Some(req), Some(t)) => Err(format!(
                "entry `{name}` requires blocks of {} threads (.reqntid {}, {}, {}); {} given",
                threads_of(req),
                req[0],
                req[1],
                req[2],
                match t {
                    [x, 1, 1] => x.to_string(),
                    [x, y, z] => format!("{x},{y},{z}"),
                }
            )),
            (None, Some(t)) => Ok(t),
            (None, None) => Err(format!(
                "entry `{name}` has no .reqntid: give the threads per block"
            )),
        }
    }
}

/// The threads in a block of shape `block` (a product that may not fit in 32 bits).
fn threads_of(block: [u32; 3]) -> u64 {
    block.iter().map(|&d| u64::from(d)).product()
}

/// The shape of a PTX launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PtxLaunch {
    /// Blocks in the grid in x, y, z (`%nctaid`); block `b` of the launch (in findings and counters)
    /// is `%ctaid` = (`b % x`, `b / x % y`, `b / (x * y)`), x fastest as on CUDA.
    pub grid: [u32; 3],
    /// Threads per block in x, y, z.
    pub block: [u32; 3],
    /// Bytes of dynamic shared memory (for `.extern .shared` arrays).
    pub dynamic_shared: u32,
}

/// One kernel parameter's value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PtxArg {
    /// A pointer parameter: the next buffer of the launch (its address is what the kernel reads).
    Buffer,
    /// A scalar's bits (little-endian in the parameter's bytes; `f32` as its IEEE bits).
    Scalar(u64),
    /// A pointer into buffer `buffer` (an index among the launch's buffers, one that an earlier
    /// [`PtxArg::Buffer`] brought) at byte `offset`: in-place kernels, `data + 256`, two
    /// parameters on one buffer.
    BufferAt {
        /// The buffer.
        buffer: u32,
        /// The byte offset in it (at most its length).
        offset: u64,
    },
    /// A by-value parameter's bytes (a struct: `.param .align 8 .b8 p[16]`), exactly its size.
    Bytes(Vec<u8>),
}

/// The number of blocks of a grid of `grid` (x, y, z), checked against CUDA's limits: each
/// dimension at least 1, x below 2^31, y and z at most 65,535, and the product below 2^32.
fn grid_blocks(grid: [u32; 3]) -> Result<u32, String> {
    let [x, y, z] = grid;
    if grid.contains(&0) {
        return Err(format!(
            "a grid has at least one block in each dimension, not {x}x{y}x{z}"
        ));
    }
    if x > i32::MAX as u32 || y > 65_535 || z > 65_535 {
        return Err(format!(
            "grid {x}x{y}x{z} is past CUDA's limits (x < 2^31, y and z <= 65535)"
        ));
    }
    x.checked_mul(y)
        .and_then(|xy| xy.checked_mul(z))
        .ok_or_else(|| {
            format!(
                "grid {x}x{y}x{z} has 2^32 blocks or more; the simulator counts blocks in 32 bits"
            )
        })
}

/// Runs `kernel` with the shape `launch`, the parameters `args` in order (each [`PtxArg::Buffer`]
/// takes the next of `buffers`), on the CPU. Every `ReadWrite` buffer holds its contents after the
/// launch, also when a finding stopped some blocks.
///
/// # Errors
///
/// [`SimError::Arguments`] when the arguments or the shape do not match the kernel. Kernel faults
/// are findings in the report.
pub fn run(
    kernel: &PtxKernel,
    launch: &PtxLaunch,
    args: &[PtxArg],
    buffers: &mut [BufferArg<'_>],
    options: &SimOptions,
) -> Result<SimReport, SimError> {
    let program = &kernel.program;
    let bad = |m: String| SimError::Arguments(format!("entry `{}`: {m}", program.name));
    let [tx, ty, tz] = launch.block;
    let threads = u64::from(tx) * u64::from(ty) * u64::from(tz);
    if threads == 0 || threads > 1024 || tz > 64 {
        return Err(bad(format!(
            "a block has 1 to 1024 threads, at most 64 in z, not {tx}x{ty}x{tz}"
        )));
    }
    let threads = threads as u32;
    if let Some(req) = program.reqntid {
        if req != launch.block {
            return Err(bad(format!(
                "blocks must be {req:?} threads (.reqntid), not {:?}",
                launch.block
            )));
        }
    }
    if let Some(max) = program.maxntid {
        if u64::from(threads) > threads_of(max) {
            return Err(bad(format!(
                "blocks have at most {} threads (.maxntid), not {threads}",
                threads_of(max)
            )));
        }
    }
    let blocks = grid_blocks(launch.grid).map_err(bad)?;
    check_blocks(blocks).map_err(bad)?;
    if args.len() != program.params.len() {
        let names: Vec<&str> = program.params.iter().map(|p| p.name.as_str()).collect();
        return Err(bad(format!(
            "expects {} parameters ({}), got {}",
            names.len(),
            names.join(", "),
            args.len()
        )));
    }
    let mut params = vec![0u8; program.param_bytes as usize];
    let mut next_buffer = 0usize;
    let mut arrays = Vec::new();
    for (p, arg) in program.params.iter().zip(args) {
        let bits = match arg {
            PtxArg::Buffer if !p.pointer => {
                return Err(bad(format!(
                    "parameter `{}` is .{}, not a pointer: pass a scalar",
                    p.name, p.ty
                )))
            }
            PtxArg::Buffer => {
                arrays.push(p.name.clone());
                next_buffer += 1;
                buffer_base(next_buffer - 1)
            }
            PtxArg::Scalar(_) if p.size > 8 => {
                return Err(bad(format!(
                    "parameter `{}` is {} bytes: give its bytes (a struct passed by value)",
                    p.name, p.size
                )))
            }
            PtxArg::Bytes(bytes) => {
                if bytes.len() != p.size as usize {
                    return Err(bad(format!(
                        "parameter `{}` has {} bytes; {} given",
                        p.name,
                        p.size,
                        bytes.len()
                    )));
                }
                let at = p.offset as usize;
                params[at..at + bytes.len()].copy_from_slice(bytes);
                continue;
            }
            PtxArg::Scalar(bits) => *bits,
            PtxArg::BufferAt { .. } if !p.pointer => {
                return Err(bad(format!(
                    "parameter `{}` is .{}, not a pointer: pass a scalar",
                    p.name, p.ty
                )))
            }
            &PtxArg::BufferAt { buffer, offset } => {
                let Some(len) = buffers.get(buffer as usize).map(|b| b.bytes().len() as u64) else {
                    return Err(bad(format!(
                        "parameter `{}` points into buffer {buffer}, but the launch has {}",
                        p.name,
                        buffers.len()
                    )));
                };
                if buffer as usize >= next_buffer {
                    return Err(bad(format!(
                        "parameter `{}` points into buffer {buffer}, which no earlier parameter \
                         brings",
                        p.name
                    )));
                }
                if offset > len {
                    return Err(bad(format!(
                        "parameter `{}` points at byte {offset} of buffer {buffer}, past its \
                         {len} bytes",
                        p.name
                    )));
                }
                buffer_base(buffer as usize) + offset
            }
        };
        let at = p.offset as usize;
        let size = p.size as usize;
        params[at..at + size].copy_from_slice(&bits.to_le_bytes()[..size]);
    }
    if next_buffer != buffers.len() {
        return Err(bad(format!(
            "{next_buffer} pointer parameters are buffers, but {} buffers were given",
            buffers.len()
        )));
    }
    let start = Instant::now();
    let mut globals = global_buffers(buffers, options, blocks);
    let module = (!program.module_globals.is_empty()).then(|| {
        let track = options.sanitize && blocks > 1;
        globals.push(GlobalBuffer::with_tracking(&program.module_globals, track));
        arrays.push("module variables".to_owned());
        (
            (globals.len() - 1) as u32,
            program.module_globals.len() as u64,
        )
    });
    let lengths: Vec<u64> = globals.iter().take(buffers.len()).map(|g| g.len).collect();
    let first_shared = arrays.len() as u32;
    arrays.extend(program.shared.iter().map(|a| a.name.clone()));
    arrays.push("shared memory".into());
    let static_end = program
        .shared
        .iter()
        .map(|a| a.offset + a.size)
        .max()
        .unwrap_or(0);
    let has_dynamic = program.shared.iter().any(|a| a.size == 0);
    let shared_total = if has_dynamic || launch.dynamic_shared > 0 {
        program.dynamic_offset.saturating_add(launch.dynamic_shared)
    } else {
        static_end
    };
    // The libraries' reserved shared memory, after the kernel's, when the kernel reads where it is.
    let reads_reserved = (program.init.iter())
        .any(|(_, i)| matches!(i, registers::Init::Special(registers::Special::Reserved(_))));
    let own_shared = shared_total;
    let reserved_begin = shared_total.div_ceil(16).saturating_mul(16);
    let reserved = if reads_reserved {
        launch_state::RESERVED_SMEM
    } else {
        0
    };
    let shared_total = if reads_reserved {
        reserved_begin.saturating_add(reserved)
    } else {
        shared_total
    };
    if shared_total > MAX_SHARED {
        return Err(bad(format!(
            "{shared_total} bytes of shared memory per block; the simulator allows {MAX_SHARED}"
        )));
    }
    let workers = worker_threads(program.global_atomics, options, blocks);
    let shape = warp_init::Shape {
        block: launch.block,
        grid: launch.grid,
        threads,
        dynamic_shared: launch.dynamic_shared,
        own_shared,
        reserved_begin,
        reserved,
    };
    let state = LaunchState {
        registers: warp_init::RegisterTemplate::new(program, &shape),
        shape,
        program,
        arrays,
        first_shared,
        blocks,
        serial: workers == 1,
        shared_total,
        params,
        map: GlobalMap::new(&lengths, module),
        releases: Default::default(),
    };
    let outcomes = run_blocks(blocks, workers, |block| {
        PtxBlock::new(&state, &globals, options, block).run()
    });
    copy_back(&globals, buffers);
    let mut report = merge_outcomes(outcomes, options, &state);
    report.elapsed_ns = start.elapsed().as_nanos() as u64;
    Ok(report)
}
