//! The hazard rules. Each has an id, a name, a severity and an explanation (also in the README's lint
//! section).
//!
//! | id | name | severity | what |
//! |---|---|---|---|
//! | B001 | divergent-barrier | error | a block barrier some threads of the block may not reach |
//! | W001 | divergent-collective | error | a full-mask warp collective some lanes of the warp may not reach |
//! | W002 | mask-mismatch | error / warning | a constant mask that cannot match the lanes that reach the collective |
//! | F081 | shared-to-global | note (or the severity of an A001/S001 on its source load) | a value loaded from shared memory flows into a global store |
//! | A001 | misaligned-access | error / warning | a multi-byte access whose address is (or may not be) aligned to its width |
//! | S001 | shared-bounds | error / warning | a shared access outside (or not provably inside) its array |
//! | R001 | shared-race | error / warning | two warps touch one shared byte, one writing, with no barrier between (or may: warning) |
//! | N001 | unmodelled | note | an instruction the PTX front end does not model (treated conservatively) |

pub use crate::diagnostic::Diagnostic;
use std::collections::HashSet;

use crate::by_reaching::{by_reaching, Split};
use crate::divergence::{divergence_with, Divergence, Scope};
use crate::exits::Skippers;
use crate::facts::{facts, Fact};
use crate::program::{Address, Inst, MaskInfo, Op, Program, Space, Var, WarpAlignment};
use crate::refine::Refiner;
pub use crate::rule::{Rule, Severity};

struct Ctx<'p> {
    p: &'p Program,
    /// `p` split by reaching definitions (`by_reaching.rs`): what the divergence analyses read.
    split: &'p Split,
    skippers: Skippers,
    block: Divergence<'p>,
    warp: Divergence<'p>,
    facts: Vec<Fact>,
    out: Vec<Diagnostic>,
}

impl Ctx<'_> {
    /// The guard of instruction `i` of `block` in the split program.
    fn split_guard(&self, block: usize, i: usize) -> Option<Var> {
        let at = self.split.positions[block][i];
        self.split.program.cfg[petgraph::graph::NodeIndex::new(block)].insts[at].guard
    }

    fn emit(
        &mut self,
        rule: Rule,
        severity: Severity,
        inst: &Inst,
        message: String,
        causes: Vec<String>,
    ) {
        self.out.push(Diagnostic {
            rule,
            severity,
            kernel: self.p.name.clone(),
            location: inst.loc.clone(),
            source: None,
            message,
            causes,
            also: Vec::new(),
        });
    }
}

/// Runs every rule on `p`.
pub fn check(p: &Program) -> Vec<Diagnostic> {
    let facts = facts(p);
    let settled = crate::settled::settled_shared_loads(p, &facts);
    let split = by_reaching(p);
    let settled: HashSet<(usize, usize)> = settled
        .into_iter()
        .map(|(b, i)| (b, split.positions[b][i]))
        .collect();
    let mut c = Ctx {
        p,
        split: &split,
        skippers: Skippers::new(),
        block: divergence_with(&split.program, Scope::Block, &settled),
        warp: divergence_with(&split.program, Scope::Warp, &settled),
        facts,
        out: Vec::new(),
    };
    let tainted = shared_taint(p);
    let facts = c.facts.clone();
    let refined = Refiner::new(p, &facts);
    for node in p.cfg.node_indices() {
        for (i, inst) in p.cfg[node].insts.iter().enumerate() {
            sync_rules(&mut c, node.index(), i, inst);
            let fact = |v: usize| refined.fact(v, node, i);
            if let Op::Load { addr, width, .. } | Op::Store { addr, width, .. } = &inst.op {
                access_rules(&mut c, node.index(), inst, addr, *width, fact);
            }
            if let Op::Atomic { addr } = &inst.op {
                access_rules(&mut c, node.index(), inst, addr, 4, fact);
            }
            if let Op::Store {
                addr:
                    Address {
                        space: Space::Global | Space::Generic,
                        ..
                    },
                values,
                ..
            } = &inst.op
            {
                if let Some(source) = values.iter().find_map(|&v| tainted[v].clone()) {
                    let causes = vec![format!(
                        "the stored value comes from the shared load at {source}"
                    )];
                    c.emit(Rule::F081, Severity::Note, inst, "a value loaded from shared memory is stored to global memory (legal; see A001/S001 for the real causes of error 716)".into(), causes);
                }
            }
        }
    }
    for (loc, what) in &p.unknown {
        c.out.push(Diagnostic {
            rule: Rule::N001,
            severity: Severity::Note,
            kernel: p.name.clone(),
            location: loc.clone(),
            source: None,
            message: format!(
                "`{what}` is not modelled; its results are treated as divergent and unknown"
            ),
            causes: Vec::new(),
            also: Vec::new(),
        });
    }
    for race in crate::race::races(p) {
        c.emit(
            Rule::R001,
            race.severity,
            race.inst,
            race.message,
            Vec::new(),
        );
    }
    link_f081(&mut c.out);
    c.out
        .sort_by(|a, b| a.location.cmp(&b.location).then(a.rule.cmp(&b.rule)));
    let mut out = crate::grouping::group_unproven(c.out);
    for d in &mut out {
        d.source = p.sources.get(&d.location).cloned();
    }
    out
}

