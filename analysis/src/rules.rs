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

use std::fmt;

use serde::Serialize;
use warpforge_ir::SourceLoc;

use crate::divergence::{divergence, Divergence, Scope};
use crate::facts::{facts, Fact};
use crate::program::{Address, Inst, Location, MaskInfo, Op, Program, Space, Var};
use crate::refine::Refiner;

/// How bad a finding is; in JSON `note`, `warning` or `error`, as it is displayed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Information.
    Note,
    /// May be a bug.
    Warning,
    /// A bug.
    Error,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        })
    }
}

/// One finding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Rule id (`B001`, …).
    pub rule: &'static str,
    /// Rule name (`divergent-barrier`, …).
    pub name: &'static str,
    /// Severity.
    pub severity: Severity,
    /// The kernel.
    pub kernel: String,
    /// Where.
    pub location: Location,
    /// Where in the kernel's source (Rust through `#[warpforge::kernel]`, or what a PTX `.loc` names),
    /// when known: messages print it beside [`Diagnostic::location`].
    pub source: Option<SourceLoc>,
    /// What.
    pub message: String,
    /// Why, outermost first ("divergent because …").
    pub causes: Vec<String>,
    /// Other places with the same finding, reported once here: the "cannot prove" warnings (A001,
    /// S001) of one kernel, rule and array are one finding (see `grouping`). Empty for the rest.
    pub also: Vec<Location>,
}

/// A rule's id, name and one-paragraph explanation.
pub struct RuleDoc {
    /// Id.
    pub id: &'static str,
    /// Name.
    pub name: &'static str,
    /// Explanation.
    pub explanation: &'static str,
}

/// Every rule, for `warpforge lint --explain` and the docs.
pub const RULES: &[RuleDoc] = &[
    RuleDoc { id: "B001", name: "divergent-barrier", explanation: "A block barrier (bar.sync, workgroupBarrier) must be reached by every thread of the block. If a branch on a thread-dependent value, a loop whose trip count differs between threads, or an early return taken by some threads lets part of the block skip it, the block deadlocks or the barrier misbehaves (undefined on CUDA, a validation error for WGSL's own uniformity rules)." },
    RuleDoc { id: "W001", name: "divergent-collective", explanation: "A warp collective (shfl/vote/match/bar.warp.sync) with the full mask 0xffffffff requires all 32 lanes to execute it together. Reached under control flow that depends on the lane (or after some lanes returned), it reads from lanes that are not there: undefined results or a hang. Use a mask of the lanes that really arrive (e.g. from a ballot before the branch) or move the collective out of the branch. A branch on `%tid.x / 32`, or on `%tid.x` against a multiple of 32 (`tid < 32`, `tid > 31`), is uniform within each warp when the block's x-dimension is a multiple of 32: known from `.reqntid`, otherwise assumed for PTX (nearly every launch) — `warpforge lint --no-assume-warp-aligned-blocks` turns the assumption off." },
    RuleDoc { id: "W002", name: "mask-mismatch", explanation: "Every lane that executes a collective must be in its mask, and every lane in the mask must execute it. A partial constant mask on a collective that all lanes reach is an error; a partial mask under divergent control cannot be checked statically and is reported as a warning." },
    RuleDoc { id: "F081", name: "shared-to-global", explanation: "A value loaded from shared memory flows (through moves, casts and arithmetic, across blocks) into a global store. The pattern itself is legal and common. It is reported because an earlier project blamed crashes on it (\"F081\"): the error it saw, code 716, is CUDA_ERROR_MISALIGNED_ADDRESS, and the evidence points at the real causes, which A001 (misaligned access) and S001 (shared bounds) check. On its own it is a note; when those rules fire on the shared loads feeding this store, it says so and carries their severity (error or warning)." },
    RuleDoc { id: "A001", name: "misaligned-access", explanation: "A multi-byte load or store must be aligned to its width (ld.v4.u32 to 16 bytes, a u32 to 4). An address that is provably not a multiple of the width is an error (CUDA_ERROR_MISALIGNED_ADDRESS, code 716); one whose alignment cannot be proven is a warning. Buffer pointers are assumed 256-byte aligned, as cudaMalloc and WebGPU bindings guarantee." },
    RuleDoc { id: "S001", name: "shared-bounds", explanation: "A shared-memory access must stay inside its array. An access whose smallest possible offset is already past the end is an error; one whose largest offset cannot be proven inside is a warning (common for loop counters, which the analysis widens to 'unknown')." },
    RuleDoc { id: "R001", name: "shared-race", explanation: "Two accesses to one shared array, at least one a store, that can run with no barrier between them, where a thread of one warp touches a byte a thread of another warp touches. Warps run in no defined order: without a `bar.sync`/`__syncthreads()` between them the value read depends on scheduling (a tree reduction without its loop barrier, reading `s[tid ^ 32]` right after writing `s[tid]`). Every thread of a block is simulated with its `%tid.x` and the block's `%ntid.x` known, loops iteration by iteration (a loop-carried stride such as `s >>= 1` and a guard such as `tid < s` are followed exactly): a race it proves is an error naming the two accesses, their loop iterations, an example pair of threads and the block sizes it holds for (the declared one, or the x-dimensions checked up to `.maxntid` or 1024 when none is declared). Where the bytes may coincide but the analysis cannot tell — an address or a guard that comes from data — it is a warning saying what could not be followed. Accesses by lanes of one warp (warp-synchronous code), one store instruction run by many threads at one address (a broadcast), and accesses inside branches on data are not reported." },
    RuleDoc { id: "N001", name: "unmodelled", explanation: "The PTX front end met an instruction it does not model. Its results are treated as divergent and unknown, so other rules stay sound but may warn more." },
];

