//! [`PtxAssumptions`]: what the linter is told about a PTX module's launches, the PTX front end's
//! input beside the text.

/// What the linter may assume about the launches of a PTX module's entries beyond what the PTX
/// declares (a module does not say how it is launched; the user often knows).
#[derive(Clone, Debug, Default)]
pub struct PtxAssumptions {
    /// Entries without `.reqntid` run blocks whose x-dimension is a multiple of 32 (then
    /// `%tid.x / 32` and `%tid.x < 32·k` are warp-uniform). [`lint_ptx`](crate::lint_ptx) assumes it.
    pub warp_aligned: bool,
    /// Every entry without `.reqntid` is launched with blocks of this many threads in x (y and z of
    /// 1): linted as if it declared `.reqntid X, 1, 1` (`warpforge lint --block X`).
    pub block: Option<u32>,
    /// The same for one entry (by its name, mangled as in the PTX); wins over [`Self::block`].
    pub entry_blocks: std::collections::BTreeMap<String, u32>,
    /// The y and z dimensions of [`Self::block`]'s blocks (`--block X,Y,Z`; `None`: 1 and 1): the
    /// entry is linted as if it declared `.reqntid X, Y, Z` (the lanes of a block of 16 × 2 threads
    /// fill a warp; of 16 × 1, half of one).
    pub block_yz: Option<[u32; 2]>,
}

impl PtxAssumptions {
    /// The block x-dimension assumed for entry `name`, if any.
    pub(crate) fn block_x(&self, name: &str) -> Option<u32> {
        self.entry_blocks.get(name).copied().or(self.block)
    }

    /// The threads of a block assumed for entry `name` (x·y·z), if any.
    pub(crate) fn block_threads(&self, name: &str) -> Option<u32> {
        if let Some(&x) = self.entry_blocks.get(name) {
            return Some(x);
        }
        let [y, z] = self.block_yz.unwrap_or([1, 1]);
        self.block
            .map(|x| x.saturating_mul(y.max(1)).saturating_mul(z.max(1)))
    }
}
