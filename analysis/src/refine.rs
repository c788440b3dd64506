//! Flow-sensitive refinement of the value facts at one program point.
//!
//! [`crate::facts`] gives one fact per variable, valid everywhere. Two things sharpen it where an
//! access happens:
//! - **Branch conditions.** On the edge `A → S` of a branch on `p = x < y` (or `≤`, `>`, `≥`) — when
//!   `S` has no other predecessor — `x` and `y` are bounded in every block `S` dominates. The bound
//!   also reaches back through the single-definition moves, constant additions and shifts that made
//!   `x` (`x = t + 256; t < ...`). A variable with several definitions (a loop counter) keeps the bound
//!   only inside `S`, up to its first redefinition.
//! - **Re-evaluation.** A variable with one definition that dominates the point is recomputed from its
//!   operands' refined facts: `%r3 = s + 4·tid` computed before `if (tid < 128)` is bounded inside it.
//!   Only single-definition operands are refined (a loop counter's value at the point may not be the
//!   one the definition read).

use petgraph::algo::dominators::simple_fast;
use petgraph::graph::NodeIndex;
use petgraph::Direction;

use crate::facts::{arith, Fact};
use crate::program::{Arith, Cmp, Op, Program, Terminator, Var};

/// How many definitions deep re-evaluation goes.
const DEPTH: u32 = 6;

/// The most (multi-definition variables × blocks) the entry-state fixpoint is computed for.
const FLOW_LIMIT: usize = 1 << 20;

/// Rounds of the entry-state fixpoint before giving up on it.
const ROUNDS: usize = 8;

/// A bound `lo ≤ v ≤ hi` on a variable's value.
#[derive(Clone, Copy, Debug)]
struct Bound {
    var: Var,
    lo: u64,
    hi: u64,
}

/// Refined facts for one program.
pub struct Refiner<'p> {
    p: &'p Program,
    facts: &'p [Fact],
    /// Each variable's only definition, `(block, instruction)`, when it has exactly one and it is not
    /// guarded.
    single: Vec<Option<(NodeIndex, usize)>>,
    /// Bounds on single-definition variables the edge into each block establishes (they hold in every
    /// block it dominates).
    own: Vec<Vec<Bound>>,
    /// Per block, the nearest block dominating it (itself included) with bounds of its own.
    chain_start: Vec<Option<NodeIndex>>,
    /// Per block with bounds of its own, the nearest strict dominator with bounds of its own.
    chain_next: Vec<Option<NodeIndex>>,
    /// Bounds on variables with several definitions established on entry to each block, valid until
    /// the block redefines them.
    local: Vec<Vec<Bound>>,
    /// Each variable with several definitions (or a guarded one): its index in `flow_in`'s rows.
    multi: Vec<Option<usize>>,
    /// Per block, the facts of the multi-definition variables on entry (joined over the incoming
    /// edges, each refined by its branch condition; empty when not computed).
    flow_in: Vec<Vec<Fact>>,
    /// Pre- and post-order numbers in the dominator tree (`a` dominates `b` iff `a`'s interval
    /// contains `b`'s).
    order: Vec<(usize, usize)>,
    /// Per block, `(instruction, variable)` for each definition of a multi-definition variable, in
    /// order.
    multi_defs: Vec<Vec<(usize, Var)>>,
}

