//! The sanitizer's poison tracking at each instruction (`poison.rs` says what poison is and how it
//! flows): reports poison that reaches a sink, and marks what an instruction writes.

use super::block::{PtxBlock, PtxWarp};
use super::inst::{Op, R};
use super::poison::{flow, Flow};
use crate::block::Stop;
use crate::finding::{lane_list, FindingKind};
use crate::profile::Sites;

impl PtxBlock<'_> {
    /// Before `inst` at `pc` runs on `lanes` (of `active`, the lanes at it): reports poison that
    /// reaches a sink, and computes which lanes of what it writes hold poison afterwards. Called
    /// only while some register holds poison.
    pub(super) fn poison_step(
        &mut self,
        warp: &mut PtxWarp,
        pc: usize,
        op: &Op,
        guard: Option<R>,
        active: u32,
        lanes: u32,
    ) -> Result<(), Stop> {
        // Lanes whose guard is poison may or may not run it: what they write is poison, and a sink
        // they reach is an error.
        let (guarded, guard_origin) = guard.map_or((0, 0), |p| warp.poison.of(p));
        let guarded = guarded & active;
        let read = |regs: &[R], within: u32| {
            regs.iter()
                .fold((0u32, guard_origin), |(lanes, origin), &r| {
                    let (l, o) = warp.poison.of(r);
                    if l & within != 0 {
                        (lanes | l & within, o)
                    } else {
                        (lanes, origin)
                    }
                })
        };
        match flow(op) {
            Flow::Sink {
                reads,
                writes,
                what,
            } => {
                let (bad, origin) = read(&reads, lanes);
                let bad = bad | guarded;
                if bad != 0 {
                    let detail = format!(
                        "lanes {} use a value that the shuffle at {} read from outside its \
                         membermask (or from a lane that exited), which is undefined in PTX: it \
                         reaches {what}",
                        lane_list(bad),
                        self.run.program.site(origin as usize),
                    );
                    let f = self.run.finding(
                        FindingKind::ShuffleOutsideMask,
                        pc as u32,
                        warp.index,
                        bad,
                        None,
                        detail,
                    );
                    self.run
                        .report(FindingKind::ShuffleOutsideMask, pc as u32, origin, f)?;
                }
                for w in writes {
                    warp.poison.assign(w, lanes, 0, 0);
                }
            }
            Flow::Pass { reads, writes } => {
                let (bad, origin) = read(&reads, lanes);
                for w in writes {
                    warp.poison
                        .assign(w, lanes | guarded, bad | guarded, origin);
                }
            }
            Flow::Select { d, a, b, c } => {
                let cond = &warp.regs[c as usize];
                let chosen_a =
                    super::lanes(lanes).fold(0u32, |m, l| m | ((cond[l] & 1) as u32) << l);
                let (pa, oa) = warp.poison.of(a);
                let (pb, ob) = warp.poison.of(b);
                let (pc_, oc) = warp.poison.of(c);
                let bad = (pc_ | pa & chosen_a | pb & !chosen_a) & lanes | guarded;
                let origin = [(pc_, oc), (pa & chosen_a, oa), (pb & !chosen_a, ob)]
                    .iter()
                    .find(|(l, _)| l & lanes != 0)
                    .map_or(guard_origin, |&(_, o)| o);
                warp.poison.assign(d, lanes | guarded, bad, origin);
            }
        }
        Ok(())
    }
}
