//! How a launch runs ([`SimOptions`]) and the limits a simulated launch has.

/// How a launch runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimOptions {
    /// racecheck, initcheck and shuffle-outside-mask checks (default on). Bounds, alignment, barriers
    /// and collective masks are checked either way.
    pub sanitize: bool,
    /// Count bank conflicts and global sectors, and keep per-block counters (default off; the
    /// instruction counts are always kept).
    pub stats: bool,
    /// Keep the counters per instruction as well, summed over blocks into [`SimReport::profile`](crate::SimReport::profile)
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
