//! Block-level uniformity over the structured IR: which values are the same in every thread of a block,
//! and whether every barrier and warp collective is reached by the whole block.
//!
//! This is the check the WGSL back end needs (WebGPU barriers must be workgroup-uniform, and warp
//! collectives are emulated with barriers there). naga 30 records barrier uniformity requirements but
//! does not reject violations, so warpforge checks them itself.
//!
//! The analysis is conservative: what it calls uniform is uniform.
//! - Uniform: literals, scalar parameters, block index / size, grid size, warp size; the warp index when
//!   the block is one warp; pure operations on uniform values; loads from read-only global buffers at a
//!   uniform index; ballot and vote results when the block is one warp (they are warp-uniform), and
//!   `shuffle idx` from a uniform lane there (a broadcast).
//! - Divergent: thread index and lane id; loads from writable or shared memory; atomics; shuffles and
//!   match results; locals that are ever assigned a divergent value or assigned under divergent control.
//! - Control becomes divergent inside an `if` on a divergent condition, inside a loop whose `break`,
//!   `continue` or `return` may be taken by only some threads (a divergent trip count), and for the rest
//!   of the kernel after a `return` that only some threads take.

use std::fmt;

use warpforge_ir::{Expr, Kernel, MemRef, ParamKind, Special, Stmt, Value, Verified, WarpOp};

/// A barrier or warp collective that some threads of a block may skip.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DivergentSync {
    /// The statement path of the barrier or collective (`body[7].then[0]`).
    pub path: String,
    /// What it is (`barrier`, `shuffle`, …).
    pub what: &'static str,
    /// Why control is divergent there.
    pub cause: String,
}

impl fmt::Display for DivergentSync {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} in block-divergent control flow: {}",
            self.path, self.what, self.cause
        )
    }
}

/// Which threads must agree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scope {
    /// All threads of a block.
    Block,
    /// The 32 lanes of each warp.
    Warp,
}

/// Checks that every barrier and warp collective of `kernel` is reached by all threads of a block.
pub fn check_block_uniform_sync(kernel: &Verified<'_>) -> Result<(), DivergentSync> {
    run(kernel.kernel(), Scope::Block, true, true)
}

/// How a kernel's barriers and warp collectives are reached, for CUDA-style execution: barriers must be
/// reached by the whole block, warp collectives by the whole warp.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BarrierSafety {
    /// True when no finding was made.
    pub is_safe: bool,
    /// Block barriers in the kernel.
    pub barrier_count: usize,
    /// Warp collectives (shuffle, ballot, vote, match, warp sync) in the kernel.
    pub warp_collective_count: usize,
    /// The first divergent barrier and the first divergent collective, if any.
    pub findings: Vec<DivergentSync>,
}

/// Checks barriers against block-level and warp collectives against warp-level divergence.
pub fn barrier_safety(kernel: &Verified<'_>) -> BarrierSafety {
    let k = kernel.kernel();
    let mut findings = Vec::new();
    if let Err(f) = run(k, Scope::Block, true, false) {
        findings.push(f);
    }
    if let Err(f) = run(k, Scope::Warp, false, true) {
        findings.push(f);
    }
    let (barrier_count, warp_collective_count) = count_sync(&k.body);
    BarrierSafety {
        is_safe: findings.is_empty(),
        barrier_count,
        warp_collective_count,
        findings,
    }
}

fn count_sync(block: &[Stmt]) -> (usize, usize) {
    block.iter().fold((0, 0), |(b, w), stmt| {
        let (db, dw) = match stmt {
            Stmt::Barrier => (1, 0),
            Stmt::Warp(_) => (0, 1),
            Stmt::If {
                then_block,
                else_block,
                ..
            } => {
                let (a, c) = count_sync(then_block);
                let (d, e) = count_sync(else_block);
                (a + d, c + e)
            }
            Stmt::Loop { body } => count_sync(body),
            _ => (0, 0),
        };
        (b + db, w + dw)
    })
}

fn run(
    kernel: &Kernel,
    scope: Scope,
    barriers: bool,
    collectives: bool,
) -> Result<(), DivergentSync> {
    let mut a = Analysis {
        kernel,
        scope,
        barriers,
        collectives,
        value_cause: vec![None; kernel.values.len()],
        local_cause: vec![None; kernel.locals.len()],
        exited: None,
        first_violation: None,
        changed: false,
    };
    // Locals feed back through loops: iterate until their divergence stops growing.
    loop {
        a.changed = false;
        a.exited = None;
        a.first_violation = None;
        a.block(&kernel.body, &mut vec!["body".to_owned()], None);
        if !a.changed {
            break;
        }
    }
    match a.first_violation {
        Some(v) => Err(v),
        None => Ok(()),
    }
}

