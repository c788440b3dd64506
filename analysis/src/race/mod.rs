//! R001: a shared-memory race between warps. Two accesses to one shared array, at least one a store,
//! between the same two barriers, by threads of different warps, touching the same byte: warps run in
//! no defined order, so without a barrier the result depends on scheduling.
//!
//! How: every thread of a block is simulated ([`sim`]) with its `%tid.x` and the block's `%ntid.x`
//! known, loops run iteration by iteration (a tree reduction's `s >>= 1` stride and its `tid < s` guard
//! are followed exactly), and each shared access is recorded with its barrier phase, thread, byte
//! offset and loop iteration. [`mod@conflicts`] then pairs accesses of one phase by different warps.
//! - Proved (both accesses run, a common byte) → error, naming the two accesses, their iterations, an
//!   example pair of threads and warps, and the block sizes for which it is proved.
//! - Possible (an offset the simulation cannot follow, or a guard it cannot evaluate, where the bytes
//!   may coincide) → warning, saying what could not be proved.
//!
//! Block sizes: the one the kernel declares (`.reqntid`, the IR); otherwise a list of x-dimensions up
//! to `.maxntid` or CUDA's largest, 1024 (every multiple of 32 to 256, then 384, 512, 768, 1024); the
//! message says which sizes were checked and for which the race is proved. Only the first row of the
//! block is simulated (`%tid.y` = `%tid.z` = 0), whose warps are `%tid.x / 32` whatever the block's
//! shape.
//!
//! Left out (nothing reported): accesses inside a branch on data (stepped over) and after a branch on
//! data that holds a barrier (the thread stops there), accesses after a barrier some threads may not
//! reach, one store instruction run by many threads at one address (a broadcast, usually of one
//! value), non-`.shared` spellings (`ld.volatile.shared` is generic to the front end), atomics, and
//! accesses in device functions.

mod conflicts;
mod shape;
mod sim;

use std::collections::{BTreeMap, HashSet, VecDeque};

use petgraph::graph::NodeIndex;

use crate::program::{Inst, Op, Program, Space, WarpAlignment};
use crate::rules::Severity;
use conflicts::{conflicts, pair_key, Conflict, PairKey};
use shape::Shape;
use sim::{simulate, Access, InstAt};

/// Instructions all threads of all simulated block sizes may run for one kernel, together.
const STEPS_PER_KERNEL: u64 = 1 << 21;

/// The largest block x-dimension CUDA allows.
const MAX_BLOCK_X: u32 = 1024;

/// The block x-dimensions simulated when the kernel does not declare one: every multiple of 32 up to
/// 256 (the common sizes), then 384, 512, 768 and 1024.
const CHECKED: [u32; 11] = [64, 96, 128, 160, 192, 224, 256, 384, 512, 768, 1024];

/// One R001 finding.
pub(crate) struct Finding<'p> {
    /// Where it is reported: the later of the two accesses.
    pub inst: &'p Inst,
    /// Error when proved, warning when possible.
    pub severity: Severity,
    /// What races with what, and for which block sizes.
    pub message: String,
}

/// The block x-dimensions to simulate, and how they were chosen (for messages).
enum Sizes {
    /// The kernel declares it (`.reqntid`, the IR's block size).
    Declared(u32),
    /// The sizes of [`CHECKED`] up to a bound (and the bound): `.maxntid`, or CUDA's largest.
    UpTo { bound: u32, maxntid: bool },
}

impl Sizes {
    fn of(p: &Program) -> Sizes {
        match (p.block_size, p.warp_aligned_x) {
            (Some(n), WarpAlignment::Known(_)) => Sizes::Declared(n),
            (Some(n), _) => Sizes::UpTo {
                bound: n.min(MAX_BLOCK_X),
                maxntid: true,
            },
            (None, _) => Sizes::UpTo {
                bound: MAX_BLOCK_X,
                maxntid: false,
            },
        }
    }

    fn list(&self) -> Vec<u32> {
        match *self {
            Sizes::Declared(n) => vec![n],
            Sizes::UpTo { bound, .. } => {
                let mut list: Vec<u32> = CHECKED.iter().copied().filter(|&n| n <= bound).collect();
                if list.last().is_none_or(|&n| n < bound) && bound > 32 {
                    list.push(bound);
                }
                list
            }
        }
    }