/// For each variable, the location of a shared load its value derives from.
fn shared_taint(p: &Program) -> Vec<Option<String>> {
    let mut taint: Vec<Option<String>> = vec![None; p.var_names.len()];
    loop {
        let mut changed = false;
        for b in p.cfg.node_weights() {
            for inst in &b.insts {
                let src = match &inst.op {
                    Op::Load {
                        addr:
                            Address {
                                space: Space::Shared(_),
                                ..
                            },
                        ..
                    } => Some(inst.loc.to_string()),
                    Op::Arith(_) => inst
                        .uses
                        .iter()
                        .find_map(|&u| taint.get(u).cloned().flatten()),
                    // A shuffle moves its source value to another lane.
                    Op::Collective {
                        kind: crate::program::Collective::Shuffle { .. },
                        ..
                    } => inst
                        .uses
                        .first()
                        .and_then(|&u| taint.get(u).cloned().flatten()),
                    _ => None,
                };
                if let Some(src) = src {
                    for &d in &inst.defs {
                        if d < taint.len() && taint[d].is_none() {
                            taint[d] = Some(src.clone());
                            changed = true;
                        }
                    }
                }
            }
        }
        if !changed {
            return taint;
        }
    }
}

/// F081 findings name A001/S001 findings on their source loads.
fn link_f081(out: &mut [Diagnostic]) {
    let real: Vec<(String, Rule, Severity)> = out
        .iter()
        .filter(|d| d.rule == Rule::A001 || d.rule == Rule::S001)
        .map(|d| (d.location.to_string(), d.rule, d.severity))
        .collect();
    for d in out.iter_mut().filter(|d| d.rule == Rule::F081) {
        let source = d
            .causes
            .first()
            .and_then(|c| c.rsplit("at ").next())
            .unwrap_or_default()
            .to_owned();
        let related: Vec<&(String, Rule, Severity)> =
            real.iter().filter(|(loc, _, _)| *loc == source).collect();
        let names = |sev: Severity| {
            related
                .iter()
                .filter(|r| r.2 == sev)
                .map(|r| r.1.code())
                .collect::<Vec<_>>()
                .join(" and ")
        };
        // Alone, the pattern is legal and common: a note. With a finding on its source load, it is as
        // serious as that finding.
        if let Some(worst) = related.iter().map(|r| r.2).max() {
            d.severity = d.severity.max(worst);
        }
        if related.is_empty() {
            d.causes.push("no alignment (A001) or bounds (S001) finding on that load: this pattern alone is legal".into());
        } else if related.iter().any(|r| r.2 == Severity::Error) {
            d.causes.push(format!(
                "the source load also has {} (error): that is the likely real cause",
                names(Severity::Error)
            ));
        } else {
            d.causes.push(format!(
                "the source load also has {} (warning): check it, it cannot be ruled out",
                names(Severity::Warning)
            ));
        }
    }
}

fn divergence_cause(
    d: &Divergence,
    block: usize,
    guard: Option<Var>,
    p: &Program,
) -> Option<String> {
    d.block(block).or_else(|| {
        guard.and_then(|g| {
            d.var(g)
                .map(|c| format!("its guard {} is divergent ({c})", p.var_name(g)))
        })
    })
}