struct Analysis<'k> {
    kernel: &'k Kernel,
    scope: Scope,
    /// Whether block barriers are checked.
    barriers: bool,
    /// Whether warp collectives are checked.
    collectives: bool,
    /// Why each value is divergent (`None`: uniform, or not yet seen).
    value_cause: Vec<Option<String>>,
    local_cause: Vec<Option<String>>,
    /// Set once some threads may have returned while others go on.
    exited: Option<String>,
    first_violation: Option<DivergentSync>,
    changed: bool,
}

/// What a block did to control flow.
#[derive(Default)]
struct Exits {
    /// A `break`/`continue` taken under control divergent relative to the innermost loop.
    divergent_loop_exit: Option<String>,
}

fn path_text(path: &[String]) -> String {
    let mut text = String::new();
    for (i, seg) in path.iter().enumerate() {
        if i > 0 && !seg.starts_with('[') {
            text.push('.');
        }
        text.push_str(seg);
    }
    text
}

impl Analysis<'_> {
    fn cause(&self, v: Value) -> Option<String> {
        self.value_cause[v.index()].clone()
    }

    fn set_value(&mut self, v: Value, cause: Option<String>) {
        if self.value_cause[v.index()].is_none() && cause.is_some() {
            self.value_cause[v.index()] = cause;
            self.changed = true;
        }
    }

    fn any_cause(&self, values: &[Value]) -> Option<String> {
        values.iter().find_map(|&v| self.cause(v))
    }

    fn expr_cause(&self, expr: &Expr) -> Option<String> {
        let single_warp = self.kernel.block_size == 32 || self.scope == Scope::Warp;
        match *expr {
            Expr::Literal(_) | Expr::Param(_) => None,
            Expr::Special(Special::ThreadIndex) => Some("it depends on thread_index".into()),
            Expr::Special(Special::LaneId) => Some("it depends on lane_id".into()),
            Expr::Special(Special::WarpIndex) if !single_warp => {
                Some("it depends on warp_index".into())
            }
            Expr::Special(_) => None,
            Expr::Local(l) => self.local_cause[l.index()].clone(),
            _ => self.any_cause(&warpforge_ir::typing::expr_operands(expr)),
        }
    }

    fn block(&mut self, block: &[Stmt], path: &mut Vec<String>, ctl: Option<String>) -> Exits {
        let mut exits = Exits::default();
        for (i, stmt) in block.iter().enumerate() {
            path.push(format!("[{i}]"));
            let here = ctl
                .clone()
                .or_else(|| self.exited.clone())
                .or_else(|| exits.divergent_loop_exit.clone());
            let inner = self.stmt(stmt, path, here);
            if exits.divergent_loop_exit.is_none() {
                exits.divergent_loop_exit = inner.divergent_loop_exit;
            }
            path.pop();
        }
        exits
    }

    fn sync(&mut self, path: &[String], what: &'static str, ctl: &Option<String>) {
        if let (Some(cause), None) = (ctl, &self.first_violation) {
            self.first_violation = Some(DivergentSync {
                path: path_text(path),
                what,
                cause: cause.clone(),
            });
        }
    }

    fn stmt(&mut self, stmt: &Stmt, path: &mut Vec<String>, ctl: Option<String>) -> Exits {
        let here = path_text(path);
        match stmt {
            Stmt::Let { value, expr } => {
                let cause = self
                    .expr_cause(expr)
                    .map(|c| format!("%{} at {here}: {c}", value.index()));
                self.set_value(*value, cause);
            }
            Stmt::Assign { local, value } => {
                let name = &self.kernel.locals[*local].name;
                let cause = match (self.cause(*value), &ctl) {
                    (Some(c), _) => Some(format!(
                        "local `{name}` is assigned a divergent value at {here} ({c})"
                    )),
                    (None, Some(c)) => Some(format!(
                        "local `{name}` is assigned at {here} under divergent control ({c})"
                    )),
                    (None, None) => None,
                };
                if self.local_cause[local.index()].is_none() && cause.is_some() {
                    self.local_cause[local.index()] = cause;
                    self.changed = true;
                }
            }
            Stmt::Load {
                value,
                array,
                index,
            } => {
                let read_only = matches!(array, MemRef::Global(p)
                    if matches!(self.kernel.params[*p].kind, ParamKind::Buffer { access: warpforge_ir::Access::ReadOnly, .. }));
                let cause = match self.cause(*index) {
                    Some(c) => Some(format!(
                        "%{} at {here} is loaded at a divergent index ({c})",
                        value.index()
                    )),
                    None if read_only => None,
                    None => Some(format!(
                        "%{} at {here} is loaded from writable memory",
                        value.index()
                    )),
                };
                self.set_value(*value, cause);
            }
            Stmt::LoadWide { values, .. } => {
                for &v in values {
                    self.set_value(
                        v,
                        Some(format!("%{} at {here} is loaded from memory", v.index())),
                    );
                }
            }
            Stmt::Atomic { value, .. } => {
                self.set_value(
                    *value,
                    Some(format!(
                        "%{} at {here} is an atomic's result",
                        value.index()
                    )),
                );
            }
            Stmt::Store { .. } | Stmt::StoreWide { .. } => {}
            Stmt::If {
                cond,
                then_block,
                else_block,
            } => {
                let inner = ctl.clone().or_else(|| {
                    self.cause(*cond)
                        .map(|c| format!("inside `if %{}` at {here}, and {c}", cond.index()))
                });
                path.push("then".into());
                let a = self.block(then_block, path, inner.clone());
                path.pop();
                path.push("else".into());
                let b = self.block(else_block, path, inner);
                path.pop();
                return Exits {
                    divergent_loop_exit: a.divergent_loop_exit.or(b.divergent_loop_exit),
                };
            }
            Stmt::Loop { body } => {
                path.push("loop".into());
                let first = self.block(body, path, ctl.clone());
                if ctl.is_none() {
                    if let Some(cause) = first.divergent_loop_exit {
                        // Some threads leave the loop (or skip to the next iteration) before others: every
                        // iteration after the first runs with part of the block.
                        let why =
                            format!("the loop at {here} has a divergent trip count ({cause})");
                        self.block(body, path, Some(why));
                    }
                }
                path.pop();
            }
            Stmt::Break | Stmt::Continue => {
                if let Some(c) = ctl {
                    return Exits {
                        divergent_loop_exit: Some(format!(
                            "`{}` at {here} {c}",
                            if *stmt == Stmt::Break {
                                "break"
                            } else {
                                "continue"
                            }
                        )),
                    };
                }
            }
            Stmt::Return => {
                if let Some(c) = &ctl {
                    if self.exited.is_none() {
                        self.exited = Some(format!("some threads returned at {here} ({c})"));
                    }
                    // Leaving the kernel also leaves every enclosing loop.
                    return Exits {
                        divergent_loop_exit: Some(format!("`return` at {here} {c}")),
                    };
                }
            }
            Stmt::Barrier if self.barriers => self.sync(path, "barrier", &ctl),
            Stmt::Barrier => {}
            Stmt::Warp(op) => {
                let one_warp = self.kernel.block_size == 32 || self.scope == Scope::Warp;
                let broadcast = |lane: &Value| one_warp && self.cause(*lane).is_none();
                let (what, result, cause) = match op {
                    // Every lane reading the same (uniform) lane of the only warp: a broadcast.
                    WarpOp::Shuffle {
                        value,
                        mode: warpforge_ir::ShuffleMode::Index,
                        lane,
                        ..
                    } if broadcast(lane) => ("shuffle", Some(*value), None),
                    WarpOp::Shuffle { value, .. } => (
                        "shuffle",
                        Some(*value),
                        Some("a shuffle result differs per lane"),
                    ),
                    WarpOp::MatchAny { value, .. } => (
                        "match_any",
                        Some(*value),
                        Some("a match_any result differs per lane"),
                    ),
                    WarpOp::Ballot { value, .. } => {
                        ("ballot", Some(*value), self.warp_result_cause())
                    }
                    WarpOp::Vote { value, .. } => ("vote", Some(*value), self.warp_result_cause()),
                    WarpOp::Sync { .. } => ("warp_sync", None, None),
                };
                if self.collectives {
                    self.sync(path, what, &ctl);
                }
                if let Some(v) = result {
                    self.set_value(v, cause.map(|c| format!("%{} at {here}: {c}", v.index())));
                }
            }
        }
        Exits::default()
    }

    fn warp_result_cause(&self) -> Option<&'static str> {
        (self.kernel.block_size != 32 && self.scope == Scope::Block)
            .then_some("ballot and vote results are uniform per warp, not per block")
    }
}