    /// "in a block of 256 threads (…)", "for every block x-dimension from 128 to 1024 …".
    fn describe(&self, proved: &[u32], checked: &[u32], example: u32) -> String {
        let (bound, maxntid) = match *self {
            Sizes::Declared(n) => {
                return format!("in a block of {n} threads (the block size the kernel declares)")
            }
            Sizes::UpTo { bound, maxntid } => (bound, maxntid),
        };
        let why = if maxntid {
            format!("the kernel declares at most {bound} threads (`.maxntid`), not its block size")
        } else {
            "the kernel does not declare its block size".to_owned()
        };
        let first = proved.first().copied().unwrap_or(example);
        let suffix: Vec<u32> = checked.iter().copied().filter(|&n| n >= first).collect();
        let which = if proved == suffix && proved.len() > 1 {
            format!(
                "for every block x-dimension checked from {first} to {} threads",
                suffix.last().copied().unwrap_or(first)
            )
        } else {
            format!("for a block x-dimension of {} threads", names(proved))
        };
        format!(
            "{which} ({why}; checked: {}; the example is for {example} threads)",
            names(checked)
        )
    }
}

/// `sizes` as `64, 96, 128`.
fn names(sizes: &[u32]) -> String {
    sizes
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The checked sizes for which the race is not proved.
fn not_proved(proved: &[u32], checked: &[u32]) -> Vec<u32> {
    checked
        .iter()
        .copied()
        .filter(|n| !proved.contains(n))
        .collect()
}

/// Whether `i` is a shared load or store.
fn shared_access(i: &Inst) -> bool {
    match &i.op {
        Op::Load { addr, .. } | Op::Store { addr, .. } => matches!(addr.space, Space::Shared(_)),
        _ => false,
    }
}

fn shared_store(i: &Inst) -> bool {
    shared_access(i) && matches!(i.op, Op::Store { .. })
}

/// Whether instruction `k` of `node` reaches an instruction `wanted` on a path with no barrier.
fn reaches(p: &Program, node: NodeIndex, k: usize, wanted: fn(&Inst) -> bool) -> bool {
    // `Some(found)` when the block settles it, `None` when the path goes on through it.
    let scan = |insts: &[Inst]| {
        insts
            .iter()
            .find(|i| wanted(i) || matches!(i.op, Op::Barrier))
            .map(wanted)
    };
    if let Some(found) = scan(&p.cfg[node].insts[k + 1..]) {
        return found;
    }
    let mut queue: VecDeque<NodeIndex> = p.cfg.neighbors(node).collect();
    let mut seen = HashSet::new();
    while let Some(n) = queue.pop_front() {
        if !seen.insert(n) {
            continue;
        }
        match scan(&p.cfg[n].insts) {
            Some(true) => return true,
            Some(false) => {}
            None => queue.extend(p.cfg.neighbors(n)),
        }
    }
    false
}

/// Whether some shared access reaches another (or itself, around a loop) on a path with no barrier,
/// one of them a store: otherwise there is nothing to simulate.
fn has_candidates(p: &Program) -> bool {
    p.cfg.node_indices().any(|node| {
        p.cfg[node].insts.iter().enumerate().any(|(k, i)| {
            (shared_store(i) && reaches(p, node, k, shared_access))
                || (shared_access(i) && reaches(p, node, k, shared_store))
        })
    })
}

/// A pair of instructions over all simulated block sizes.
#[derive(Default)]
struct Pair {
    proved: Vec<u32>,
    possible: Vec<u32>,
    example: Option<(u32, Conflict)>,
}

fn inst(p: &Program, at: InstAt) -> Option<&Inst> {
    p.cfg
        .node_weight(NodeIndex::new(at.0 as usize))?
        .insts
        .get(at.1 as usize)
}

/// Program order, loop iterations first: the later of two accesses is where a finding goes.
fn position(a: &Access) -> (u32, InstAt) {
    (a.iteration.map_or(0, |(_, k)| k), a.at)
}

fn verb(a: &Access) -> &'static str {
    if a.store {
        "writes"
    } else {
        "reads"
    }
}

/// " in iteration 2 of the loop at line 55, column 2", or nothing outside loops.
fn iteration(p: &Program, a: &Access) -> String {
    let Some((header, k)) = a.iteration else {
        return String::new();
    };
    let at = p
        .cfg
        .node_weight(NodeIndex::new(header as usize))
        .and_then(|b| b.insts.first())
        .map_or(String::new(), |i| format!(" of the loop at {}", i.loc));
    format!(" in iteration {k}{at}")
}

