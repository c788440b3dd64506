//! A warp's SIMT stack for unstructured control flow, as GPGPU-Sim's functional model keeps it: each
//! entry is (pc, reconvergence pc, active mask); the top entry runs. At a divergent branch the
//! current entry waits at the branch's immediate post-dominator (`cfg.rs`) and one entry per side
//! is pushed (the taken side runs first); an entry that reaches its reconvergence pc is popped, and
//! the lanes continue together in the entry below. Lanes that exit leave every entry.
//!
//! PTX's `.sync` instructions and barriers wait for lanes (`shfl.sync` waits for every non-exited
//! lane of its membermask; `bar.sync` for every non-exited lane of the warp). Post-dominator
//! reconvergence alone can leave such lanes on a sibling path — e.g. lanes that `continue` a loop
//! whose other lanes may still `break` reconverge only after the loop, yet meet the others again at
//! the loop's `shfl.sync` on real hardware. So an entry that reaches a sync point without all the
//! lanes it needs *yields* ([`SimtStack::gather`]): a waiting sibling entry at the same instruction
//! (same parent, same reconvergence point) is merged into it, or the topmost runnable entry holding
//! missing lanes is moved to the top to run first (any entry that has not diverged may run before
//! its siblings). Lanes that wait at the same instruction in another activation of its function
//! (they called it from another call site) execute it together with the running entry. When the
//! missing lanes can only be waiting at a reconvergence point or at another sync point, the lanes
//! can never meet: that is reported instead of hanging.

use super::cfg::EXIT;

/// One entry of the stack.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Entry {
    pub pc: u32,
    /// Where the entry's lanes meet the lanes of its siblings ([`EXIT`]: never).
    pub rpc: u32,
    pub mask: u32,
    id: u32,
    /// The entry the lanes continue in at `rpc` (`u32::MAX` for the bottom entry).
    parent: u32,
    /// Waiting at the sync point at `pc` for lanes of another entry.
    blocked: bool,
    /// The function activation the entry runs in: the id of its call's entry ([`NO_FRAME`] in the
    /// kernel itself). `ret` takes its lanes out of every entry of the activation.
    frame: u32,
}

/// The frame of the entries that run the kernel itself (no call).
const NO_FRAME: u32 = u32::MAX;

/// What [`SimtStack::gather`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Gather {
    /// The top entry has every lane it needs.
    Ready,
    /// The top entry yielded: another entry runs first.
    Yielded,
    /// The missing lanes (and the rest of their entries: these lanes) wait at this very instruction
    /// in entries that cannot merge with the running one — other activations of the function the
    /// instruction is in, when lanes called it from different call sites. As on Volta and later,
    /// where a warp's lanes meet at the same `.sync` instruction whichever path brought them there,
    /// they execute it together with the running entry ([`SimtStack::advance_together`]).
    Together(u32),
    /// The lanes can never all arrive: (lanes waiting at a reconvergence point or elsewhere, lanes
    /// waiting at another sync point).
    Stuck { elsewhere: u32, at_sync: u32 },
}

/// The SIMT stack of one warp.
#[derive(Clone, Debug)]
pub(crate) struct SimtStack {
    pub entries: Vec<Entry>,
    next_id: u32,
}

impl SimtStack {
    /// A stack whose `lanes` start at instruction 0.
    pub fn new(lanes: u32) -> Self {
        SimtStack {
            entries: vec![Entry {
                pc: 0,
                rpc: EXIT,
                mask: lanes,
                id: 0,
                parent: u32::MAX,
                blocked: false,
                frame: NO_FRAME,
            }],
            next_id: 1,
        }
    }

    /// The running entry, after popping entries that reached their reconvergence point or lost all
    /// their lanes; `None` when every lane has exited.
    pub fn top(&mut self) -> Option<Entry> {
        while let Some(top) = self.entries.last() {
            if top.mask != 0 && top.pc != top.rpc {
                return Some(*top);
            }
            self.entries.pop();
        }
        None
    }

    fn top_mut(&mut self) -> Option<&mut Entry> {
        self.entries.last_mut()
    }

    /// Moves the running entry to `pc`.
    pub fn jump(&mut self, pc: u32) {
        if let Some(top) = self.top_mut() {
            top.pc = pc;
            top.blocked = false;
        }
    }