fn sync_rules(c: &mut Ctx<'_>, block: usize, i: usize, inst: &Inst) {
    let guard = c.split_guard(block, i);
    match &inst.op {
        Op::Barrier => {
            if let Some(cause) = divergence_cause(&c.block, block, guard, &c.split.program) {
                // PTX's reading (`exit` releases barriers) is for PTX; the IR's barrier, like
                // WGSL's, must be reached in uniform control flow.
                let ptx = matches!(inst.loc, crate::program::Location::Ptx { .. });
                if ptx && inst.guard.is_none() && c.skippers.only_exit(c.p, block) {
                    c.emit(
                        Rule::B001,
                        Severity::Warning,
                        inst,
                        "block barrier reached in divergent control flow, skipped only by threads \
                         on their way out: the PTX ISA releases a barrier that exited threads hold \
                         up (`exit`, `barrier`), so this runs on NVIDIA GPUs, but the CUDA C++ \
                         Programming Guide makes `__syncthreads()` in conditional code undefined \
                         unless the condition is the same for the whole block"
                            .into(),
                        vec![cause],
                    );
                } else {
                    c.emit(
                        Rule::B001,
                        Severity::Error,
                        inst,
                        "block barrier reached in divergent control flow".into(),
                        vec![cause],
                    );
                }
            }
        }
        Op::Collective { mask, .. } => {
            let cause = divergence_cause(&c.warp, block, guard, &c.split.program);
            // A mask in a register (nvcc always writes `mov.b32 %r, -1; shfl.sync … %r`) is checked
            // like a constant when its value is known: one constant over the whole kernel.
            let mask = match *mask {
                // A 32-bit constant, or -1 written as a 64-bit immediate.
                MaskInfo::Var(v) => match c.facts[v].as_const() {
                    Some(m) if m >> 32 == 0 || m == u64::MAX => MaskInfo::Const(m as u32),
                    _ => MaskInfo::Var(v),
                },
                constant => constant,
            };
            match (&mask, cause) {
                (MaskInfo::Const(u32::MAX), Some(cause)) => {
                    c.emit(
                        Rule::W001,
                        Severity::Error,
                        inst,
                        "full-mask warp collective reached in warp-divergent control flow".into(),
                        vec![cause],
                    );
                }
                (MaskInfo::Const(m), None) if *m != u32::MAX => w002_converged(c, inst, *m),
                (MaskInfo::Const(m), Some(cause)) => {
                    let msg = format!("cannot prove that mask {m:#010x} matches the lanes that reach this collective");
                    c.emit(Rule::W002, Severity::Warning, inst, msg, vec![cause]);
                }
                (MaskInfo::Const(_), None) | (MaskInfo::Var(_), _) => {}
            }
        }
        _ => {}
    }
}

/// W002 for a constant mask at a collective every lane of the warp reaches: which lanes exist decides.
/// With the block's x-dimension declared (`.reqntid`, `--block`), they are known: a block of at
/// least 32 threads has a full warp, a smaller one only its lanes. Without it, a mask that names
/// lanes 0..k (`0xffff`, written for blocks of at most 16 threads) is right for some launches and
/// wrong for others: a warning; one that leaves out lane 0, which always exists, is wrong for all.
fn w002_converged(c: &mut Ctx<'_>, inst: &Inst, m: u32) {
    // All the block's threads: a 16×16 block has full warps although its x-dimension is 16.
    let declared = match c.p.warp_aligned_x {
        WarpAlignment::Known(_) => c.p.block_threads.or(c.p.block_size),
        _ => None,
    };
    let low = m.trailing_ones();
    match declared {
        Some(n) if n < 32 => {
            let lanes = (1u32 << n) - 1;
            if m & lanes != lanes {
                let msg = format!(
                    "the {n} lanes of a block of {n} threads reach this collective but its mask \
                     {m:#010x} leaves out lanes {}",
                    lane_list(lanes & !m)
                );
                c.emit(Rule::W002, Severity::Error, inst, msg, Vec::new());
            }
        }
        Some(n) => {
            let msg = format!(
                "all 32 lanes reach this collective (blocks of {n} threads) but its mask {m:#010x} \
                 names only {}",
                m.count_ones()
            );
            c.emit(Rule::W002, Severity::Error, inst, msg, Vec::new());
        }
        None if low == 0 => {
            let msg = format!(
                "every lane of the warp reaches this collective, lane 0 in every launch, but its \
                 mask {m:#010x} leaves lane 0 out"
            );
            c.emit(Rule::W002, Severity::Error, inst, msg, Vec::new());
        }
        None => {
            let msg = format!(
                "every lane of the warp reaches this collective but its mask {m:#010x} names lanes \
                 0-{}: right for blocks of at most {low} threads, wrong for larger ones; the kernel \
                 does not declare its block size (give it with `--block` or `.reqntid` to decide)",
                low - 1
            );
            c.emit(Rule::W002, Severity::Warning, inst, msg, Vec::new());
        }
    }
}

