//! One block of a PTX launch: its warps (taking turns in a fixed order: `schedule.rs`), their
//! registers and SIMT stacks, each thread's local memory, and the dispatch of each instruction (the
//! block barriers: `barrier.rs`). The shared machinery — shared memory,
//! sanitizer, counters, findings — is the IR simulator's [`BlockRun`].

use super::inst::{BarRed, Op, Timer, R};
use super::launch_state::LaunchState;
use super::simt::SimtStack;
use crate::block::{BlockRun, Stop};
use crate::finding::FindingKind;
use crate::memory::GlobalBuffer;
use crate::options::SimOptions;

/// Where a warp is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WarpState {
    Running,
    /// Arrived at barrier `id` at `pc` and waits for it to complete.
    AtBarrier {
        id: u32,
        count: Option<u32>,
        pc: u32,
        aligned: bool,
        /// `bar.red`: the lanes whose predicate holds, and the register to write.
        red: Option<(BarRed, u32, u32)>,
    },
    Done,
}

/// One warp of a block.
pub(crate) struct PtxWarp {
    pub index: u32,
    pub stack: SimtStack,
    /// Lanes that exited (lanes past the block's last thread count as exited from the start).
    pub exited: u32,
    pub regs: Vec<[u64; 32]>,
    pub state: WarpState,
    /// Warp-instructions issued (orders its accesses for racecheck).
    pub step: u64,
    /// The warp ends its turn after this instruction (`nanosleep`): other warps run first.
    pub yield_turn: bool,
    /// Each lane's calls in progress, innermost last (`exec_call.rs`; empty until the first call).
    pub frames: Vec<Vec<Frame>>,
    /// Registers holding values a lane could not legally read (`poison.rs`).
    pub poison: super::poison::Poison,
}

/// A call in progress on one lane.
#[derive(Clone, Debug)]
pub(crate) struct Frame {
    /// The `call` instruction.
    pub call: u32,
    /// The length of the thread's local memory before the call, and the callee's frame base.
    pub below: u32,
    pub base: u32,
    /// The caller's frame base.
    pub caller_base: u32,
    /// The thread's bytes of frames and saved registers with this call's.
    pub used: u64,
    /// The callee's registers as they were before the call (restored at `ret`).
    pub saved: Box<[u64]>,
}

/// A block being executed.
pub(crate) struct PtxBlock<'a> {
    pub run: BlockRun<'a, LaunchState<'a>>,
    pub launch: &'a LaunchState<'a>,
    /// Each thread's local memory: the kernel's frame, then the frames of its calls in progress.
    pub local: Vec<Vec<u8>>,
    /// Bytes of local memory and saved registers of every call in progress in the block.
    pub(super) stack_bytes: u64,
    /// Threads that arrived at each barrier with `bar.arrive` since it last completed.
    pub(super) arrivals: [u32; 16],
    /// Pending `cp.async` copies and mbarrier bookkeeping (`exec_async.rs`).
    pub(super) asyncs: super::async_state::AsyncState,
    /// What device `printf` printed (`exec_printf.rs`), and how many more were not kept.
    pub(super) printed: Vec<String>,
    pub(super) printed_dropped: u64,
}

impl<'a> PtxBlock<'a> {
    pub fn new(
        launch: &'a LaunchState<'a>,
        globals: &'a [GlobalBuffer],
        options: &'a SimOptions,
        block: u32,
    ) -> Self {
        let warps = launch.shape.threads.div_ceil(32) as usize;
        let shared = launch.shared_total as usize;
        let mut run = BlockRun::with_shape(
            launch,
            globals,
            options,
            (block, launch.blocks),
            shared,
            warps,
        );
        run.releases = Some(&launch.releases);
        // The libraries' reserved shared memory starts zeroed, as the runtime's (cooperative
        // groups read their barrier words there before any thread of the kernel writes them).
        let reserved = launch.shape.reserved_begin as usize
            ..(launch.shape.reserved_begin + launch.shape.reserved) as usize;
        run.mark_written(reserved);
        let frame = launch.program.local_bytes as usize;
        let local = (0..warps * 32)
            .map(|t| {
                vec![
                    0;
                    if t < launch.shape.threads as usize {
                        frame
                    } else {
                        0
                    }
                ]
            })
            .collect();
        PtxBlock {
            run,
            launch,
            local,
            stack_bytes: 0,
            arrivals: [0; 16],
            asyncs: Default::default(),
            printed: Vec::new(),
            printed_dropped: 0,
        }
    }

    /// A warp at its first instruction, its registers filled.
    fn warp(&self, index: u32) -> PtxWarp {
        let first = index * 32;
        let present = match self.launch.shape.threads - first {
            n if n >= 32 => u32::MAX,
            n => (1u32 << n) - 1,
        };
        let regs = (self.launch.registers).warp(&self.launch.shape, self.run.block, index);
        PtxWarp {
            index,
            stack: SimtStack::new(present),
            exited: !present,
            regs,
            state: WarpState::Running,
            step: 0,
            yield_turn: false,
            frames: Vec::new(),
            poison: Default::default(),
        }
    }

    /// Runs the block to the end (or to the first error that stops it).
    pub fn run(mut self) -> crate::block::BlockOutcome {
        let mut warps: Vec<PtxWarp> = (0..self.launch.shape.threads.div_ceil(32))
            .map(|w| self.warp(w))
            .collect();
        let stopped = self.schedule(&mut warps).is_err();
        for w in warps {
            self.launch.registers.give_back(w.regs);
        }
        let (printed, printed_dropped) = (std::mem::take(&mut self.printed), self.printed_dropped);
        crate::block::BlockOutcome {
            printed,
            printed_dropped,
            ..self.run.outcome(stopped)
        }
    }

