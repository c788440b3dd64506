//! A launch's shared state ([`LaunchState`]): the decoded program, the memory layout of the launch
//! and how findings name its places.

use super::address::GlobalMap;
use super::decode::Program;
use crate::profile::{ProfileSite, Sites};

/// A launch's shared state: the program, what the memory holds and how findings name it.
pub(crate) struct LaunchState<'p> {
    pub program: &'p Program,
    /// Names for findings: each buffer (after its parameter), the module variables, each shared
    /// array, and "shared memory".
    pub arrays: Vec<String>,
    /// Index of the first shared array among `arrays`.
    pub first_shared: u32,
    /// Blocks in the grid: the product of `grid`.
    pub blocks: u32,
    /// Whether blocks run one after another (no other block writes memory while one runs).
    pub serial: bool,
    pub shared_total: u32,
    /// The parameter space's bytes.
    pub params: Vec<u8>,
    pub map: GlobalMap,
    /// Fences and atomics ordering blocks (`sync_blocks.rs`).
    pub releases: crate::sync_blocks::Releases,
    /// What the special registers depend on, and the register file each warp starts with.
    pub shape: super::warp_init::Shape,
    pub registers: super::warp_init::RegisterTemplate,
}

/// The shared memory the simulator reserves for NVIDIA's libraries when a kernel reads
/// `%reserved_smem_offset_*` (the driver reserves 1 KiB per block from sm_80; cooperative groups
/// need 288 bytes of it): `%reserved_smem_offset_0` is its start, `_1` its middle. It starts
/// zeroed and counts as written for initcheck (the runtime's, not the kernel's).
pub(crate) const RESERVED_SMEM: u32 = 1024;

impl LaunchState<'_> {
    /// `line N: `text``, for findings; `line N (file:line:column): `text`` where a `.loc` is in
    /// force.
    pub fn describe(&self, pc: usize) -> String {
        let source = match self.program.sources.get(pc) {
            Some(Some(s)) => format!(" ({s})"),
            _ => String::new(),
        };
        match (self.program.lines.get(pc), self.program.texts.get(pc)) {
            (Some(line), Some(text)) => format!("line {line}{source}: `{text}`"),
            _ => "the end of the entry".into(),
        }
    }

    /// The shared array holding shared byte `addr`.
    pub fn program_shared_array_at(&self, addr: u64) -> Option<usize> {
        self.program
            .shared
            .iter()
            .rposition(|a| u64::from(a.offset) <= addr)
    }
}

impl Sites for LaunchState<'_> {
    fn site(&self, pc: usize) -> String {
        self.describe(pc)
    }

    fn array_name(&self, array: u32) -> &str {
        self.arrays
            .get(array as usize)
            .map_or("memory", String::as_str)
    }

    fn profile_site(&self, pc: usize) -> ProfileSite {
        ProfileSite::Line(self.program.lines.get(pc).copied().unwrap_or(0))
    }
}