impl<'p> Refiner<'p> {
    /// Builds the branch bounds of `p` over its flow-insensitive `facts`.
    pub fn new(p: &'p Program, facts: &'p [Fact]) -> Self {
        let n = p.cfg.node_count();
        let mut defs = vec![0u32; facts.len()];
        let mut single = vec![None; facts.len()];
        for b in p.cfg.node_indices() {
            for (i, inst) in p.cfg[b].insts.iter().enumerate() {
                for &d in &inst.defs {
                    if let Some(c) = defs.get_mut(d) {
                        *c += if inst.guard.is_some() { 2 } else { 1 };
                        single[d] = Some((b, i));
                    }
                }
            }
        }
        let mut multi = vec![None; facts.len()];
        let mut count = 0;
        for ((s, m), &c) in single.iter_mut().zip(multi.iter_mut()).zip(&defs) {
            if c != 1 {
                *s = None;
            }
            if c > 1 {
                *m = Some(count);
                count += 1;
            }
        }
        let dom = simple_fast(&p.cfg, p.entry);
        let mut r = Refiner {
            p,
            facts,
            single,
            own: vec![Vec::new(); n],
            chain_start: vec![None; n],
            chain_next: vec![None; n],
            local: vec![Vec::new(); n],
            order: vec![(usize::MAX, 0); n],
            multi,
            flow_in: vec![Vec::new(); n],
            multi_defs: vec![Vec::new(); n],
        };
        for b in p.cfg.node_indices() {
            for (i, inst) in p.cfg[b].insts.iter().enumerate() {
                for &d in &inst.defs {
                    if r.multi.get(d).is_some_and(Option::is_some) {
                        r.multi_defs[b.index()].push((i, d));
                    }
                }
            }
        }
        // Number the dominator tree (pre- and post-order), keeping the pre-order.
        let mut children = vec![Vec::new(); n];
        for b in p.cfg.node_indices() {
            if let Some(d) = dom.immediate_dominator(b) {
                children[d.index()].push(b);
            }
        }
        let mut preorder = Vec::with_capacity(n);
        let mut counter = 0;
        let mut stack = vec![(p.entry, false)];
        while let Some((b, done)) = stack.pop() {
            if done {
                r.order[b.index()].1 = counter;
                counter += 1;
                continue;
            }
            r.order[b.index()].0 = counter;
            counter += 1;
            preorder.push(b);
            stack.push((b, true));
            stack.extend(children[b.index()].iter().map(|&c| (c, false)));
        }
        // The bounds of each edge that is the only way into its target (ignoring unreachable blocks,
        // such as the empty block after a `break`).
        for &s in &preorder {
            let mut preds = p
                .cfg
                .neighbors_directed(s, Direction::Incoming)
                .filter(|&a| r.order[a.index()].0 != usize::MAX);
            let (Some(a), None) = (preds.next(), preds.next()) else {
                continue;
            };
            for b in r.edge_bounds(a, s) {
                if r.single.get(b.var).is_some_and(Option::is_some) {
                    r.own[s.index()].push(b);
                } else {
                    r.local[s.index()].push(b);
                }
            }
        }
        // Chain the blocks with bounds up the dominator tree (the pre-order visits a block's
        // dominators first).
        for &b in &preorder {
            let above = dom
                .immediate_dominator(b)
                .filter(|&d| d != b)
                .and_then(|d| r.chain_start[d.index()]);
            if r.own[b.index()].is_empty() {
                r.chain_start[b.index()] = above;
            } else {
                r.chain_start[b.index()] = Some(b);
                r.chain_next[b.index()] = above;
            }
        }
        r.flow(&preorder, count);
        r
    }

    /// The fact of `v` just before instruction `idx` of block `at`.
    pub fn fact(&self, v: Var, at: NodeIndex, idx: usize) -> Fact {
        self.eval(v, at, idx, DEPTH)
    }

    /// `v`'s width in bits (0: unknown).
    fn bits(&self, v: Var) -> u8 {
        self.p.var_bits.get(v).copied().unwrap_or(0)
    }

    fn dominates(&self, a: NodeIndex, b: NodeIndex) -> bool {
        let (x, y) = (self.order[a.index()], self.order[b.index()]);
        x.0 != usize::MAX && y.0 != usize::MAX && x.0 <= y.0 && y.1 <= x.1
    }

    fn eval(&self, v: Var, at: NodeIndex, idx: usize, depth: u32) -> Fact {
        let Some(&f) = self.facts.get(v) else {
            return crate::facts::TOP;
        };
        let Some(m) = self.multi.get(v).copied().flatten() else {
            return self.eval_single(v, f, at, idx, depth);
        };
        // The block's last definition before `idx`, if any.
        let last = self.multi_defs[at.index()]
            .iter()
            .rev()
            .find(|&&(j, d)| d == v && j < idx)
            .map(|&(j, _)| j);
        match last {
            // The value that definition gave.
            Some(j) if depth > 0 => meet(f, self.def_value(v, at, j, depth - 1)),
            Some(_) => f,
            // The value on entry, and what the edge into the block says of it.
            None => {
                let mut f = match self.flow_in[at.index()].get(m) {
                    Some(&g) => meet(f, g),
                    None => f,
                };
                for b in self.local[at.index()].iter().filter(|b| b.var == v) {
                    f = clamp(f, b.lo, b.hi);
                }
                f
            }
        }
    }

