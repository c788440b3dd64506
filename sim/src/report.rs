//! What a launch did ([`SimReport`]) and why it did not start ([`SimError`]).

use std::fmt;

use crate::finding::{Finding, Severity};
use crate::profile::ProfileEntry;
use crate::stats::Counters;

/// What a launch did.
#[derive(Clone, Debug, Default)]
pub struct SimReport {
    /// Every finding, in block order; one per kind and statement (the count of other blocks with the
    /// same is in [`Finding::other_blocks`]).
    pub findings: Vec<Finding>,
    /// Counters of the whole launch.
    pub counters: Counters,
    /// Counters per block (with [`SimOptions::stats`](crate::SimOptions::stats); empty otherwise).
    pub blocks: Vec<Counters>,
    /// Counters per instruction with [`SimOptions::profile`](crate::SimOptions::profile), in program order, summed over blocks;
    /// only instructions that counted something (empty otherwise).
    pub profile: Vec<ProfileEntry>,
    /// Blocks an error stopped before they finished.
    pub stopped_blocks: u32,
    /// Host-clock time of the launch (decoding, copies and execution), nanoseconds.
    pub elapsed_ns: u64,
    /// What device `printf` printed (PTX), one entry per call and thread: blocks in order, within
    /// a block in the order the threads ran the calls (CUDA gives no order); at most
    /// [`MAX_PRINTED`] entries, the rest counted in [`SimReport::printed_dropped`].
    pub printed: Vec<String>,
    /// Entries of `printed` past [`MAX_PRINTED`], not kept.
    pub printed_dropped: u64,
}

/// The most `printf` entries a report keeps (a kernel printing in a loop in every thread would
/// otherwise fill the host's memory; CUDA's own buffer holds 1 MiB by default).
pub const MAX_PRINTED: usize = 10_000;

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
