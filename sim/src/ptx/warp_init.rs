//! The register file a warp starts with. Constants and the special registers that are the same in
//! every warp of a launch (`%ntid`, `%laneid`, the lane masks, …) are filled once per launch into a
//! template; each warp starts from a copy of it, and only the registers that differ between warps or
//! blocks (`%tid`, `%warpid`, `%ctaid`) are filled per warp (without a division per lane). A finished
//! warp's register file is kept for a later warp of the launch, which resets only the special
//! registers and those a thread may read before writing them (`uninit.rs`): no allocation, and
//! neither the constants (no instruction writes those) nor the registers every path writes first are
//! copied again.

use std::ops::Range;
use std::sync::Mutex;

use super::inst::R;
use super::registers::{Init, Special};
use super::Program;

/// A launch's shape: what its special registers depend on.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Shape {
    pub block: [u32; 3],
    pub grid: [u32; 3],
    /// Threads per block: the product of `block`.
    pub threads: u32,
    pub dynamic_shared: u32,
    /// The kernel's own shared memory (static and dynamic): `%total_smem_size`.
    pub own_shared: u32,
    /// Where the shared memory reserved for NVIDIA's libraries starts, and its bytes (0 when the
    /// kernel reads no `%reserved_smem_offset_*`): `RESERVED_SMEM` after the kernel's own.
    pub reserved_begin: u32,
    pub reserved: u32,
}

/// A launch's starting register file.
pub(crate) struct RegisterTemplate {
    regs: Vec<[u64; 32]>,
    /// Registers whose lanes depend on the warp or the block: filled per warp.
    varying: Vec<(R, Special)>,
    /// What a reused file resets, as runs of register indices: the special registers and those a
    /// thread may read before writing them.
    reset: Vec<Range<usize>>,
    /// What it keeps from the last warp although it is not a constant (filled with a canary in
    /// builds with debug assertions, so that a read `uninit.rs` missed shows in the outputs).
    kept: Vec<Range<usize>>,
    /// Register files of finished warps, for later warps.
    spare: Mutex<Vec<Vec<[u64; 32]>>>,
}

impl RegisterTemplate {
    pub fn new(program: &Program, shape: &Shape) -> Self {
        let mut regs = vec![[0u64; 32]; program.reg_bits.len()];
        let mut varying = Vec::new();
        for &(r, init) in &program.init {
            let col = &mut regs[r as usize];
            match init {
                Init::Const(bits) => *col = [bits; 32],
                Init::Special(s @ (Special::Tid(_) | Special::WarpId | Special::Ctaid(_))) => {
                    varying.push((r, s))
                }
                Init::Special(s) => {
                    for (lane, v) in col.iter_mut().enumerate() {
                        *v = invariant(s, shape, lane as u32);
                    }
                }
            }
        }
        let (mut constant, mut special) = (vec![false; regs.len()], vec![false; regs.len()]);
        for &(r, init) in &program.init {
            constant[r as usize] = matches!(init, Init::Const(_));
            special[r as usize] = matches!(init, Init::Special(_));
        }
        let read_first = |r: usize| {
            (program.read_before_written.as_ref()).is_none_or(|maybe| maybe[r]) || special[r]
        };
        let (mut reset, mut kept) = (Vec::new(), Vec::new());
        for r in (0..regs.len()).filter(|&r| !constant[r]) {
            push_run(if read_first(r) { &mut reset } else { &mut kept }, r);
        }
        RegisterTemplate {
            regs,
            varying,
            reset,
            kept,
            spare: Mutex::default(),
        }
    }

    /// Keeps a finished warp's register file for a later warp.
    pub fn give_back(&self, regs: Vec<[u64; 32]>) {
        if regs.len() == self.regs.len() {
            self.spare
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(regs);
        }
    }

    /// A register file as the template: a spare one with every register but the constants reset,
    /// or a copy.
    fn fresh(&self) -> Vec<[u64; 32]> {
        let spare = self.spare.lock().unwrap_or_else(|e| e.into_inner()).pop();
        match spare {
            Some(mut regs) => {
                for run in &self.reset {
                    regs[run.clone()].copy_from_slice(&self.regs[run.clone()]);
                }
                if cfg!(debug_assertions) {
                    for r in self.kept.iter().flat_map(|run| run.clone()) {
                        regs[r] = [CANARY ^ r as u64; 32];
                    }
                }
                regs
            }
            None => self.regs.clone(),
        }
    }

    /// The registers of warp `index` of block `block` at its first instruction.
    pub fn warp(&self, shape: &Shape, block: u32, index: u32) -> Vec<[u64; 32]> {
        let mut regs = self.fresh();
        if self.varying.is_empty() {
            return regs;
        }
        let [bx, by, _] = shape.block;
        let [gx, gy, _] = shape.grid;
        let ctaid = [block % gx, block / gx % gy, block / (gx * gy)];
        // Each lane's thread index: thread `index * 32 + lane` of the block, x fastest.
        let first = u64::from(index) * 32;
        let (bx, by) = (u64::from(bx), u64::from(by));
        let (mut x, mut y, mut z) = (first % bx, first / bx % by, first / (bx * by));
        let tid: [[u64; 3]; 32] = [(); 32].map(|()| {
            let this = [x, y, z];
            x += 1;
            if x == bx {
                x = 0;
                y += 1;
                if y == by {
                    y = 0;
                    z += 1;
                }
            }
            this
        });
        let tid: [[u64; 32]; 3] = std::array::from_fn(|d| tid.map(|t| t[d]));
        for &(r, s) in &self.varying {
            regs[r as usize] = match s {
                Special::Tid(d) => tid[usize::from(d.min(2))],
                Special::Ctaid(d) => [u64::from(ctaid[usize::from(d.min(2))]); 32],
                _ => [u64::from(index); 32],
            };
        }
        regs
    }
}