    /// [`Self::eval`] for a variable with at most one definition: `f` re-evaluated from it.
    fn eval_single(&self, v: Var, mut f: Fact, at: NodeIndex, idx: usize, depth: u32) -> Fact {
        let mut link = self.chain_start[at.index()];
        while let Some(c) = link {
            for b in self.own[c.index()].iter().filter(|b| b.var == v) {
                f = clamp(f, b.lo, b.hi);
            }
            link = self.chain_next[c.index()];
        }
        let Some((db, di)) = self.single.get(v).copied().flatten() else {
            return f;
        };
        let visible = if db == at {
            di < idx
        } else {
            self.dominates(db, at)
        };
        if depth == 0 || !visible {
            return f;
        }
        let inst = &self.p.cfg[db].insts[di];
        let Op::Arith(op) = inst.op else {
            return f;
        };
        // A single-definition operand has the same value here as at the definition; any other is
        // taken at the definition.
        let operand = |u: Var| {
            if self.single.get(u).is_some_and(Option::is_some) {
                self.eval(u, at, idx, depth - 1)
            } else {
                self.eval(u, db, di, depth - 1)
            }
        };
        let Some(&a) = inst.uses.first() else {
            return f;
        };
        let again =
            arith(op, operand(a), inst.uses.get(1).map(|&b| operand(b))).wrapped(self.bits(v));
        meet(f, again)
    }

    /// The value `v` has right after instruction `j` of block `at` (one of its definitions).
    fn def_value(&self, v: Var, at: NodeIndex, j: usize, depth: u32) -> Fact {
        let inst = &self.p.cfg[at].insts[j];
        let value = match (&inst.op, inst.uses.first(), inst.defs.as_slice()) {
            (Op::Arith(op), Some(&a), [_]) => arith(
                *op,
                self.eval(a, at, j, depth),
                inst.uses.get(1).map(|&b| self.eval(b, at, j, depth)),
            )
            .wrapped(self.bits(v)),
            (Op::Const(c), _, [_]) => arith(Arith::Mov, crate::facts::constant(*c), None),
            _ => self.facts.get(v).copied().unwrap_or(crate::facts::TOP),
        };
        if inst.guard.is_some() {
            // Where the guard fails, the old value stays.
            value.join(self.eval(v, at, j, depth))
        } else {
            value
        }
    }

    /// The entry facts of the multi-definition variables: a forward fixpoint over the blocks, each
    /// edge refined by its branch condition, a bound still growing after three rounds widened. Left
    /// empty (the flow-insensitive facts stand) when the program is too large or it does not settle.
    fn flow(&mut self, preorder: &[NodeIndex], count: usize) {
        if count == 0 || count.saturating_mul(preorder.len()) > FLOW_LIMIT {
            return;
        }
        let n = self.p.cfg.node_count();
        let mut order: Vec<NodeIndex> =
            petgraph::algo::toposort(&self.p.cfg, None).unwrap_or_else(|_| {
                let mut dfs = petgraph::visit::DfsPostOrder::new(&self.p.cfg, self.p.entry);
                let mut post = Vec::new();
                while let Some(b) = dfs.next(&self.p.cfg) {
                    post.push(b);
                }
                post.reverse();
                post
            });
        order.retain(|b| self.order[b.index()].0 != usize::MAX);
        let vars: Vec<Var> = (0..self.multi.len())
            .filter(|&v| self.multi[v].is_some())
            .collect();
        // `flow_in` holds the states so far (empty: not reached yet); eval reads it.
        self.flow_in[self.p.entry.index()] = vec![crate::facts::TOP; count];
        for round in 0..ROUNDS {
            let mut changed = false;
            for &b in &order {
                if b == self.p.entry {
                    continue;
                }
                let mut joined: Option<Vec<Fact>> = None;
                for a in self.p.cfg.neighbors_directed(b, Direction::Incoming) {
                    let Some(out) = self.out_state(a, b, &vars) else {
                        continue;
                    };
                    joined = Some(match joined {
                        None => out,
                        Some(j) => j.iter().zip(&out).map(|(x, y)| x.join(*y)).collect(),
                    });
                }
                let Some(mut new) = joined else { continue };
                let old = &self.flow_in[b.index()];
                if !old.is_empty() {
                    if round >= 3 {
                        for (x, o) in new.iter_mut().zip(old) {
                            if x.hi > o.hi {
                                x.hi = u64::MAX;
                                x.hi_exact = false;
                            }
                            if x.lo < o.lo {
                                x.lo = 0;
                            }
                        }
                    }
                    if *old == new {
                        continue;
                    }
                }
                self.flow_in[b.index()] = new;
                changed = true;
            }
            if !changed {
                return;
            }
        }
        self.flow_in = vec![Vec::new(); n];
    }