    /// The running entry goes on to the next instruction.
    pub fn advance(&mut self) {
        if let Some(top) = self.top_mut() {
            top.pc += 1;
            top.blocked = false;
        }
    }

    /// A branch of the running entry to `target` taken by lanes `taken`, reconverging at
    /// `reconverge` when the lanes diverge.
    pub fn branch(&mut self, taken: u32, target: u32, reconverge: u32) {
        let Some(top) = self.entries.last().copied() else {
            return;
        };
        let (stay, go) = (top.mask & !taken, top.mask & taken);
        match (stay != 0, go != 0) {
            (false, false) => {}
            (true, false) => self.jump(top.pc + 1),
            (false, true) => self.jump(target),
            (true, true) if target == top.pc + 1 => self.jump(target),
            (true, true) => self.diverge(top, &[(top.pc + 1, stay), (target, go)], reconverge),
        }
    }

    /// A branch of the running entry with several destinations (`brx.idx`): `groups` are
    /// (destination, lanes); when the lanes go to more than one destination, each group gets an
    /// entry reconverging at `reconverge` (the last group runs first).
    pub fn branch_many(&mut self, groups: &[(u32, u32)], reconverge: u32) {
        let Some(top) = self.entries.last().copied() else {
            return;
        };
        let mut merged: Vec<(u32, u32)> = Vec::with_capacity(groups.len());
        for &(pc, mask) in groups {
            let mask = mask & top.mask;
            if mask == 0 {
                continue;
            }
            match merged.iter_mut().find(|g| g.0 == pc) {
                Some(g) => g.1 |= mask,
                None => merged.push((pc, mask)),
            }
        }
        match merged.as_slice() {
            [] => {}
            [(pc, _)] => self.jump(*pc),
            _ => self.diverge(top, &merged, reconverge),
        }
    }

    /// The running entry `top` splits into `groups` (distinct destinations, each with lanes; at
    /// least two), reconverging at `reconverge`; the last group runs first.
    fn diverge(&mut self, top: Entry, groups: &[(u32, u32)], reconverge: u32) {
        let parent = if reconverge == top.rpc {
            // The paths meet where this entry meets its siblings: they become siblings.
            self.entries.pop();
            top.parent
        } else {
            if let Some(t) = self.top_mut() {
                t.pc = reconverge;
                t.blocked = false;
            }
            top.id
        };
        for &(pc, mask) in groups {
            let id = self.next_id;
            self.next_id = self.next_id.wrapping_add(1);
            self.entries.push(Entry {
                pc,
                rpc: reconverge,
                mask,
                id,
                parent,
                blocked: false,
                frame: top.frame,
            });
        }
    }

    /// `call` by lanes `lanes` of the running entry: the running entry waits at `ret` (the
    /// instruction after the call, where the lanes that do not call wait too), and the calling lanes
    /// run the callee from `target` in an entry of their own, the activation's first. It has no
    /// reconvergence point ([`EXIT`]): it ends when its lanes have all returned (or exited), not at
    /// an instruction — a recursive activation returns to the same instruction as its caller.
    pub fn call(&mut self, lanes: u32, target: u32, ret: u32) {
        let Some(top) = self.entries.last().copied() else {
            return;
        };
        let lanes = lanes & top.mask;
        if lanes == 0 {
            return self.advance();
        }
        self.jump(ret);
        let id = self.next_id;
        self.next_id = self.next_id.wrapping_add(1);
        self.entries.push(Entry {
            pc: target,
            rpc: EXIT,
            mask: lanes,
            id,
            parent: top.id,
            blocked: false,
            frame: id,
        });
    }

    /// `ret` by `lanes` of the running entry: they leave every entry of the running activation
    /// and wait after the call in the caller's entry. Outside any call, the lanes exit.
    pub fn ret(&mut self, lanes: u32) {
        let Some(top) = self.entries.last().copied() else {
            return;
        };
        if top.frame == NO_FRAME {
            return self.exit(lanes);
        }
        for e in &mut self.entries {
            if e.frame == top.frame {
                e.mask &= !lanes;
            }
        }
    }

