//! One block on one core. [`BlockRun`] is the per-block machinery every executor shares (the IR's and
//! the PTX one in `ptx/`): shared memory, the sanitizer's state, counters and findings, generic over
//! the program through [`Sites`](crate::profile::Sites). The IR's scheduling lives here too: warps run in a fixed order
//! (warp 0 until it waits at a barrier or finishes, then warp 1, …), and the IR's barrier rule: a
//! barrier releases when every thread of the block waits at it; anything else is a partial barrier,
//! reported instead of hanging.

use super::decode::{Inst, Program};
use super::finding::{lane_list, Finding, FindingKind};
use super::memory::GlobalBuffer;
use super::options::SimOptions;
use super::profile::{ProfileSite, Sites};
use super::race::RaceState;
use super::stats::Counters;
use super::warp::{Warp, WarpState};

/// What one block produced.
pub(crate) struct BlockOutcome {
    pub counters: Counters,
    /// Counters per instruction (with `SimOptions::profile`; empty otherwise).
    pub per_pc: Vec<Counters>,
    pub findings: Vec<Finding>,
    /// Whether an error stopped the block.
    pub stopped: bool,
    /// What device `printf` printed, in order (PTX only), and how many more were not kept.
    pub printed: Vec<String>,
    pub printed_dropped: u64,
}

impl Sites for Program {
    fn site(&self, pc: usize) -> String {
        Program::site(self, pc)
    }

    fn array_name(&self, array: u32) -> &str {
        &self.arrays[array as usize]
    }

    fn profile_site(&self, pc: usize) -> ProfileSite {
        ProfileSite::Statement(self.paths.get(pc).cloned().unwrap_or_default())
    }
}

/// Who makes an access: the warp (within the block) and its warp-instruction count, which orders
/// its accesses for racecheck.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Who {
    pub warp: u32,
    pub step: u64,
}

/// A block being executed: the state every executor shares.
pub(crate) struct BlockRun<'a, P: Sites = Program> {
    pub program: &'a P,
    pub globals: &'a [GlobalBuffer],
    pub options: &'a SimOptions,
    pub block: u32,
    pub grid: u32,
    pub shared: Vec<u8>,
    /// initcheck: which shared bytes some thread wrote.
    pub written: Vec<bool>,
    /// How many bytes of `written` are still false (0: every shared byte was written, and
    /// initcheck has nothing left to find).
    pub unwritten: usize,
    pub race: Option<RaceState>,
    pub counters: Counters,
    /// Counters per instruction, when profiling.
    pub per_pc: Vec<Counters>,
    pub findings: Vec<Finding>,
    /// Statements (and kinds) already reported in this block, so a loop reports once.
    pub reported: Vec<(FindingKind, u32, u32)>,
    pub steps: u64,
    /// Whether a write changed a byte of memory since the scheduler last cleared it (the PTX
    /// scheduler's deadlock proof).
    pub changed: bool,
    /// Fences and atomics ordering this block after others (PTX; `sync_blocks.rs`).
    pub sync: crate::sync_blocks::BlockSync,
    /// The launch's releases, where blocks can order each other (PTX).
    pub releases: Option<&'a crate::sync_blocks::Releases>,
}

/// Why a block stops early.
pub(crate) struct Stop;

impl<'a, P: Sites> BlockRun<'a, P> {
    /// A block of `warps` warps with `shared` bytes of shared memory.
    pub fn with_shape(
        program: &'a P,
        globals: &'a [GlobalBuffer],
        options: &'a SimOptions,
        (block, grid): (u32, u32),
        shared: usize,
        warps: usize,
    ) -> Self {
        BlockRun {
            program,
            globals,
            options,
            block,
            grid,
            shared: vec![0; shared],
            written: if options.sanitize {
                vec![false; shared]
            } else {
                Vec::new()
            },
            unwritten: if options.sanitize { shared } else { 0 },
            race: options.sanitize.then(|| RaceState::take(shared, warps)),
            counters: Counters::default(),
            per_pc: Vec::new(),
            findings: Vec::new(),
            reported: Vec::new(),
            steps: 0,
            changed: false,
            sync: Default::default(),
            releases: None,
        }
    }