struct Ctx<'p> {
    p: &'p Program,
    block: Divergence<'p>,
    warp: Divergence<'p>,
    facts: Vec<Fact>,
    out: Vec<Diagnostic>,
}

impl Ctx<'_> {
    fn emit(
        &mut self,
        rule: &'static str,
        name: &'static str,
        severity: Severity,
        inst: &Inst,
        message: String,
        causes: Vec<String>,
    ) {
        self.out.push(Diagnostic {
            rule,
            name,
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
    let mut c = Ctx {
        p,
        block: divergence(p, Scope::Block),
        warp: divergence(p, Scope::Warp),
        facts: facts(p),
        out: Vec::new(),
    };
    let tainted = shared_taint(p);
    let facts = c.facts.clone();
    let refined = Refiner::new(p, &facts);
    for node in p.cfg.node_indices() {
        for (i, inst) in p.cfg[node].insts.iter().enumerate() {
            sync_rules(&mut c, node.index(), inst);
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
                    c.emit("F081", "shared-to-global", Severity::Note, inst, "a value loaded from shared memory is stored to global memory (legal; see A001/S001 for the real causes of error 716)".into(), causes);
                }
            }
        }
    }
    for (loc, what) in &p.unknown {
        c.out.push(Diagnostic {
            rule: "N001",
            name: "unmodelled",
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
            "R001",
            "shared-race",
            race.severity,
            race.inst,
            race.message,
            Vec::new(),
        );
    }
    link_f081(&mut c.out);
    c.out
        .sort_by(|a, b| a.location.cmp(&b.location).then(a.rule.cmp(b.rule)));
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
    let real: Vec<(String, &'static str, Severity)> = out
        .iter()
        .filter(|d| d.rule == "A001" || d.rule == "S001")
        .map(|d| (d.location.to_string(), d.rule, d.severity))
        .collect();
    for d in out.iter_mut().filter(|d| d.rule == "F081") {
        let source = d
            .causes
            .first()
            .and_then(|c| c.rsplit("at ").next())
            .unwrap_or_default()
            .to_owned();
        let related: Vec<&(String, &'static str, Severity)> =
            real.iter().filter(|(loc, _, _)| *loc == source).collect();
        let names = |sev: Severity| {
            related
                .iter()
                .filter(|r| r.2 == sev)
                .map(|r| r.1)
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

fn sync_rules(c: &mut Ctx<'_>, block: usize, inst: &Inst) {
    match &inst.op {
        Op::Barrier => {
            if let Some(cause) = divergence_cause(&c.block, block, inst.guard, c.p) {
                c.emit(
                    "B001",
                    "divergent-barrier",
                    Severity::Error,
                    inst,
                    "block barrier reached in divergent control flow".into(),
                    vec![cause],
                );
            }
        }
        Op::Collective { mask, .. } => {
            let cause = divergence_cause(&c.warp, block, inst.guard, c.p);
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
                        "W001",
                        "divergent-collective",
                        Severity::Error,
                        inst,
                        "full-mask warp collective reached in warp-divergent control flow".into(),
                        vec![cause],
                    );
                }
                (MaskInfo::Const(m), None) if *m != u32::MAX => {
                    let msg = format!(
                        "all 32 lanes reach this collective but its mask {m:#010x} names only {}",
                        m.count_ones()
                    );
                    c.emit(
                        "W002",
                        "mask-mismatch",
                        Severity::Error,
                        inst,
                        msg,
                        Vec::new(),
                    );
                }
                (MaskInfo::Const(m), Some(cause)) => {
                    let msg = format!("cannot prove that mask {m:#010x} matches the lanes that reach this collective");
                    c.emit(
                        "W002",
                        "mask-mismatch",
                        Severity::Warning,
                        inst,
                        msg,
                        vec![cause],
                    );
                }
                (MaskInfo::Const(_), None) | (MaskInfo::Var(_), _) => {}
            }
        }
        _ => {}
    }
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
            c.emit("A001", "misaligned-access", Severity::Error, inst, format!("{width}-byte access at {at}, not a multiple of {width} (error 716, CUDA_ERROR_MISALIGNED_ADDRESS)"), Vec::new());
        } else if !known {
            let align = if rem == 0 {
                modulus
            } else {
                1 << rem.trailing_zeros().min(63)
            };
            c.emit("A001", "misaligned-access", Severity::Warning, inst, format!("cannot prove this {width}-byte access is {width}-byte aligned (known alignment: {align})"), Vec::new());
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
                "S001",
                "shared-bounds",
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
            c.emit(
                "S001",
                "shared-bounds",
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
                "S001",
                "shared-bounds",
                Severity::Warning,
                inst,
                format!("cannot prove this access stays inside `{name}` ({size} bytes): {range}"),
                Vec::new(),
            );
        }
    }
}