    /// `lanes` exit: they leave every entry.
    pub fn exit(&mut self, lanes: u32) {
        for e in &mut self.entries {
            e.mask &= !lanes;
        }
    }

    /// Whether entry `i` has diverged (an entry above it continues in it).
    fn has_children(&self, i: usize) -> bool {
        let id = self.entries[i].id;
        self.entries[i + 1..].iter().any(|e| e.parent == id)
    }

    /// At a sync point: the running entry needs lanes `need`. Merges sibling entries waiting at the
    /// same instruction, or lets an entry holding missing lanes run first.
    pub fn gather(&mut self, need: u32) -> Gather {
        let Some(top_index) = self.entries.len().checked_sub(1) else {
            return Gather::Ready;
        };
        let top = self.entries[top_index];
        if need & !top.mask == 0 {
            return Gather::Ready;
        }
        // Siblings at the same instruction, not diverged: one entry.
        let mut i = top_index;
        while i > 0 {
            i -= 1;
            let e = self.entries[i];
            let sibling = e.parent == top.parent && e.rpc == top.rpc && e.pc == top.pc;
            if sibling && e.mask & need != 0 && !self.has_children(i) {
                self.entries.remove(i);
                if let Some(t) = self.top_mut() {
                    t.mask |= e.mask;
                }
            }
        }
        let top_index = self.entries.len() - 1;
        let mask = self.entries[top_index].mask;
        let missing = need & !mask;
        if missing == 0 {
            return Gather::Ready;
        }
        // The topmost entry that can run and holds missing lanes runs first.
        let runnable = (0..top_index).rev().find(|&i| {
            let e = self.entries[i];
            e.mask & missing != 0 && !e.blocked && !self.has_children(i) && e.pc != e.rpc
        });
        match runnable {
            Some(i) => {
                self.entries[top_index].blocked = true;
                let e = self.entries.remove(i);
                self.entries.push(e);
                Gather::Yielded
            }
            None => {
                let pc = self.entries[top_index].pc;
                let here = (0..top_index)
                    .filter(|&i| {
                        let e = self.entries[i];
                        e.blocked && e.pc == pc && !self.has_children(i)
                    })
                    .fold(0, |m, i| m | self.entries[i].mask);
                if missing & !here == 0 {
                    return Gather::Together(here);
                }
                let at_sync = (0..top_index)
                    .filter(|&i| self.entries[i].blocked && !self.has_children(i))
                    .fold(0, |m, i| m | self.entries[i].mask)
                    & missing;
                Gather::Stuck {
                    elsewhere: missing & !at_sync,
                    at_sync,
                }
            }
        }
    }

    /// The running entry and the entries holding `lanes` that wait at its instruction
    /// ([`Gather::Together`]) all executed it: each goes on to the next instruction.
    pub fn advance_together(&mut self, lanes: u32) {
        self.release_waiting(lanes);
        self.advance();
    }

    /// The entries holding `lanes` that wait at the running entry's instruction go on past it
    /// (the running entry stays).
    pub fn release_waiting(&mut self, lanes: u32) {
        let Some(pc) = self.entries.last().map(|t| t.pc) else {
            return;
        };
        let top_index = self.entries.len() - 1;
        for e in &mut self.entries[..top_index] {
            if e.blocked && e.pc == pc && e.mask & lanes != 0 {
                e.pc += 1;
                e.blocked = false;
            }
        }
    }

    /// At a barrier the running entry needs `lanes`, which wait in entries below it (at a
    /// reconvergence point). When `leaves(pc)` says every path from where each waits leaves the
    /// kernel without meeting a barrier or a warp collective, they go on alone and first — as on
    /// Volta and later, whose lanes are scheduled independently, and as the PTX ISA's `exit`
    /// releases a barrier that only exited threads hold up: a new entry for them at the same
    /// instruction that never reconverges, above the running entry, which waits at its barrier.
    /// `false` (nothing changed) when they cannot.
    pub fn run_ahead(&mut self, lanes: u32, leaves: impl Fn(u32) -> bool) -> bool {
        let Some(top_index) = self.entries.len().checked_sub(1) else {
            return false;
        };
        let holders: Vec<usize> = (0..top_index)
            .filter(|&i| self.entries[i].mask & lanes != 0)
            .collect();
        let covered = holders.iter().fold(0, |m, &i| m | self.entries[i].mask) & lanes;
        let ok = covered == lanes
            && holders.iter().all(|&i| {
                let e = self.entries[i];
                e.frame == NO_FRAME && !e.blocked && leaves(e.pc)
            });
        if holders.is_empty() || !ok {
            return false;
        }
        self.entries[top_index].blocked = true;
        for i in holders {
            let e = self.entries[i];
            self.entries[i].mask &= !lanes;
            let id = self.next_id;
            self.next_id += 1;
            self.entries.push(Entry {
                pc: e.pc,
                rpc: EXIT,
                mask: e.mask & lanes,
                id,
                parent: e.parent,
                blocked: false,
                frame: e.frame,
            });
        }
        true
    }