    /// Executes the next instruction of `warp` (or lets another of its paths run first).
    pub(super) fn step(&mut self, warp: &mut PtxWarp) -> Result<(), Stop> {
        let program = self.launch.program;
        let Some(top) = warp.stack.top() else {
            warp.state = WarpState::Done;
            return Ok(());
        };
        let pc = top.pc as usize;
        let active = top.mask;
        let Some(inst) = program.insts.get(pc) else {
            // Past the last instruction: the threads end.
            self.exit_async(warp, pc, active)?;
            warp.exited |= active;
            warp.stack.exit(active);
            return Ok(());
        };
        let lanes = guarded(warp, inst.guard, active);
        if !warp.poison.is_empty() {
            self.poison_step(warp, pc, &inst.op, inst.guard.map(|g| g.0), active, lanes)?;
        }
        let count = u64::from(active.count_ones());
        match &inst.op {
            Op::Bra { target, reconverge } => {
                warp.step += 1;
                self.run.counters.control += 1;
                self.run.counters.active_lanes += count;
                warp.stack.branch(lanes, *target, *reconverge);
            }
            Op::Trap if lanes != 0 => {
                let detail = "the thread executes `trap`: the kernel aborts (on a GPU the launch \
                              fails with an illegal-instruction error)"
                    .to_owned();
                let f = self.run.finding(
                    FindingKind::Trap,
                    pc as u32,
                    warp.index,
                    lanes,
                    None,
                    detail,
                );
                self.run.report(FindingKind::Trap, pc as u32, 0, f)?;
            }
            Op::Trap => warp.stack.advance(),
            Op::AssertFail { .. } if lanes != 0 => {
                let detail = self.assertion(warp, pc, lanes);
                let f = self.run.finding(
                    FindingKind::Assert,
                    pc as u32,
                    warp.index,
                    lanes,
                    None,
                    detail,
                );
                self.run.report(FindingKind::Assert, pc as u32, 0, f)?;
            }
            Op::AssertFail { .. } => warp.stack.advance(),
            Op::Printf { .. } => {
                warp.step += 1;
                self.run.counters.control += 1;
                self.run.counters.active_lanes += count;
                self.printf(warp, pc, lanes)?;
                warp.stack.advance();
            }
            Op::Exit => {
                warp.step += 1;
                self.run.counters.control += 1;
                self.run.counters.active_lanes += count;
                self.exit_async(warp, pc, lanes)?;
                warp.exited |= lanes;
                warp.stack.exit(lanes);
                if lanes != active {
                    warp.stack.advance();
                }
            }
            Op::Call { .. } | Op::Ret | Op::Brx { .. } => {
                warp.step += 1;
                self.run.counters.control += 1;
                self.run.counters.active_lanes += count;
                self.exec_call(warp, pc, active, lanes)?;
            }
            Op::Bar { .. } => self.exec_barrier(warp, pc, active, lanes)?,
            Op::Mma(_) => self.exec_mma(warp, pc, active, lanes)?,
            op if op.sync_mask().is_some() => self.exec_collective(warp, pc, active, lanes)?,
            Op::DeviceFence => {
                warp.step += 1;
                self.run.counters.arithmetic += 1;
                self.run.counters.active_lanes += count;
                self.run.sync.fenced |= lanes != 0;
                warp.stack.advance();
            }
            Op::Yield => {
                warp.step += 1;
                self.run.counters.control += 1;
                self.run.counters.active_lanes += count;
                warp.yield_turn = true;
                warp.stack.advance();
            }
            Op::Clock { d, timer } => {
                warp.step += 1;
                self.run.counters.arithmetic += 1;
                self.run.counters.active_lanes += count;
                let value = match timer {
                    Timer::Clock => warp.step & 0xffff_ffff,
                    Timer::Clock64 => warp.step,
                    Timer::Global => self.run.steps,
                    Timer::GlobalLo => self.run.steps & 0xffff_ffff,
                    Timer::GlobalHi => self.run.steps >> 32,
                };
                for l in super::lanes(lanes) {
                    warp.regs[*d as usize][l] = value;
                }
                warp.stack.advance();
            }
            Op::Activemask { d } => {
                warp.step += 1;
                self.run.counters.collective += 1;
                self.run.counters.active_lanes += count;
                for l in super::lanes(lanes) {
                    warp.regs[*d as usize][l] = u64::from(active);
                }
                warp.stack.advance();
            }
            Op::Async(_) => {
                warp.step += 1;
                self.run.counters.active_lanes += count;
                self.exec_async(warp, pc, lanes)?;
                warp.stack.advance();
            }
            Op::Ld { .. } | Op::St { .. } | Op::Atom { .. } => {
                warp.step += 1;
                self.run.counters.active_lanes += count;
                self.exec_memory(warp, pc, lanes)?;
                warp.stack.advance();
            }
            op => {
                warp.step += 1;
                self.run.counters.arithmetic += 1;
                self.run.counters.active_lanes += count;
                self.exec_alu(warp, op, lanes);
                warp.stack.advance();
            }
        }
        Ok(())
    }
}

/// The lanes of `lanes` that `guard` (a predicate register, maybe negated) lets through.
pub(super) fn guarded(warp: &PtxWarp, guard: Option<(R, bool)>, lanes: u32) -> u32 {
    match guard {
        None => lanes,
        Some((p, negated)) => {
            let col = &warp.regs[p as usize];
            let mut m = 0u32;
            for (l, v) in col.iter().enumerate() {
                m |= (((*v & 1) == 1) != negated) as u32 * (1 << l);
            }
            lanes & m
        }
    }
}
