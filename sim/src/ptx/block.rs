//! One block of a PTX launch: its warps (taking turns in a fixed order: `schedule.rs`), their
//! registers and SIMT stacks, each thread's local memory, and the block barriers with the PTX ISA's
//! semantics (`barrier`/`bar`): barrier `a` completes when every thread that has
//! not exited has arrived (or, with a thread count `b`, when `b` threads have: warps arrive whole);
//! exited threads never hold a barrier up; `bar.arrive` counts without waiting; `bar.red` reduces a
//! predicate over the threads that arrive. A barrier that can never complete is reported (the
//! threads missing and where they are) instead of hanging. The shared machinery — shared memory,
//! sanitizer, counters, findings — is the IR simulator's [`BlockRun`].

use super::super::block::{BlockRun, Stop};
use super::super::finding::{lane_list, FindingKind};
use super::super::memory::GlobalBuffer;
use super::super::SimOptions;
use super::inst::{BarKind, BarRed, Op, Timer, R};
use super::registers::{Init, Special};
use super::simt::SimtStack;
use super::LaunchState;

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
    /// Each lane's calls in progress, innermost last (`exec_call.rs`).
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
    pub(super) asyncs: super::exec_async::AsyncState,
}

impl<'a> PtxBlock<'a> {
    pub fn new(
        launch: &'a LaunchState<'a>,
        globals: &'a [GlobalBuffer],
        options: &'a SimOptions,
        block: u32,
    ) -> Self {
        let warps = launch.threads.div_ceil(32) as usize;
        let shared = launch.shared_total as usize;
        let run = BlockRun::with_shape(
            launch,
            globals,
            options,
            (block, launch.blocks),
            shared,
            warps,
        );
        let frame = launch.program.local_bytes as usize;
        let local = (0..warps * 32)
            .map(|t| {
                vec![
                    0;
                    if t < launch.threads as usize {
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
        }
    }

    /// A warp at its first instruction, its registers filled.
    fn warp(&self, index: u32) -> PtxWarp {
        let program = self.launch.program;
        let first = index * 32;
        let present = match self.launch.threads - first {
            n if n >= 32 => u32::MAX,
            n => (1u32 << n) - 1,
        };
        let mut regs = vec![[0u64; 32]; program.reg_bits.len()];
        let [bx, by, bz] = self.launch.block;
        let [gx, gy, _] = self.launch.grid;
        let b = self.run.block;
        let ctaid = [b % gx, b / gx % gy, b / (gx * gy)];
        for &(r, init) in &program.init {
            let col = &mut regs[r as usize];
            for (lane, v) in col.iter_mut().enumerate() {
                let t = u64::from(first) + lane as u64;
                let lane = lane as u32;
                *v = match init {
                    Init::Const(bits) => bits,
                    Init::Special(s) => match s {
                        Special::Tid(0) => t % u64::from(bx),
                        Special::Tid(1) => t / u64::from(bx) % u64::from(by),
                        Special::Tid(_) => t / (u64::from(bx) * u64::from(by)),
                        Special::Ntid(d) => u64::from([bx, by, bz][usize::from(d.min(2))]),
                        Special::Ctaid(d) => u64::from(ctaid[usize::from(d.min(2))]),
                        Special::Nctaid(d) => u64::from(self.launch.grid[usize::from(d.min(2))]),
                        Special::LaneId => u64::from(lane),
                        Special::WarpId => u64::from(index),
                        Special::NWarpId => u64::from(self.launch.threads.div_ceil(32)),
                        Special::LanemaskEq => 1 << lane,
                        Special::LanemaskLt => (1u64 << lane) - 1,
                        Special::LanemaskLe => (2u64 << lane) - 1,
                        Special::LanemaskGt => u64::from(u32::MAX << lane << 1),
                        Special::LanemaskGe => u64::from(u32::MAX << lane),
                        Special::DynamicSmem => u64::from(self.launch.dynamic_shared),
                        Special::TotalSmem => u64::from(self.launch.shared_total),
                        Special::SmId | Special::GridId => 0,
                        Special::NSmId => 1,
                    },
                };
            }
        }
        PtxWarp {
            index,
            stack: SimtStack::new(present),
            exited: !present,
            regs,
            state: WarpState::Running,
            step: 0,
            yield_turn: false,
            frames: vec![Vec::new(); 32],
            poison: Default::default(),
        }
    }

    /// Runs the block to the end (or to the first error that stops it).
    pub fn run(mut self) -> super::super::block::BlockOutcome {
        let mut warps: Vec<PtxWarp> = (0..self.launch.threads.div_ceil(32))
            .map(|w| self.warp(w))
            .collect();
        let stopped = self.schedule(&mut warps).is_err();
        self.run.outcome(stopped)
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

    /// `bar`/`barrier`: the warp arrives once all its non-exited lanes are here.
    fn exec_barrier(
        &mut self,
        warp: &mut PtxWarp,
        pc: usize,
        active: u32,
        lanes: u32,
    ) -> Result<(), Stop> {
        let Op::Bar {
            kind,
            aligned,
            id,
            count,
            d,
            pred,
        } = self.launch.program.insts[pc].op
        else {
            return Ok(());
        };
        if lanes != active && lanes != 0 {
            let detail = format!(
                "the guard lets lanes {} arrive and holds lanes {} back: a warp arrives at a \
                 barrier whole",
                lane_list(lanes),
                lane_list(active & !lanes)
            );
            return self.barrier_error(warp, pc, active, detail);
        }
        if lanes == 0 {
            warp.stack.advance();
            return Ok(());
        }
        let need = !warp.exited;
        let active = match warp.stack.gather(need) {
            super::simt::Gather::Ready => {
                if warp.stack.top().map_or(0, |t| t.mask) != active {
                    return Ok(()); // lanes joined: evaluate again with all of them
                }
                active
            }
            super::simt::Gather::Yielded => return Ok(()),
            super::simt::Gather::Together(others) => {
                // Lanes of other activations of this function wait at this barrier: they arrive
                // with the running entry, which goes on when the barrier completes.
                if guarded(warp, self.launch.program.insts[pc].guard, others) != others {
                    let detail = "the guard holds back lanes that wait at it in another call of \
                                  the function"
                        .to_owned();
                    return self.barrier_error(warp, pc, others, detail);
                }
                warp.stack.release_waiting(others);
                active | others
            }
            super::simt::Gather::Stuck { elsewhere, at_sync } => {
                let detail = self.absent(warp, elsewhere, at_sync);
                return self.barrier_error(
                    warp,
                    pc,
                    active,
                    format!(
                    "the warp reaches the barrier divergent: {detail}; a barrier waits for every \
                     non-exited thread of the warp, and these cannot arrive"
                ),
                );
            }
        };
        warp.step += 1;
        self.run.counters.barrier += 1;
        self.run.counters.active_lanes += u64::from(active.count_ones());
        let first = active.trailing_zeros() as usize;
        let id_value = warp.regs[id as usize][first];
        let count_value = count.map(|c| warp.regs[c as usize][first] as u32);
        if id_value >= 16 {
            let detail = format!("barrier {id_value} does not exist (barriers are 0 to 15)");
            return self.barrier_error(warp, pc, active, detail);
        }
        let id_value = id_value as u32;
        if kind == BarKind::Arrive {
            self.arrivals[id_value as usize] += 32;
            warp.stack.advance();
            return Ok(());
        }
        let red = match (kind, d, pred) {
            (BarKind::Red(op), Some(d), Some((p, negated))) => {
                let col = &warp.regs[p as usize];
                let bits = super::lanes(active)
                    .filter(|&l| (col[l] & 1 == 1) != negated)
                    .fold(0u32, |m, l| m | 1 << l);
                Some((op, bits, d))
            }
            _ => None,
        };
        warp.state = WarpState::AtBarrier {
            id: id_value,
            count: count_value,
            pc: pc as u32,
            aligned,
            red,
        };
        Ok(())
    }

    /// Where lanes the warp waits for are, in words.
    pub(crate) fn absent(&self, warp: &PtxWarp, elsewhere: u32, at_sync: u32) -> String {
        let mut why = Vec::new();
        if elsewhere != 0 {
            why.push(format!(
                "lanes {} wait where their paths reconverge or are on another path",
                lane_list(elsewhere)
            ));
        }
        if at_sync != 0 {
            let first = at_sync.trailing_zeros();
            let at = warp.stack.pc_of(first).map_or_else(String::new, |pc| {
                format!(" ({})", self.launch.describe(pc as usize))
            });
            why.push(format!(
                "lanes {} wait at another sync instruction{at}",
                lane_list(at_sync)
            ));
        }
        why.join(", ")
    }

    fn barrier_error(
        &mut self,
        warp: &PtxWarp,
        pc: usize,
        lanes: u32,
        detail: String,
    ) -> Result<(), Stop> {
        let f = self.run.finding(
            FindingKind::PartialBarrier,
            pc as u32,
            warp.index,
            lanes,
            None,
            detail,
        );
        self.run
            .report(FindingKind::PartialBarrier, pc as u32, 0, f)
    }

    /// Every running warp waits at a barrier or is done: complete the barriers that can complete,
    /// or report the block as stuck.
    pub(super) fn release_barriers(&mut self, warps: &mut [PtxWarp]) -> Result<(), Stop> {
        let live = warps.iter().filter(|w| w.state != WarpState::Done).count() as u32;
        let mut released = false;
        for id in 0..16u32 {
            let waiting: Vec<usize> = (0..warps.len())
                .filter(
                    |&i| matches!(warps[i].state, WarpState::AtBarrier { id: b, .. } if b == id),
                )
                .collect();
            let Some(&first) = waiting.first() else {
                continue;
            };
            let WarpState::AtBarrier {
                count, pc, aligned, ..
            } = warps[first].state
            else {
                continue;
            };
            let arrived = 32 * waiting.len() as u32 + self.arrivals[id as usize];
            let complete = match count {
                Some(b) => arrived >= b,
                None => waiting.len() as u32 == live,
            };
            if !complete {
                continue;
            }
            let other_pc = waiting.iter().find_map(|&i| match warps[i].state {
                WarpState::AtBarrier { pc: p, .. } if p != pc => Some(p),
                _ => None,
            });
            if let (true, Some(other)) = (aligned, other_pc) {
                let detail = format!(
                    "warps wait for barrier {id} at two different instructions ({} and {}): an \
                     aligned barrier (`bar.sync`, `barrier.sync.aligned`) must be the same \
                     instruction for every thread",
                    self.launch.describe(pc as usize),
                    self.launch.describe(other as usize)
                );
                let w = &warps[first];
                return self.barrier_error(w, pc as usize, !w.exited, detail);
            }
            let mut total = (0u32, true, false); // popc, and, or
            for &i in &waiting {
                if let WarpState::AtBarrier {
                    red: Some((_, bits, _)),
                    ..
                } = warps[i].state
                {
                    let present = !warps[i].exited;
                    total.0 += bits.count_ones();
                    total.1 &= bits & present == present;
                    total.2 |= bits != 0;
                }
            }
            for &i in &waiting {
                let w = &mut warps[i];
                if let WarpState::AtBarrier {
                    red: Some((op, _, d)),
                    ..
                } = w.state
                {
                    let value = match op {
                        BarRed::Popc => u64::from(total.0),
                        BarRed::And => u64::from(total.1),
                        BarRed::Or => u64::from(total.2),
                    };
                    for l in super::lanes(!w.exited) {
                        w.regs[d as usize][l] = value;
                    }
                }
                w.state = WarpState::Running;
                w.stack.advance();
            }
            self.arrivals[id as usize] = 0;
            self.run.counters.barriers += 1;
            if let Some(race) = &mut self.run.race {
                race.barrier();
            }
            released = true;
        }
        if released {
            return Ok(());
        }
        self.stuck(warps)
    }

    /// No barrier can complete: report who waits where and who is missing.
    fn stuck(&mut self, warps: &[PtxWarp]) -> Result<(), Stop> {
        let Some(first) = warps
            .iter()
            .find(|w| matches!(w.state, WarpState::AtBarrier { .. }))
        else {
            return Err(Stop);
        };
        let WarpState::AtBarrier { id, count, pc, .. } = first.state else {
            return Err(Stop);
        };
        let arrived: u32 = warps
            .iter()
            .filter(|w| matches!(w.state, WarpState::AtBarrier { id: b, .. } if b == id))
            .map(|w| (!w.exited).count_ones())
            .sum();
        let mut missing = Vec::new();
        for w in warps {
            match w.state {
                WarpState::AtBarrier { id: b, .. } if b == id => {}
                WarpState::AtBarrier { id: b, pc: p, .. } => missing.push(format!(
                    "warp {} waits at barrier {b} ({})",
                    w.index,
                    self.launch.describe(p as usize)
                )),
                _ => {}
            }
        }
        let needed = match count {
            Some(b) => format!("{b} threads"),
            None => "every thread that has not exited".into(),
        };
        let detail = format!(
            "{arrived} of {} threads arrived at barrier {id}, which needs {needed}; {}; the block \
             was stopped instead of hanging",
            self.launch.threads,
            if missing.is_empty() {
                "the others exited or arrive at no barrier".to_owned()
            } else {
                missing.join("; ")
            }
        );
        let lanes = !first.exited;
        let f = self.run.finding(
            FindingKind::PartialBarrier,
            pc,
            first.index,
            lanes,
            None,
            detail,
        );
        self.run.report(FindingKind::PartialBarrier, pc, 0, f)?;
        Err(Stop)
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