    /// Adds what was counted since `before` to the instruction at `pc` (profiling only).
    pub fn attribute(&mut self, pc: usize, before: &Counters) {
        if self.per_pc.len() <= pc {
            self.per_pc.resize(pc + 1, Counters::default());
        }
        self.per_pc[pc] += &self.counters.since(before);
    }

    /// What the block produced (`stopped`: an error stopped it).
    pub fn outcome(self, stopped: bool) -> BlockOutcome {
        if let Some(race) = self.race {
            race.give_back();
        }
        BlockOutcome {
            counters: self.counters,
            per_pc: self.per_pc,
            findings: self.findings,
            stopped,
            printed: Vec::new(),
            printed_dropped: 0,
        }
    }

    /// Records a finding (once per kind and statement pair per block); `Err(Stop)` when the kind stops
    /// the block.
    pub fn report(
        &mut self,
        kind: FindingKind,
        pc: u32,
        other_pc: u32,
        f: Finding,
    ) -> Result<(), Stop> {
        if !self.reported.contains(&(kind, pc, other_pc)) {
            self.reported.push((kind, pc, other_pc));
            if self.findings.len() < self.options.max_findings {
                self.findings.push(f);
            }
        }
        if kind.stops_block() {
            Err(Stop)
        } else {
            Ok(())
        }
    }

    /// A finding about the statement at `pc` in `warp`.
    pub fn finding(
        &self,
        kind: FindingKind,
        pc: u32,
        warp: u32,
        lanes: u32,
        address: Option<(String, u64)>,
        detail: String,
    ) -> Finding {
        Finding {
            kind,
            statement: self.program.site(pc as usize),
            site: self.program.profile_site(pc as usize),
            block: self.block,
            warp,
            lanes,
            address,
            detail,
            other_blocks: 0,
        }
    }
}

impl<'a> BlockRun<'a> {
    pub fn new(
        program: &'a Program,
        globals: &'a [GlobalBuffer],
        options: &'a SimOptions,
        block: u32,
        grid: u32,
    ) -> Self {
        let shared = program.shared_bytes as usize;
        let warps = (program.block_size / 32) as usize;
        Self::with_shape(program, globals, options, (block, grid), shared, warps)
    }

    /// Runs the block to the end (or to the first error that stops it).
    pub fn run(mut self) -> BlockOutcome {
        let warps = self.program.block_size / 32;
        let mut warps: Vec<Warp> = (0..warps)
            .map(|w| Warp::new(w, self.program.regs))
            .collect();
        let stopped = self.schedule(&mut warps).is_err();
        self.outcome(stopped)
    }

    fn schedule(&mut self, warps: &mut [Warp]) -> Result<(), Stop> {
        loop {
            for warp in warps.iter_mut() {
                while warp.state == WarpState::Running {
                    self.steps += 1;
                    if self.steps > self.options.step_limit {
                        let f = self.finding(
                            FindingKind::StepLimit,
                            warp.pc,
                            warp.index,
                            warp.active,
                            None,
                            format!(
                                "the block ran more than {} warp-instructions without finishing (an \
                                 endless loop?); it was stopped here",
                                self.options.step_limit
                            ),
                        );
                        return self.report(FindingKind::StepLimit, warp.pc, 0, f);
                    }
                    if self.options.profile {
                        let (pc, before) = (warp.pc as usize, self.counters);
                        let stepped = self.step(warp);
                        self.attribute(pc, &before);
                        stepped?;
                    } else {
                        self.step(warp)?;
                    }
                }
            }
            if warps.iter().all(|w| w.state == WarpState::Done) {
                return Ok(());
            }
            self.barrier(warps)?;
        }
    }