/// What a kept register holds in builds with debug assertions.
const CANARY: u64 = 0x5a5a_c3c3_a5a5_3c3c;

/// Adds register `r` to `runs`, extending the last run where it ends at `r`.
fn push_run(runs: &mut Vec<Range<usize>>, r: usize) {
    match runs.last_mut() {
        Some(run) if run.end == r => run.end += 1,
        _ => runs.push(r..r + 1),
    }
}

/// A special register's value on `lane` where it is the same in every warp and block.
fn invariant(s: Special, shape: &Shape, lane: u32) -> u64 {
    let [bx, by, bz] = shape.block;
    match s {
        Special::Ntid(d) => u64::from([bx, by, bz][usize::from(d.min(2))]),
        Special::Nctaid(d) => u64::from(shape.grid[usize::from(d.min(2))]),
        Special::LaneId => u64::from(lane),
        Special::NWarpId => u64::from(shape.threads.div_ceil(32)),
        Special::LanemaskEq => 1 << lane,
        Special::LanemaskLt => (1u64 << lane) - 1,
        Special::LanemaskLe => (2u64 << lane) - 1,
        Special::LanemaskGt => u64::from(u32::MAX << lane << 1),
        Special::LanemaskGe => u64::from(u32::MAX << lane),
        Special::DynamicSmem => u64::from(shape.dynamic_shared),
        Special::TotalSmem => u64::from(shape.own_shared),
        Special::Reserved(k) => {
            let (begin, size) = (shape.reserved_begin, shape.reserved);
            u64::from(match k {
                0 | 3 => begin,
                1 => begin + size,
                2 => size,
                _ => begin + size / 2,
            })
        }
        Special::SmId | Special::GridId | Special::Zero => 0,
        Special::NSmId | Special::One => 1,
        // Filled per warp (`RegisterTemplate::warp`).
        Special::Tid(_) | Special::Ctaid(_) | Special::WarpId => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The per-warp thread indices match the division of the thread's number by the block's shape
    /// (x fastest), across warps that straddle rows and planes.
    #[test]
    fn thread_indices_follow_cuda_order() {
        for block in [
            [32, 1, 1],
            [5, 3, 4],
            [7, 7, 3],
            [1, 1, 64],
            [96, 2, 1],
            [3, 1, 50],
        ] {
            let threads = block[0] * block[1] * block[2];
            let shape = Shape {
                block,
                grid: [2, 3, 1],
                threads,
                dynamic_shared: 0,
                own_shared: 0,
                reserved_begin: 0,
                reserved: 0,
            };
            let template = RegisterTemplate {
                regs: vec![[0; 32]; 4],
                reset: vec![Range { start: 0, end: 4 }],
                kept: Vec::new(),
                spare: Mutex::default(),
                varying: vec![
                    (0, Special::Tid(0)),
                    (1, Special::Tid(1)),
                    (2, Special::Tid(2)),
                    (3, Special::Ctaid(1)),
                ],
            };
            for w in 0..threads.div_ceil(32) {
                let regs = template.warp(&shape, 4, w);
                #[allow(clippy::needless_range_loop)]
                for lane in 0..32 {
                    let t = u64::from(w * 32 + lane as u32);
                    let [bx, by, _] = block.map(u64::from);
                    assert_eq!(regs[0][lane], t % bx, "{block:?} warp {w} lane {lane}");
                    assert_eq!(regs[1][lane], t / bx % by, "{block:?} warp {w} lane {lane}");
                    assert_eq!(
                        regs[2][lane],
                        t / (bx * by),
                        "{block:?} warp {w} lane {lane}"
                    );
                }
                assert_eq!(regs[3], [2; 32], "block 4 of a 2×3 grid is y = 2");
            }
        }
    }

    /// A reused register file starts as a fresh one: registers the last warp wrote are reset, the
    /// per-warp specials refilled, the constants as they were.
    #[test]
    fn a_reused_register_file_starts_like_a_fresh_one() {
        let shape = Shape {
            block: [64, 1, 1],
            grid: [1, 1, 1],
            threads: 64,
            dynamic_shared: 0,
            own_shared: 0,
            reserved_begin: 0,
            reserved: 0,
        };
        let mut regs = vec![[0; 32]; 5];
        regs[1] = [7; 32];
        regs[3] = [9; 32];
        let template = RegisterTemplate {
            regs,
            varying: vec![(2, Special::Tid(0))],
            reset: vec![0..1, 2..3, 4..5],
            kept: Vec::new(),
            spare: Mutex::default(),
        };
        let fresh = template.warp(&shape, 0, 1);
        let mut used = template.warp(&shape, 0, 0);
        for col in &mut used {
            for (l, v) in col.iter_mut().enumerate() {
                if *v != 7 && *v != 9 {
                    *v = 1000 + l as u64;
                }
            }
        }
        template.give_back(used);
        assert_eq!(template.spare.lock().unwrap().len(), 1);
        assert_eq!(template.warp(&shape, 0, 1), fresh);
        assert!(
            template.spare.lock().unwrap().is_empty(),
            "the spare file was reused"
        );
    }
}