    /// The multi-definition variables' facts leaving `a` along the edge to `b`, from the entry states
    /// so far (`None` while `a` has none).
    fn out_state(&self, a: NodeIndex, b: NodeIndex, vars: &[Var]) -> Option<Vec<Fact>> {
        let entry = &self.flow_in[a.index()];
        if entry.is_empty() {
            return None;
        }
        let bounds = self.edge_bounds(a, b);
        Some(
            vars.iter()
                .zip(entry)
                .map(|(&v, &in_fact)| {
                    let last = self.multi_defs[a.index()]
                        .iter()
                        .rev()
                        .find(|&&(_, d)| d == v)
                        .map(|&(j, _)| j);
                    let mut f = match last {
                        Some(j) => self.def_value(v, a, j, DEPTH),
                        None => in_fact,
                    };
                    for bd in bounds.iter().filter(|bd| bd.var == v) {
                        f = clamp(f, bd.lo, bd.hi);
                    }
                    f
                })
                .collect(),
        )
    }

    /// The bounds the edge `a → s` establishes (empty unless `a` branches on an ordered comparison).
    fn edge_bounds(&self, a: NodeIndex, s: NodeIndex) -> Vec<Bound> {
        let Terminator::Branch { cond, .. } = self.p.cfg[a].term else {
            return Vec::new();
        };
        let Some((taken, when)) = self.p.taken.get(a.index()).copied().flatten() else {
            return Vec::new();
        };
        let holds = if s == taken { when } else { !when };
        let Some((db, di)) = self.single.get(cond).copied().flatten() else {
            return Vec::new();
        };
        let inst = &self.p.cfg[db].insts[di];
        let (Op::Arith(Arith::Cmp(cmp, signed)), [x, y], [_]) =
            (&inst.op, inst.uses.as_slice(), inst.defs.as_slice())
        else {
            return Vec::new();
        };
        // An operand with several definitions must still hold the compared value at the branch:
        // compared in the branching block itself and not redefined after.
        let holds_value = |v: Var| {
            self.single.get(v).is_some_and(Option::is_some)
                || (db == a
                    && !self.p.cfg[a].insts[di + 1..]
                        .iter()
                        .any(|i| i.defs.contains(&v)))
        };
        if !holds_value(*x) || !holds_value(*y) {
            return Vec::new();
        }
        let (fx, fy) = (self.facts[*x], self.facts[*y]);
        if fx.base.is_some() || fy.base.is_some() {
            return Vec::new();
        }
        // A signed comparison orders values as unsigned ones only when both are non-negative.
        if *signed && (fx.hi >= 1 << 31 || fy.hi >= 1 << 31) {
            return Vec::new();
        }
        // Normalise to `x < y` or `x <= y` (swapping the operands for > and >=); `x == y` bounds each
        // side by the other's range, `x != y` bounds nothing.
        let cmp = if holds { *cmp } else { negate(*cmp) };
        let mut out = Vec::new();
        let (lo_side, hi_side, strict, fl, fh) = match cmp {
            Cmp::Lt => (*x, *y, true, fx, fy),
            Cmp::Le => (*x, *y, false, fx, fy),
            Cmp::Gt => (*y, *x, true, fy, fx),
            Cmp::Ge => (*y, *x, false, fy, fx),
            Cmp::Eq => {
                out.push(Bound {
                    var: *x,
                    lo: fy.lo,
                    hi: fy.hi,
                });
                out.push(Bound {
                    var: *y,
                    lo: fx.lo,
                    hi: fx.hi,
                });
                return self.carried_back(out);
            }
            Cmp::Ne => return Vec::new(),
        };
        let gap = u64::from(strict);
        if let Some(hi) = fh.hi.checked_sub(gap) {
            out.push(Bound {
                var: lo_side,
                lo: 0,
                hi,
            });
        }
        if let Some(lo) = fl.lo.checked_add(gap) {
            out.push(Bound {
                var: hi_side,
                lo,
                hi: u64::MAX,
            });
        }
        self.carried_back(out)
    }

