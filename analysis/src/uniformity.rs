//! Whole-kernel verdicts built on the CFG analyses: whether every barrier and warp collective is
//! reached by all the threads that must reach it.
//!
//! - [`check_block_uniform_sync`]: the WGSL back end's requirement. WebGPU barriers must be
//!   workgroup-uniform, and warp collectives are emulated with barriers there, so both must be
//!   block-uniform. naga 30 records barrier uniformity requirements but does not reject violations, so
//!   warpforge checks them itself.
//! - [`barrier_safety`]: the CUDA requirement (barriers block-uniform, collectives warp-uniform), as the
//!   errors of rules B001, W001 and W002.

use std::fmt;

use warpforge_ir::{StmtPath, Verified};

use crate::divergence::{divergence, Scope};
use crate::ir_front::program_of;
use crate::program::Op;
use crate::rules::{check, Rule, Severity};

/// A barrier or warp collective that some threads may skip.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DivergentSync {
    /// The statement path of the barrier or collective (`body[7].then[0]`).
    pub path: String,
    /// What it is (`barrier`, `warp collective`).
    pub what: &'static str,
    /// Why control is divergent there.
    pub cause: String,
}

impl fmt::Display for DivergentSync {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} in divergent control flow: {}",
            self.path, self.what, self.cause
        )
    }
}

/// Checks that every barrier and warp collective of `kernel` is reached by all threads of a block;
/// reports the first (in program order) that is not.
pub fn check_block_uniform_sync(kernel: &Verified<'_>) -> Result<(), DivergentSync> {
    let p = program_of(kernel);
    let d = divergence(&p, Scope::Block);
    let mut found: Vec<DivergentSync> = Vec::new();
    for node in p.cfg.node_indices() {
        let Some(cause) = d.block(node.index()) else {
            continue;
        };
        for inst in &p.cfg[node].insts {
            let what = match inst.op {
                Op::Barrier => "barrier",
                Op::Collective { .. } => "warp collective",
                _ => continue,
            };
            found.push(DivergentSync {
                path: inst.loc.to_string(),
                what,
                cause: cause.clone(),
            });
        }
    }
    match found
        .into_iter()
        // Program order; every path here is one `ir_front` printed, so it reads back.
        .min_by_key(|f| {
            let path = f.path.parse::<StmtPath>();
            (path.is_err(), path.ok())
        }) {
        Some(first) => Err(first),
        None => Ok(()),
    }
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
    /// Every divergent barrier (B001) and divergent or mismatched collective (W001, W002 errors).
    pub findings: Vec<DivergentSync>,
}

/// Checks barriers against block-level and warp collectives against warp-level divergence.
pub fn barrier_safety(kernel: &Verified<'_>) -> BarrierSafety {
    let p = program_of(kernel);
    let (mut barrier_count, mut warp_collective_count) = (0, 0);
    for b in p.cfg.node_weights() {
        for i in &b.insts {
            match i.op {
                Op::Barrier => barrier_count += 1,
                Op::Collective { .. } => warp_collective_count += 1,
                _ => {}
            }
        }
    }
    let findings: Vec<DivergentSync> = check(&p)
        .into_iter()
        .filter(|d| {
            d.severity == Severity::Error && matches!(d.rule, Rule::B001 | Rule::W001 | Rule::W002)
        })
        .map(|d| DivergentSync {
            path: d.location.to_string(),
            what: if d.rule == Rule::B001 {
                "barrier"
            } else {
                "warp collective"
            },
            cause: if d.causes.is_empty() {
                d.message
            } else {
                d.causes.join("; ")
            },
        })
        .collect();
    BarrierSafety {
        is_safe: findings.is_empty(),
        barrier_count,
        warp_collective_count,
        findings,
    }
}
