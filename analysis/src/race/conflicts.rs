//! Which recorded accesses of one simulated block conflict: two threads of different warps, between
//! the same barriers, in one shared array, at least one storing. A conflict is *proved* when both
//! accesses are known to run and touch a common byte; it is *possible* when the bytes may coincide but
//! that cannot be shown — an offset the simulation could not follow, or a guard whose value it does not
//! know. One example is kept per pair of instructions, a proved one over a possible one.

use std::collections::HashMap;

use super::sim::{Access, InstAt, Run};

/// A pair of instructions, the earlier (in block order) first.
pub(super) type PairKey = (InstAt, InstAt);

/// The key of the pair of instructions `a` and `b` run.
pub(super) fn pair_key(a: &Access, b: &Access) -> PairKey {
    (a.at.min(b.at), a.at.max(b.at))
}

/// Two conflicting accesses (`a` by one warp, `b` by another).
#[derive(Clone, Debug)]
pub(super) struct Conflict {
    /// One access.
    pub a: Access,
    /// The other.
    pub b: Access,
    /// A byte both touch, when known.
    pub byte: Option<u64>,
    /// Both run and touch `byte`: a race.
    pub proved: bool,
}

/// Per byte (or per array, for offsets not known): the first accesses seen, at most two of different
/// warps for each kind — (store?, certain?) — which is enough to find a conflict when there is one.
#[derive(Clone, Copy)]
struct Slot {
    ids: [[u32; 2]; 4],
}

const NONE: u32 = u32::MAX;

impl Default for Slot {
    fn default() -> Slot {
        Slot {
            ids: [[NONE; 2]; 4],
        }
    }
}

fn warp(a: &Access) -> u32 {
    a.thread / 32
}

impl Slot {
    fn add(&mut self, id: u32, acc: &[Access]) {
        let a = &acc[id as usize];
        let kind = &mut self.ids[usize::from(a.store) * 2 + usize::from(a.certain)];
        if kind[0] == NONE {
            kind[0] = id;
        } else if kind[1] == NONE && warp(&acc[kind[0] as usize]) != warp(a) {
            kind[1] = id;
        }
    }

    fn ids(&self) -> impl Iterator<Item = u32> + '_ {
        self.ids.iter().flatten().copied().filter(|&id| id != NONE)
    }

    fn merge(&mut self, other: &Slot, acc: &[Access]) {
        for id in other.ids() {
            self.add(id, acc);
        }
    }
}

/// The largest byte offset kept in a dense table; accesses past it are compared through a map.
const DENSE: u64 = 1 << 16;

/// The conflicts of one simulated block, one per pair of instructions.
pub(super) fn conflicts(run: &Run) -> Vec<Conflict> {
    let acc = &run.accesses;
    let mut groups: HashMap<(u32, usize), Vec<u32>> = HashMap::new();
    for (id, a) in acc.iter().enumerate() {
        if a.phase <= run.aligned_phases {
            groups
                .entry((a.phase, a.array))
                .or_default()
                .push(id as u32);
        }
    }
    let mut found: HashMap<PairKey, Conflict> = HashMap::new();
    let mut note = |x: u32, y: u32, byte: Option<u64>| {
        let (a, b) = (&acc[x as usize], &acc[y as usize]);
        // One store instruction run by many threads at one address is the broadcast idiom (Triton
        // writes a reduced value from every warp that holds it): usually the same value, left alone.
        if warp(a) == warp(b) || !(a.store || b.store) || (a.store && b.store && a.at == b.at) {
            return;
        }
        let proved = byte.is_some() && a.certain && b.certain;
        let key = pair_key(a, b);
        match found.get(&key) {
            Some(c) if c.proved || !proved => {}
            _ => {
                found.insert(
                    key,
                    Conflict {
                        a: a.clone(),
                        b: b.clone(),
                        byte,
                        proved,
                    },
                );
            }
        }
    };
    let mut keys: Vec<_> = groups.keys().copied().collect();
    keys.sort_unstable();
    for key in keys {
        let ids = &groups[&key];
        let end = ids
            .iter()
            .filter_map(|&id| acc[id as usize].offset.map(|o| o + acc[id as usize].width))
            .max()
            .unwrap_or(0)
            .min(DENSE);
        let mut dense = vec![Slot::default(); end as usize];
        let mut sparse: HashMap<u64, Slot> = HashMap::new();
        let (mut unknown, mut known) = (Slot::default(), Slot::default());
        for &id in ids {
            let a = &acc[id as usize];
            match a.offset {
                Some(off) => {
                    for byte in off..off.saturating_add(a.width) {
                        match dense.get_mut(byte as usize) {
                            Some(slot) => slot.add(id, acc),
                            None => sparse.entry(byte).or_default().add(id, acc),
                        }
                    }
                    known.add(id, acc);
                }
                None => unknown.add(id, acc),
            }
        }
        let mut far: Vec<_> = sparse.into_iter().collect();
        far.sort_unstable_by_key(|&(byte, _)| byte);
        let near = dense.into_iter().enumerate().map(|(b, s)| (b as u64, s));
        for (byte, slot) in near.chain(far) {
            let ids: Vec<u32> = slot.ids().collect();
            for (i, &x) in ids.iter().enumerate() {
                for &y in &ids[i + 1..] {
                    note(x, y, Some(byte));
                }
            }
        }
        // An offset not known may be any byte of the array: against everything else in the phase.
        let mut all = unknown;
        all.merge(&known, acc);
        for x in unknown.ids() {
            for y in all.ids().filter(|&y| y != x) {
                note(x, y, None);
            }
        }
    }
    let mut out: Vec<Conflict> = found.into_values().collect();
    out.sort_by_key(|c| pair_key(&c.a, &c.b));
    out
}
