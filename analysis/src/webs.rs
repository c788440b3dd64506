//! Divergence per definition: a register written in several places is split into its webs — the
//! groups of definitions that reach a common use — so each is its own variable. PTX reuses registers
//! (nvcc for values whose live ranges do not meet, hand-written and generated code freely): a
//! register that holds `%tid.x` in one region and a constant in another would otherwise be divergent
//! everywhere, and its uniform uses would taint the branches and barriers after them.
//!
//! Reaching definitions over the CFG (bit sets per block; a guarded definition adds itself without
//! removing the others, since where its guard fails the old value stays), a union-find over the
//! definitions reaching each use, and a rewrite: each definition and each use gets its web's variable.

use petgraph::graph::NodeIndex;
use petgraph::Direction;

use crate::program::{Address, MaskInfo, Op, Program, Terminator, Var};

/// Where a definition is: block, instruction.
type Site = (usize, usize);

fn find(parent: &mut [usize], mut x: usize) -> usize {
    while parent[x] != x {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    x
}

/// Splits every variable of `p` defined in more than one place into its webs.
pub fn split(p: &mut Program) {
    let n = p.var_names.len();
    // Definition sites of variables written more than once.
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
    let mut ids: Vec<(Var, Site, bool)> = Vec::new(); // (variable, site, guarded)
    let mut first_id = vec![usize::MAX; n];
    for (v, s) in sites.iter().enumerate() {
        if s.len() < 2 {
            continue;
        }
        first_id[v] = ids.len();
        for &site in s {
            let guarded = p.cfg[NodeIndex::new(site.0)].insts[site.1].guard.is_some();
            ids.push((v, site, guarded));
        }
    }
    if ids.is_empty() {
        return;
    }
    let words = ids.len().div_ceil(64);
    let blocks = p.cfg.node_count();
    let id_of = |v: Var, site: Site| -> Option<usize> {
        let start = *first_id.get(v)?;
        (start != usize::MAX).then(|| start + sites[v].iter().position(|&s| s == site).unwrap_or(0))
    };
    // gen / kill per block, then the fixpoint of the definitions reaching each block's entry.
    let mut gen = vec![vec![0u64; words]; blocks];
    let mut kill = vec![vec![0u64; words]; blocks];
    for b in 0..blocks {
        for (i, inst) in p.cfg[NodeIndex::new(b)].insts.iter().enumerate() {
            for &d in &inst.defs {
                let Some(id) = id_of(d, (b, i)) else { continue };
                if inst.guard.is_none() {
                    let start = first_id[d];
                    for k in start..start + sites[d].len() {
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
    // The definitions reaching the use of `v` just before instruction `i` of block `b`.
    let reaching = |v: Var, b: usize, i: usize| -> Vec<usize> {
        let mut out = Vec::new();
        let insts = &p.cfg[NodeIndex::new(b)].insts;
        for j in (0..i.min(insts.len())).rev() {
            if insts[j].defs.contains(&v) {
                if let Some(id) = id_of(v, (b, j)) {
                    out.push(id);
                }
                if insts[j].guard.is_none() {
                    return out;
                }
            }
        }
        let start = first_id[v];
        for k in start..start + sites[v].len() {
            if reach_in[b][k / 64] >> (k % 64) & 1 == 1 {
                out.push(k);
            }
        }
        out
    };
    // Union the definitions that reach a common use (a guarded definition also joins the ones it may
    // leave in place: its own use of the old value is implicit).
    let mut parent: Vec<usize> = (0..ids.len()).collect();
    let mut use_classes: Vec<Vec<(Var, Option<usize>)>> = Vec::new(); // per (block, inst) flattened
    let mut term_uses: Vec<Option<(Var, Option<usize>)>> = Vec::with_capacity(blocks);
    for b in 0..blocks {
        let node = NodeIndex::new(b);
        for i in 0..p.cfg[node].insts.len() {
            let inst = &p.cfg[node].insts[i];
            let mut vars: Vec<Var> = inst.uses.clone();
            vars.extend(inst.guard);
            let mut here = Vec::new();
            for v in vars {
                if first_id.get(v).is_none_or(|&s| s == usize::MAX) {
                    continue;
                }
                let list = reaching(v, b, i);
                union(&mut parent, &list);
                here.push((v, list.first().copied()));
            }
            if inst.guard.is_some() {
                for &d in &inst.defs {
                    if let Some(id) = id_of(d, (b, i)) {
                        let mut list = reaching(d, b, i);
                        list.push(id);
                        union(&mut parent, &list);
                    }
                }
            }
            use_classes.push(here);
        }
        term_uses.push(match p.cfg[node].term {
            Terminator::Branch { cond, .. }
                if first_id.get(cond).is_some_and(|&s| s != usize::MAX) =>
            {
                let list = reaching(cond, b, usize::MAX);
                union(&mut parent, &list);
                Some((cond, list.first().copied()))
            }
            _ => None,
        });
    }
    // A variable per web: the web of a variable's first definition keeps it, the others are new.
    let mut web_var: Vec<Option<Var>> = vec![None; ids.len()];
    for (k, &(v, _, _)) in ids.iter().enumerate() {
        let r = find(&mut parent, k);
        if web_var[r].is_none() {
            web_var[r] = Some(if r == find(&mut parent, first_id[v]) {
                v
            } else {
                let fresh = p.var_names.len();
                p.var_names.push(p.var_names[v].clone());
                let bits = p.var_bits.get(v).copied().unwrap_or(0);
                p.var_bits.push(bits);
                fresh
            });
        }
    }
    let mut var_of = |id: Option<usize>, v: Var| -> Var {
        id.map_or(v, |id| {
            let r = find(&mut parent, id);
            web_var[r].unwrap_or(v)
        })
    };
    let mut flat = 0;
    for (b, term_use) in term_uses.iter().enumerate() {
        let node = NodeIndex::new(b);
        for i in 0..p.cfg[node].insts.len() {
            let here: Vec<(Var, Var)> = use_classes[flat]
                .iter()
                .map(|&(v, id)| (v, var_of(id, v)))
                .collect();
            flat += 1;
            let defs: Vec<(Var, Var)> = p.cfg[node].insts[i]
                .defs
                .iter()
                .map(|&d| (d, var_of(id_of(d, (b, i)), d)))
                .collect();
            let inst = &mut p.cfg[node].insts[i];
            let use_of = |v: Var| here.iter().find(|(o, _)| *o == v).map_or(v, |&(_, n)| n);
            for u in inst.uses.iter_mut() {
                *u = use_of(*u);
            }
            if let Some(g) = inst.guard.as_mut() {
                *g = use_of(*g);
            }
            match &mut inst.op {
                Op::Load { addr, .. } | Op::Atomic { addr } => rename_address(addr, &use_of),
                Op::Store { addr, values, .. } => {
                    rename_address(addr, &use_of);
                    for v in values.iter_mut() {
                        *v = use_of(*v);
                    }
                }
                Op::Collective {
                    mask: MaskInfo::Var(m),
                    ..
                } => *m = use_of(*m),
                _ => {}
            }
            for d in inst.defs.iter_mut() {
                if let Some(&(_, n)) = defs.iter().find(|(o, _)| o == d) {
                    *d = n;
                }
            }
        }
        if let Some((v, id)) = *term_use {
            let new = var_of(id, v);
            if let Terminator::Branch { cond, .. } = &mut p.cfg[node].term {
                *cond = new;
            }
        }
    }
}

fn rename_address(addr: &mut Address, use_of: &impl Fn(Var) -> Var) {
    if let Some(v) = addr.byte_var.as_mut() {
        *v = use_of(*v);
    }
    if let Some(v) = addr.index_var.as_mut() {
        *v = use_of(*v);
    }
}

/// Puts every definition of `list` in one web.
fn union(parent: &mut [usize], list: &[usize]) {
    if let Some((&first, rest)) = list.split_first() {
        let r = find(parent, first);
        for &x in rest {
            let rx = find(parent, x);
            parent[rx] = r;
        }
    }
}
