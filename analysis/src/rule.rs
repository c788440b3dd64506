//! The lint rules as a type: each [`Rule`] has its code (`B001`), its name (`divergent-barrier`),
//! the severity of a finding it proves, and its explanation (`warpforge lint --explain`, SARIF).

use std::fmt;

use serde::Serialize;

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

/// A lint rule. Variants are in the order of their codes, so that ordering by rule is ordering by
/// code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rule {
    /// `misaligned-access`
    A001,
    /// `divergent-barrier`
    B001,
    /// `shared-to-global`
    F081,
    /// `unmodelled`
    N001,
    /// `shared-race`
    R001,
    /// `shared-bounds`
    S001,
    /// `divergent-collective`
    W001,
    /// `mask-mismatch`
    W002,
}

impl Rule {
    /// Every rule, in the order `--explain` and SARIF list them.
    pub const ALL: [Rule; 8] = [
        Rule::B001,
        Rule::W001,
        Rule::W002,
        Rule::F081,
        Rule::A001,
        Rule::S001,
        Rule::R001,
        Rule::N001,
    ];

    /// The code (`B001`).
    pub fn code(self) -> &'static str {
        match self {
            Rule::B001 => "B001",
            Rule::W001 => "W001",
            Rule::W002 => "W002",
            Rule::F081 => "F081",
            Rule::A001 => "A001",
            Rule::S001 => "S001",
            Rule::R001 => "R001",
            Rule::N001 => "N001",
        }
    }

    /// The name (`divergent-barrier`).
    pub fn name(self) -> &'static str {
        match self {
            Rule::B001 => "divergent-barrier",
            Rule::W001 => "divergent-collective",
            Rule::W002 => "mask-mismatch",
            Rule::F081 => "shared-to-global",
            Rule::A001 => "misaligned-access",
            Rule::S001 => "shared-bounds",
            Rule::R001 => "shared-race",
            Rule::N001 => "unmodelled",
        }
    }

    /// The severity of a finding the rule proves; a finding it cannot prove is a warning (A001,
    /// S001, R001, W002), and F081 takes the severity of the A001/S001 findings that feed it.
    pub fn default_severity(self) -> Severity {
        match self {
            Rule::B001 => Severity::Error,
            Rule::W001 => Severity::Error,
            Rule::W002 => Severity::Error,
            Rule::F081 => Severity::Note,
            Rule::A001 => Severity::Error,
            Rule::S001 => Severity::Error,
            Rule::R001 => Severity::Error,
            Rule::N001 => Severity::Note,
        }
    }

    /// The rule for a code (`"B001"`), if there is one.
    pub fn from_code(code: &str) -> Option<Rule> {
        Rule::ALL.into_iter().find(|r| r.code() == code)
    }

    /// One paragraph: what the rule checks and when it is an error.
    pub fn explanation(self) -> &'static str {
        match self {
            Rule::B001 => "A block barrier (bar.sync, workgroupBarrier) must be reached by every thread of the block. If a branch on a thread-dependent value, a loop whose trip count differs between threads, or an early return taken by some threads lets part of the block skip it, the block deadlocks or the barrier misbehaves (undefined on CUDA, a validation error for WGSL's own uniformity rules).",
            Rule::W001 => "A warp collective (shfl/vote/match/bar.warp.sync) with the full mask 0xffffffff requires all 32 lanes to execute it together. Reached under control flow that depends on the lane (or after some lanes returned), it reads from lanes that are not there: undefined results or a hang. Use a mask of the lanes that really arrive (e.g. from a ballot before the branch) or move the collective out of the branch. A branch on `%tid.x / 32`, or on `%tid.x` against a multiple of 32 (`tid < 32`, `tid > 31`), is uniform within each warp when the block's x-dimension is a multiple of 32: known from `.reqntid`, otherwise assumed for PTX (nearly every launch) — `warpforge lint --no-assume-warp-aligned-blocks` turns the assumption off.",
            Rule::W002 => "Every lane that executes a collective must be in its mask, and every lane in the mask must execute it. A partial constant mask on a collective that all lanes reach is an error; a partial mask under divergent control cannot be checked statically and is reported as a warning.",
            Rule::F081 => "A value loaded from shared memory flows (through moves, casts and arithmetic, across blocks) into a global store. The pattern itself is legal and common. It is reported because an earlier project blamed crashes on it (\"F081\"): the error it saw, code 716, is CUDA_ERROR_MISALIGNED_ADDRESS, and the evidence points at the real causes, which A001 (misaligned access) and S001 (shared bounds) check. On its own it is a note; when those rules fire on the shared loads feeding this store, it says so and carries their severity (error or warning).",
            Rule::A001 => "A multi-byte load or store must be aligned to its width (ld.v4.u32 to 16 bytes, a u32 to 4). An address that is provably not a multiple of the width is an error (CUDA_ERROR_MISALIGNED_ADDRESS, code 716); one whose alignment cannot be proven is a warning. Buffer pointers are assumed 256-byte aligned, as cudaMalloc and WebGPU bindings guarantee.",
            Rule::S001 => "A shared-memory access must stay inside its array. An access whose smallest possible offset is already past the end is an error; one whose largest offset cannot be proven inside is a warning (common for loop counters, which the analysis widens to 'unknown').",
            Rule::R001 => "Two accesses to one shared array, at least one a store, that can run with no barrier between them, where a thread of one warp touches a byte a thread of another warp touches. Warps run in no defined order: without a `bar.sync`/`__syncthreads()` between them the value read depends on scheduling (a tree reduction without its loop barrier, reading `s[tid ^ 32]` right after writing `s[tid]`). Every thread of a block is simulated with its `%tid.x` and the block's `%ntid.x` known, loops iteration by iteration (a loop-carried stride such as `s >>= 1` and a guard such as `tid < s` are followed exactly): a race it proves is an error naming the two accesses, their loop iterations, an example pair of threads and the block sizes it holds for (the declared one, or the x-dimensions checked up to `.maxntid` or 1024 when none is declared). Where the bytes may coincide but the analysis cannot tell — an address or a guard that comes from data — it is a warning saying what could not be followed. Accesses by lanes of one warp (warp-synchronous code), one store instruction run by many threads at one address (a broadcast), and accesses inside branches on data are not reported.",
            Rule::N001 => "The PTX front end met an instruction it does not model. Its results are treated as divergent and unknown, so other rules stay sound but may warn more.",
        }
    }
}

/// The code (`B001`).
impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_and_names_are_distinct_and_read_back() {
        for (i, a) in Rule::ALL.iter().enumerate() {
            assert_eq!(Rule::from_code(a.code()), Some(*a));
            for b in &Rule::ALL[i + 1..] {
                assert_ne!(a.code(), b.code());
                assert_ne!(a.name(), b.name());
            }
        }
        assert_eq!(Rule::from_code("X999"), None);
        assert_eq!(Rule::B001.to_string(), "B001");
    }
}