    /// Every warp is done or waiting: release the barrier, or report who did not arrive.
    fn barrier(&mut self, warps: &mut [Warp]) -> Result<(), Stop> {
        let first = warps
            .iter()
            .find(|w| w.state == WarpState::AtBarrier)
            .expect("some warp waits");
        let pc = first.pc;
        let complete = warps
            .iter()
            .all(|w| w.state == WarpState::AtBarrier && w.pc == pc && w.active == u32::MAX);
        if complete {
            for w in warps.iter_mut() {
                w.state = WarpState::Running;
                w.pc += 1;
            }
            self.counters.barriers += 1;
            if let Some(race) = &mut self.race {
                race.barrier();
            }
            return Ok(());
        }
        let arrived: u32 = warps
            .iter()
            .filter(|w| w.state == WarpState::AtBarrier && w.pc == pc)
            .map(|w| w.active.count_ones())
            .sum();
        let mut missing = Vec::new();
        for w in warps.iter() {
            let here = if w.state == WarpState::AtBarrier && w.pc == pc {
                w.active
            } else {
                0
            };
            let absent = !here;
            if absent == 0 {
                continue;
            }
            let exited = absent & w.exited;
            let mut parts = Vec::new();
            if exited != 0 {
                parts.push(format!("lanes {} returned", lane_list(exited)));
            }
            let elsewhere = absent & !w.exited;
            if elsewhere != 0 {
                let where_ = if w.state == WarpState::AtBarrier && w.pc != pc {
                    format!("wait at {}", self.program.site(w.pc as usize))
                } else {
                    "are on another path".to_owned()
                };
                parts.push(format!("lanes {} {where_}", lane_list(elsewhere)));
            }
            missing.push(format!("warp {}: {}", w.index, parts.join(", ")));
        }
        let f = self.finding(
            FindingKind::PartialBarrier,
            pc,
            first.index,
            first.active,
            None,
            format!(
                "{arrived} of {} threads arrived; did not arrive: {}; the block was stopped instead of \
                 hanging",
                self.program.block_size,
                missing.join("; ")
            ),
        );
        self.report(FindingKind::PartialBarrier, pc, 0, f)
    }

    /// Executes one instruction of `warp`.
    fn step(&mut self, warp: &mut Warp) -> Result<(), Stop> {
        let pc = warp.pc as usize;
        let inst = &self.program.insts[pc];
        let active = warp.active;
        warp.step += 1;
        let c = &mut self.counters;
        match inst {
            Inst::Let { dst, op } => {
                c.arithmetic += 1;
                c.active_lanes += u64::from(active.count_ones());
                self.exec_let(warp, *dst, *op);
                warp.pc += 1;
            }
            Inst::If {
                cond,
                else_pc,
                end_pc,
            } => {
                c.control += 1;
                c.active_lanes += u64::from(active.count_ones());
                let col = warp.reg(*cond);
                let mut bits = 0u32;
                for (lane, v) in col.iter().enumerate() {
                    bits |= ((*v & 1) as u32) << lane;
                }
                warp.branch(bits, *else_pc, *end_pc);
            }
            Inst::Else => warp.end_then(),
            Inst::EndIf => warp.end_if(),
            Inst::Loop { end_pc } => warp.enter_loop(*end_pc),
            Inst::LoopEnd => {
                c.control += 1;
                c.active_lanes += u64::from(active.count_ones());
                warp.end_iteration();
            }
            Inst::Break | Inst::Continue => {
                c.control += 1;
                c.active_lanes += u64::from(active.count_ones());
                warp.leave_iteration(matches!(inst, Inst::Break));
            }
            Inst::Return => {
                c.control += 1;
                c.active_lanes += u64::from(active.count_ones());
                warp.exit_lanes();
            }
            Inst::Exit => warp.exit_lanes(),
            Inst::Barrier => {
                c.barrier += 1;
                c.active_lanes += u64::from(active.count_ones());
                warp.state = WarpState::AtBarrier;
            }
            Inst::Load { .. }
            | Inst::Store { .. }
            | Inst::LoadWide { .. }
            | Inst::StoreWide { .. }
            | Inst::Atomic { .. } => {
                self.exec_memory(warp, pc)?;
                warp.pc += 1;
            }
            Inst::Shuffle { .. }
            | Inst::Ballot { .. }
            | Inst::Vote { .. }
            | Inst::MatchAny { .. }
            | Inst::WarpSync { .. } => {
                c.collective += 1;
                c.active_lanes += u64::from(active.count_ones());
                self.exec_collective(warp, pc)?;
                warp.pc += 1;
            }
        }
        Ok(())
    }
}
