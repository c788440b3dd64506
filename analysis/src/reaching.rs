//! Reaching definitions of the registers written in more than one place: bit sets per block over
//! the CFG, a guarded definition adding itself without removing the others (where its guard fails
//! the old value stays). `webs.rs` and `by_reaching.rs` split registers with them.

use petgraph::graph::NodeIndex;
use petgraph::Direction;

use crate::program::{Program, Var};

/// Where a definition is: block, instruction.
pub(crate) type Site = (usize, usize);

/// The definitions of the registers written more than once, and which reach each block's entry.
pub(crate) struct Reaching {
    /// Per register: its definition sites (those of registers written once or left out: none).
    pub sites: Vec<Vec<Site>>,
    /// Every definition taking part: (register, site), numbered in register order.
    pub ids: Vec<(Var, Site)>,
    /// Per register: the number of its first definition in `ids` (`usize::MAX`: not taking part).
    pub first_id: Vec<usize>,
    /// Per block: the definitions reaching its entry.
    reach_in: Vec<Vec<u64>>,
}

impl Reaching {
    /// The reaching definitions of `p`'s registers written more than once, except those whose
    /// sites `leave_out` names.
    pub fn new(p: &Program, leave_out: impl Fn(&[Site]) -> bool) -> Self {
        let n = p.var_names.len();
        let mut sites: Vec<Vec<Site>> = vec![Vec::new(); n];
        for b in p.cfg.node_indices() {
            for (i, inst) in p.cfg[b].insts.iter().enumerate() {
                for &d in &inst.defs {
                    if d < n {
                        sites[d].push((b.index(), i));
                    }
                }
            }
        }
        let mut ids = Vec::new();
        let mut first_id = vec![usize::MAX; n];
        for (v, s) in sites.iter_mut().enumerate() {
            if s.len() < 2 || leave_out(s) {
                s.clear();
                continue;
            }
            first_id[v] = ids.len();
            ids.extend(s.iter().map(|&site| (v, site)));
        }
        let mut r = Reaching {
            sites,
            ids,
            first_id,
            reach_in: Vec::new(),
        };
        r.solve(p);
        r
    }

    /// Whether any register takes part.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Whether register `v` takes part.
    pub fn splits(&self, v: Var) -> bool {
        self.first_id.get(v).is_some_and(|&s| s != usize::MAX)
    }

    /// The number of `v`'s definition at `site`.
    pub fn id_of(&self, v: Var, site: Site) -> Option<usize> {
        let start = *self.first_id.get(v)?;
        if start == usize::MAX {
            return None;
        }
        Some(start + self.sites[v].iter().position(|&s| s == site)?)
    }

    fn solve(&mut self, p: &Program) {
        let words = self.ids.len().div_ceil(64);
        let blocks = p.cfg.node_count();
        let mut gen = vec![vec![0u64; words]; blocks];
        let mut kill = vec![vec![0u64; words]; blocks];
        for b in 0..blocks {
            for (i, inst) in p.cfg[NodeIndex::new(b)].insts.iter().enumerate() {
                for &d in &inst.defs {
                    let Some(id) = self.id_of(d, (b, i)) else {
                        continue;
                    };
                    if inst.guard.is_none() {
                        let start = self.first_id[d];
                        for k in start..start + self.sites[d].len() {
                            kill[b][k / 64] |= 1 << (k % 64);
                            gen[b][k / 64] &= !(1 << (k % 64));
                        }
                    }
                    gen[b][id / 64] |= 1 << (id % 64);
                }
            }
        }
        let mut reach_in = vec![vec![0u64; words]; blocks];
        let mut changed = true;
        while changed {
            changed = false;
            for b in p.cfg.node_indices() {
                let mut acc = vec![0u64; words];
                for a in p.cfg.neighbors_directed(b, Direction::Incoming) {
                    let a = a.index();
                    for w in 0..words {
                        acc[w] |= gen[a][w] | (reach_in[a][w] & !kill[a][w]);
                    }
                }
                if acc != reach_in[b.index()] {
                    reach_in[b.index()] = acc;
                    changed = true;
                }
            }
        }
        self.reach_in = reach_in;
    }

    /// The definitions of `v` reaching a use just before instruction `i` of block `b` (`usize::MAX`:
    /// the block's end, where its branch reads its condition).
    pub fn reaching(&self, p: &Program, v: Var, b: usize, i: usize) -> Vec<usize> {
        let mut out = Vec::new();
        let insts = &p.cfg[NodeIndex::new(b)].insts;
        for j in (0..i.min(insts.len())).rev() {
            if insts[j].defs.contains(&v) {
                if let Some(id) = self.id_of(v, (b, j)) {
                    out.push(id);
                }
                if insts[j].guard.is_none() {
                    return out;
                }
            }
        }
        let start = self.first_id[v];
        for k in start..start + self.sites[v].len() {
            if self.reach_in[b][k / 64] >> (k % 64) & 1 == 1 {
                out.push(k);
            }
        }
        out
    }
}