    /// `out` plus the bounds it implies on the operands of their variables' definitions.
    fn carried_back(&self, mut out: Vec<Bound>) -> Vec<Bound> {
        let mut k = 0;
        while k < out.len() && out.len() < 16 {
            if let Some(b) = self.through_definition(out[k]) {
                out.push(b);
            }
            k += 1;
        }
        out
    }

    /// A bound on `b.var` carried back to the single operand its definition moves, offsets or shifts.
    fn through_definition(&self, b: Bound) -> Option<Bound> {
        let (db, di) = self.single.get(b.var).copied().flatten()?;
        let inst = &self.p.cfg[db].insts[di];
        let Op::Arith(op) = inst.op else {
            return None;
        };
        let konst = |u: Option<&Var>| u.and_then(|&u| self.facts.get(u)).and_then(Fact::as_const);
        let (&t, k) = (inst.uses.first()?, konst(inst.uses.get(1)));
        // Only a single-definition operand still has the value the definition read.
        self.single.get(t).copied().flatten()?;
        // The result must not have wrapped (or been truncated) in `b.var`'s width: then `x = t + k`,
        // `x = t << s` and `x = t` hold as plain numbers and invert.
        let th = self.facts[t].hi;
        let fits = |v: u64| {
            let bits = self.bits(b.var);
            bits == 0 || bits >= 64 || v < 1 << bits
        };
        let (lo, hi) = match (op, k) {
            (Arith::Mov, _) if inst.uses.len() == 1 && fits(th) => (b.lo, b.hi),
            (Arith::Add, Some(k)) if k < 1 << 63 && th.checked_add(k).is_some_and(fits) => {
                (b.lo.saturating_sub(k), b.hi.checked_sub(k)?)
            }
            (Arith::Shl, Some(s)) if s < 64 && th.leading_zeros() >= s as u32 && fits(th << s) => {
                (b.lo.div_ceil(1 << s), b.hi >> s)
            }
            _ => return None,
        };
        Some(Bound { var: t, lo, hi })
    }
}

fn negate(c: Cmp) -> Cmp {
    match c {
        Cmp::Lt => Cmp::Ge,
        Cmp::Le => Cmp::Gt,
        Cmp::Gt => Cmp::Le,
        Cmp::Ge => Cmp::Lt,
        Cmp::Eq => Cmp::Ne,
        Cmp::Ne => Cmp::Eq,
    }
}

/// `f` restricted to `[lo, hi]` (unchanged for addresses, or when the bound contradicts it: then the
/// point is unreachable under it and nothing is gained).
fn clamp(f: Fact, lo: u64, hi: u64) -> Fact {
    let (nlo, nhi) = (f.lo.max(lo), f.hi.min(hi));
    if f.base.is_some() || nlo > nhi {
        return f;
    }
    Fact {
        lo: nlo,
        hi: nhi,
        hi_exact: f.hi_exact && nhi == f.hi,
        ..f
    }
    .tightened()
}

/// What both facts (each true of the same value) say.
fn meet(f: Fact, g: Fact) -> Fact {
    if f.base != g.base {
        return if f.base.is_none() && g.base.is_some() {
            g
        } else {
            f
        };
    }
    let (lo, hi) = (f.lo.max(g.lo), f.hi.min(g.hi));
    if lo > hi {
        return f;
    }
    let (align, rem) = if g.align > f.align && g.rem % f.align == f.rem {
        (g.align, g.rem)
    } else {
        (f.align, f.rem)
    };
    Fact {
        base: f.base,
        lo,
        hi,
        align,
        rem,
        hi_exact: (hi == f.hi && f.hi_exact) || (hi == g.hi && g.hi_exact),
    }
}