/// What the analysis cannot tell about an access of a possible conflict: which bytes it touches (an
/// address it cannot follow), whether the thread runs it (a guard it cannot evaluate).
fn unproved(p: &Program, a: &Access) -> Vec<String> {
    let Some(i) = inst(p, a.at) else {
        return Vec::new();
    };
    let what = if a.store { "store" } else { "load" };
    let mut why = Vec::new();
    if a.offset.is_none() {
        let var = match &i.op {
            Op::Load { addr, .. } | Op::Store { addr, .. } => addr.byte_var.or(addr.index_var),
            _ => None,
        };
        let var = var.map_or("?", |v| p.var_name(v));
        why.push(format!(
            "which bytes the {what} at {} touches (its address {var} comes from values it cannot follow)",
            i.loc
        ));
    }
    if !a.certain {
        let guard = i.guard.map_or("?", |g| p.var_name(g));
        why.push(format!(
            "whether thread {} runs the {what} at {} (its guard {guard} comes from values it cannot follow)",
            a.thread, i.loc
        ));
    }
    why
}

fn message(p: &Program, c: &Conflict, sizes: String) -> String {
    let (first, later) = if position(&c.a) <= position(&c.b) {
        (&c.a, &c.b)
    } else {
        (&c.b, &c.a)
    };
    let name = p.shared.get(first.array).map_or("?", |s| s.name.as_str());
    let loc = inst(p, first.at).map_or(String::new(), |i| i.loc.to_string());
    let (t, u) = (later.thread, first.thread);
    let head = match c.byte {
        Some(byte) => format!(
            "thread {t} (warp {}) {} byte {byte} of `{name}`{}, which thread {u} (warp {}) {} at {loc}{}, with no barrier in between",
            t / 32, verb(later), iteration(p, later), u / 32, verb(first), iteration(p, first)
        ),
        None => format!(
            "thread {t} (warp {}) {} `{name}`{}, and thread {u} (warp {}) {} it at {loc}{}, with no barrier in between",
            t / 32, verb(later), iteration(p, later), u / 32, verb(first), iteration(p, first)
        ),
    };
    if c.proved {
        format!("{head}: a race between warps, proved {sizes}")
    } else {
        let mut why = unproved(p, later);
        why.extend(unproved(p, first));
        format!(
            "{head}: a possible race between warps, not proved: the analysis cannot tell {}; seen {sizes}",
            why.join(", nor ")
        )
    }
}

/// R001 findings for one kernel.
pub(crate) fn races(p: &Program) -> Vec<Finding<'_>> {
    if p.block_size.is_some_and(|n| n <= 32) || !has_candidates(p) {
        return Vec::new(); // one warp, or no store followed by an access without a barrier
    }
    let shape = Shape::of(p);
    let sizes = Sizes::of(p);
    let mut budget = STEPS_PER_KERNEL;
    let mut checked = Vec::new();
    let mut pairs: BTreeMap<PairKey, Pair> = BTreeMap::new();
    for n in sizes.list() {
        let Some(run) = simulate(p, &shape, n, &mut budget) else {
            break; // out of steps: the sizes checked so far stand
        };
        checked.push(n);
        for c in conflicts(&run) {
            let pair = pairs.entry(pair_key(&c.a, &c.b)).or_default();
            let keep = match &pair.example {
                None => true,
                Some((_, old)) => c.proved && !old.proved,
            };
            if c.proved {
                pair.proved.push(n);
            } else {
                pair.possible.push(n);
            }
            if keep {
                pair.example = Some((n, c));
            }
        }
    }
    let mut found: Vec<Finding<'_>> = Vec::new();
    let mut reported: HashSet<InstAt> = HashSet::new();
    let ordered = pairs
        .values()
        .filter(|q| !q.proved.is_empty())
        .chain(pairs.values().filter(|q| q.proved.is_empty()));
    for pair in ordered {
        let Some((n, c)) = &pair.example else {
            continue;
        };
        let later = if position(&c.a) <= position(&c.b) {
            &c.b
        } else {
            &c.a
        };
        let Some(at) = inst(p, later.at) else {
            continue;
        };
        if !reported.insert(later.at) {
            continue;
        }
        let seen = if c.proved {
            &pair.proved
        } else {
            &pair.possible
        };
        // An error is a proof for the launch: the declared block size, or every block size the
        // kernel admits (all those checked). A race proved for some sizes only is a warning that
        // names them: the launch the kernel is used with decides.
        let for_every_launch =
            matches!(sizes, Sizes::Declared(_)) || checked.iter().all(|n| pair.proved.contains(n));
        let mut text = message(p, c, sizes.describe(seen, &checked, *n));
        if c.proved && !for_every_launch {
            text.push_str(&format!(
                "; not for a block of {} threads: give the launch's block size (`--block`, or \
                 `.reqntid`) to decide",
                names(&not_proved(&pair.proved, &checked))
            ));
        }
        found.push(Finding {
            inst: at,
            severity: if c.proved && for_every_launch {
                Severity::Error
            } else {
                Severity::Warning
            },
            message: text,
        });
    }
    found
}