/// `3, 5, 7` for a lane mask.
fn lane_list(mask: u32) -> String {
    (0..32)
        .filter(|l| mask >> l & 1 == 1)
        .map(|l: u32| l.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// A001 and S001 on one access; `fact` gives a variable's fact at the access.
fn access_rules(
    c: &mut Ctx<'_>,
    block: usize,
    inst: &Inst,
    addr: &Address,
    width: u32,
    fact: impl Fn(usize) -> Fact,
) {
    let width = u64::from(width);
    // The address as (shared array, byte offset range, alignment).
    // The shared array the address space names, and its declared alignment (256: the most any
    // allocation is aligned to, for other spaces).
    let named = match addr.space {
        Space::Shared(a) => a,
        _ => None,
    };
    let named_align = named
        .and_then(|a| c.p.shared.get(a))
        .map_or(256, |s| u64::from(s.align));
    // (shared array, byte offset range, and the offset's congruence: ≡ rem (mod modulus), the modulus
    // at most the base's alignment).
    let (array, lo, hi, modulus, rem, hi_exact) = if let Some(i) = addr.index_var {
        let f = fact(i);
        let e = u64::from(addr.elem_bytes);
        let modulus = named_align.min(f.align.saturating_mul(e));
        let rem = f.rem.wrapping_mul(e) % modulus;
        (
            named,
            f.lo.saturating_mul(e),
            f.hi.saturating_mul(e),
            modulus,
            rem,
            f.hi_exact && f.hi.checked_mul(e).is_some(),
        )
    } else if let Some(v) = addr.byte_var {
        let f = fact(v);
        let off = addr.offset.max(0) as u64;
        let base_align = f
            .base
            .and_then(|a| c.p.shared.get(a))
            .map_or(256, |s| u64::from(s.align));
        let (m, r) = f.plus(off);
        let modulus = base_align.min(m);
        (
            f.base,
            f.lo.saturating_add(off),
            f.hi.saturating_add(off),
            modulus,
            r % modulus,
            f.hi_exact && f.hi.checked_add(off).is_some(),
        )
    } else {
        let off = addr.offset.max(0) as u64;
        (named, off, off, named_align, off % named_align, true)
    };
    if width > 1 {
        let base_ok = array
            .and_then(|a| c.p.shared.get(a))
            .is_none_or(|s| u64::from(s.align) >= width);
        let known = modulus >= width && base_ok;
        if known && rem % width != 0 {
            let at = if lo == hi {
                format!("byte offset {lo}")
            } else {
                format!("a byte offset ≡ {rem} (mod {modulus}) for every thread")
            };
            c.emit(Rule::A001, Severity::Error, inst, format!("{width}-byte access at {at}, not a multiple of {width} (error 716, CUDA_ERROR_MISALIGNED_ADDRESS)"), Vec::new());
        } else if !known {
            let align = if rem == 0 {
                modulus
            } else {
                1 << rem.trailing_zeros().min(63)
            };
            c.emit(Rule::A001, Severity::Warning, inst, format!("cannot prove this {width}-byte access is {width}-byte aligned (known alignment: {align})"), Vec::new());
        }
    }
    if let Some(decl) = array.and_then(|a| c.p.shared.get(a)) {
        if decl.bytes == u64::MAX {
            return; // dynamic shared memory: its size is set at launch
        }
        let name = decl.name.clone();
        let size = decl.bytes;
        if lo.saturating_add(width) > size {
            c.emit(
                Rule::S001,
                Severity::Error,
                inst,
                format!("access at byte {lo} of `{name}` ({size} bytes) is past its end"),
                Vec::new(),
            );
        } else if hi_exact
            && !c.block.block_divergent(block)
            && inst.guard.is_none()
            && hi.saturating_add(width) > size
        {
            // Every thread reaches it (no divergent branch or guard in between), and the largest offset
            // is one some thread really uses (an exact thread-index range).
            c.emit(Rule::S001,
                Severity::Error,
                inst,
                format!(
                    "the threads with the largest index access byte {hi} of `{name}` ({size} bytes), past its end"
                ),
                Vec::new(),
            );
        } else if hi.saturating_add(width) > size {
            let range = if hi == u64::MAX {
                "an unbounded offset".to_owned()
            } else {
                format!("offsets up to {hi}")
            };
            c.emit(
                Rule::S001,
                Severity::Warning,
                inst,
                format!("cannot prove this access stays inside `{name}` ({size} bytes): {range}"),
                Vec::new(),
            );
        }
    }
}
