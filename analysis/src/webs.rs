//! Divergence per definition: a register written in several places is split into its webs — the
//! groups of definitions that reach a common use — so each is its own variable. PTX reuses registers
//! (nvcc for values whose live ranges do not meet, hand-written and generated code freely): a
//! register that holds `%tid.x` in one region and a constant in another would otherwise be divergent
//! everywhere, and its uniform uses would taint the branches and barriers after them.
//!
//! Reaching definitions (`reaching.rs`), a union-find over the definitions reaching each use, and a
//! rewrite: each definition and each use gets its web's variable. The divergence analysis splits
//! further, by the definitions reaching each use (`by_reaching.rs`).

use petgraph::graph::NodeIndex;

use crate::program::{Address, Inst, MaskInfo, Op, Program, Terminator, Var};
use crate::reaching::{Reaching, Site};

fn find(parent: &mut [usize], mut x: usize) -> usize {
    while parent[x] != x {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    x
}

/// Splits every variable of `p` defined in more than one place into its webs.
pub fn split(p: &mut Program) {
    let r = Reaching::new(p, |_| false);
    if r.is_empty() {
        return;
    }
    let (ids, first_id) = (&r.ids, &r.first_id);
    let blocks = p.cfg.node_count();
    let id_of = |v: Var, site: Site| r.id_of(v, site);
    let reaching = |v: Var, b: usize, i: usize| r.reaching(p, v, b, i);
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
    for (k, &(v, _)) in ids.iter().enumerate() {
        let r = find(&mut parent, k);
        if web_var[r].is_none() {
            web_var[r] = Some(if r == find(&mut parent, first_id[v]) {
                v
            } else {
                fresh(p, v)
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
            rename_uses(inst, &here);
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

/// Renames what `inst` reads (operands, guard, addresses, stored values, a collective's mask) by
/// `renames` (old, new); definitions are the caller's.
pub(crate) fn rename_uses(inst: &mut Inst, renames: &[(Var, Var)]) {
    let use_of = |v: Var| renames.iter().find(|(o, _)| *o == v).map_or(v, |&(_, n)| n);
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
}

/// A new variable named and sized as `v`.
pub(crate) fn fresh(p: &mut Program, v: Var) -> Var {
    let fresh = p.var_names.len();
    p.var_names.push(p.var_names[v].clone());
    let bits = p.var_bits.get(v).copied().unwrap_or(0);
    p.var_bits.push(bits);
    fresh
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