    /// The instruction other lanes wait at, for a finding: the pc of the entry holding `lane`.
    pub fn pc_of(&self, lane: u32) -> Option<u32> {
        self.entries
            .iter()
            .rev()
            .find(|e| e.mask >> lane & 1 == 1)
            .map(|e| e.pc)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn divergent_paths_reconverge_at_the_post_dominator() {
        let mut s = SimtStack::new(u32::MAX);
        // 0: @p bra 3 (lanes 0-15 take it), reconverging at 5.
        s.branch(0xffff, 3, 5);
        let top = s.top().unwrap();
        assert_eq!((top.pc, top.mask), (3, 0xffff), "the taken side first");
        s.jump(5);
        let top = s.top().unwrap();
        assert_eq!((top.pc, top.mask), (1, 0xffff_0000), "then the other side");
        s.jump(5);
        let top = s.top().unwrap();
        assert_eq!((top.pc, top.mask), (5, u32::MAX), "together at the join");
        s.exit(u32::MAX);
        assert_eq!(s.top(), None);
    }

    #[test]
    fn a_sync_point_gathers_lanes_from_a_sibling_path() {
        let mut s = SimtStack::new(u32::MAX);
        // Lanes 0-15 take the branch at 0 to 10 (a `continue` back to the sync point at 10);
        // both sides reconverge only at 20.
        s.branch(0xffff, 10, 20);
        assert_eq!(s.gather(u32::MAX), Gather::Yielded, "lanes 16-31 run first");
        let top = s.top().unwrap();
        assert_eq!((top.pc, top.mask), (1, 0xffff_0000));
        s.jump(10);
        assert_eq!(
            s.gather(u32::MAX),
            Gather::Ready,
            "merged at the sync point"
        );
        assert_eq!(s.top().unwrap().mask, u32::MAX);
    }

    #[test]
    fn lanes_waiting_at_a_reconvergence_point_never_arrive() {
        let mut s = SimtStack::new(u32::MAX);
        s.branch(0xffff, 10, 20);
        s.jump(20); // lanes 0-15 reach the join and wait there
        let top = s.top().unwrap();
        assert_eq!(top.mask, 0xffff_0000);
        s.jump(15);
        assert_eq!(
            s.gather(u32::MAX),
            Gather::Stuck {
                elsewhere: 0xffff,
                at_sync: 0
            }
        );
    }

    #[test]
    fn a_call_by_some_lanes_returns_each_lane_after_the_call() {
        let mut s = SimtStack::new(u32::MAX);
        // 4: call f (at 10) by lanes 0-7; f diverges at 11 (lanes 0-3 return at 12, the others
        // at 14, which is also the caller's return point in a recursive call).
        s.jump(4);
        s.call(0xff, 10, 5);
        assert_eq!(s.top().map(|t| (t.pc, t.mask)), Some((10, 0xff)));
        s.branch(0xf, 12, EXIT);
        assert_eq!(s.top().map(|t| (t.pc, t.mask)), Some((12, 0xf)));
        s.ret(0xf);
        let top = s.top().unwrap();
        assert_eq!(
            (top.pc, top.mask),
            (11, 0xf0),
            "the other lanes run on in f"
        );
        s.jump(14);
        s.ret(0xf0);
        let top = s.top().unwrap();
        assert_eq!(
            (top.pc, top.mask),
            (5, u32::MAX),
            "all lanes after the call"
        );
    }
}
