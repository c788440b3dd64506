//! The source view of a launch (`SimOptions::profile`): the counters of every instruction, summed
//! over blocks, with the place in the kernel's source it came from — an IR statement's path or a PTX
//! line — in the spirit of Nsight Compute's source page. Counters are a model (see `stats.rs`).

use super::stats::Counters;

/// Where a profiled instruction comes from.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ProfileSite {
    /// An IR statement, by its path (`body[3].then[1]`); an `if` or `loop` counts its branch and back
    /// edges here.
    Statement(String),
    /// A line of a PTX file (1-based).
    Line(u32),
}

/// The counters of one instruction of the program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProfileEntry {
    /// Where it comes from.
    pub site: ProfileSite,
    /// What it counted, summed over the launch's blocks.
    pub counters: Counters,
}

/// What the shared machinery needs from a program to word its findings.
pub(crate) trait Sites {
    /// The description of the instruction at `pc`: where it is and what it does.
    fn site(&self, pc: usize) -> String;
    /// The name of array number `array` (see `decode::Mem::array`).
    fn array_name(&self, array: u32) -> &str;
    /// Where the instruction at `pc` comes from, for the profile.
    fn profile_site(&self, pc: usize) -> ProfileSite;
}

/// One entry per instruction that counted anything, in program order.
pub(crate) fn entries(per_pc: &[Counters], sites: &impl Sites) -> Vec<ProfileEntry> {
    per_pc
        .iter()
        .enumerate()
        .filter(|(_, c)| **c != Counters::default())
        .map(|(pc, c)| ProfileEntry {
            site: sites.profile_site(pc),
            counters: *c,
        })
        .collect()
}
