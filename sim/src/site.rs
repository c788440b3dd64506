//! Where a finding happened, in words: the statement's path, its source location and what it does.

use super::decode::{Inst, Program};

impl Program {
    /// The description of the statement at `pc` for findings: its path and what it does.
    pub fn site(&self, pc: usize) -> String {
        let what = match &self.insts[pc] {
            Inst::Load { mem, .. } => format!("load from `{}`", self.arrays[mem.array as usize]),
            Inst::Store { mem, .. } => format!("store to `{}`", self.arrays[mem.array as usize]),
            Inst::LoadWide { mem, dsts, .. } => format!(
                "{}-byte load from `{}`",
                4 * dsts.len(),
                self.arrays[mem.array as usize]
            ),
            Inst::StoreWide { mem, srcs, .. } => format!(
                "{}-byte store to `{}`",
                4 * srcs.len(),
                self.arrays[mem.array as usize]
            ),
            Inst::Atomic { mem, op, .. } => format!(
                "atomic {} on `{}`",
                op.name(),
                self.arrays[mem.array as usize]
            ),
            Inst::Barrier => "barrier".into(),
            Inst::Shuffle { .. } => "shuffle".into(),
            Inst::Ballot { .. } => "ballot".into(),
            Inst::Vote { .. } => "vote".into(),
            Inst::MatchAny { .. } => "match_any".into(),
            Inst::WarpSync { .. } => "warp_sync".into(),
            _ => "statement".into(),
        };
        match &self.sources[pc] {
            Some(source) => format!("{} ({source}, {what})", self.paths[pc]),
            None => format!("{} ({what})", self.paths[pc]),
        }
    }
}
