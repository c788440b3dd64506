//! The program the divergence analysis reads: every register written in more than one place split
//! by the definitions that reach each use, so a value is divergent only where a definition that can
//! reach it is. `webs.rs` gives each web (definitions reaching a common use, joined) one variable,
//! which every other analysis reads; a web still joins definitions that never meet at a use — a
//! register holding `WARP_SZ` for one loop and, reassigned under a lane-dependent branch, the
//! shuffle distance of a later one (cuda-samples' `reduce7`) — and its uniform uses were divergent
//! because of a definition that cannot reach them.
//!
//! Each definition gets its own variable; a use that one definition reaches reads that definition's
//! variable; a use that several may reach reads a merge variable for that set, written by a copy
//! (`mov`, with the definition's guard) right after each definition of the set. Along any path the
//! last write of the merge variable before the use is the copy of the definition that reached it,
//! so values are unchanged, and the merge variable's definitions are exactly those that can meet at
//! the use: it is divergent when one of them is, or is written under divergent control. A register
//! with a guarded definition that writes its own guard (`@%p1 setp… %p1`) is left whole (the copy's
//! guard would read the new value). Blocks keep their numbers; the copies shift instruction
//! positions, which [`Split::positions`] maps.

use std::collections::HashMap;

use petgraph::graph::NodeIndex;

use crate::program::{Arith, Inst, Op, Program, Terminator, Var};
use crate::reaching::{Reaching, Site};
use crate::webs::{fresh, rename_uses};

/// The registers an instruction reads, each with the definitions reaching it there.
type Uses = Vec<(Var, Vec<usize>)>;

/// A program split by reaching definitions.
pub(crate) struct Split {
    pub program: Program,
    /// Per block, per instruction of the original: its position in the split program.
    pub positions: Vec<Vec<usize>>,
}

/// `p` split by the definitions reaching each use.
pub(crate) fn by_reaching(p: &Program) -> Split {
    let mut p = p.clone();
    let positions = split(&mut p);
    Split {
        program: p,
        positions,
    }
}

fn split(p: &mut Program) -> Vec<Vec<usize>> {
    let r = Reaching::new(p, |sites: &[Site]| {
        sites.iter().any(|&(b, i)| {
            let inst = &p.cfg[NodeIndex::new(b)].insts[i];
            inst.guard.is_some_and(|g| inst.defs.contains(&g))
        })
    });
    let blocks = p.cfg.node_count();
    if r.is_empty() {
        return (0..blocks)
            .map(|b| (0..p.cfg[NodeIndex::new(b)].insts.len()).collect())
            .collect();
    }
    let mut positions = Vec::with_capacity(blocks);
    // The definitions reaching each use (per block, per instruction: (register, definitions)),
    // and reaching each branch condition.
    let mut lists: Vec<Vec<Uses>> = Vec::with_capacity(blocks);
    let mut term_lists: Vec<Option<(Var, Vec<usize>)>> = Vec::with_capacity(blocks);
    for b in 0..blocks {
        let node = NodeIndex::new(b);
        let mut block = Vec::new();
        for (i, inst) in p.cfg[node].insts.iter().enumerate() {
            let mut vars: Vec<Var> = inst.uses.clone();
            vars.extend(inst.guard);
            vars.sort_unstable();
            vars.dedup();
            let here: Vec<(Var, Vec<usize>)> = vars
                .into_iter()
                .filter(|&v| r.splits(v))
                .map(|v| (v, r.reaching(p, v, b, i)))
                .collect();
            block.push(here);
        }
        lists.push(block);
        term_lists.push(match p.cfg[node].term {
            Terminator::Branch { cond, .. } if r.splits(cond) => {
                Some((cond, r.reaching(p, cond, b, usize::MAX)))
            }
            _ => None,
        });
    }
    // Each definition gets its own variable (the first keeps the register's); each use gets the
    // variable of the one definition reaching it, or, where several may, a merge variable for that
    // set, written by a copy after each definition of the set (see the module docs).
    let mut def_var: Vec<Var> = Vec::with_capacity(r.ids.len());
    for (k, &(v, _)) in r.ids.iter().enumerate() {
        def_var.push(if k == r.first_id[v] { v } else { fresh(p, v) });
    }
    let mut merges: HashMap<Vec<usize>, Var> = HashMap::new();
    // Per definition: the merge variables it must also write.
    let mut copies: Vec<Vec<Var>> = vec![Vec::new(); r.ids.len()];
    let mut var_for = |p: &mut Program, v: Var, mut list: Vec<usize>| -> Var {
        list.sort_unstable();
        list.dedup();
        match list[..] {
            [] => v,
            [one] => def_var[one],
            _ => {
                if let Some(&m) = merges.get(&list) {
                    return m;
                }
                let m = fresh(p, v);
                for &id in &list {
                    copies[id].push(m);
                }
                merges.insert(list, m);
                m
            }
        }
    };
    let mut renames: Vec<Vec<Vec<(Var, Var)>>> = Vec::with_capacity(blocks);
    let mut term_renames: Vec<Option<(Var, Var)>> = Vec::with_capacity(blocks);
    for (block, term) in lists.into_iter().zip(term_lists) {
        renames.push(
            block
                .into_iter()
                .map(|here| {
                    here.into_iter()
                        .map(|(v, list)| (v, var_for(p, v, list)))
                        .collect()
                })
                .collect(),
        );
        term_renames.push(term.map(|(c, list)| (c, var_for(p, c, list))));
    }
    for (b, block) in renames.iter().enumerate() {
        let node = NodeIndex::new(b);
        let old = std::mem::take(&mut p.cfg[node].insts);
        let mut insts = Vec::with_capacity(old.len());
        let mut at = Vec::with_capacity(old.len());
        for (i, mut inst) in old.into_iter().enumerate() {
            at.push(insts.len());
            let here = &block[i];
            rename_uses(&mut inst, here);
            let mut after = Vec::new();
            for d in inst.defs.iter_mut() {
                let Some(id) = r.id_of(*d, (b, i)) else {
                    continue;
                };
                *d = def_var[id];
                for &m in &copies[id] {
                    after.push(Inst {
                        loc: inst.loc.clone(),
                        op: Op::Arith(Arith::Mov),
                        defs: vec![m],
                        uses: vec![def_var[id]],
                        guard: inst.guard,
                    });
                }
            }
            insts.push(inst);
            insts.extend(after);
        }
        p.cfg[node].insts = insts;
        positions.push(at);
        if let Some((_, new)) = term_renames[b] {
            if let Terminator::Branch { cond, .. } = &mut p.cfg[node].term {
                *cond = new;
            }
        }
    }
    positions
}
