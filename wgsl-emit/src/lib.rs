//! `warpforge-wgsl`: lowers verified warpforge IR to a `naga::Module`, validates it with naga and writes
//! WGSL through naga's own WGSL back end — and, from the same validated module, SPIR-V, MSL and HLSL
//! ([`targets`], [`emit_target`]).
//!
//! [`emit`] returns the WGSL text with its [`layout`] — the contract with the WebGPU runtime: bindings,
//! the uniform parameter block, device requirements and the dispatch shape. A module naga rejects is an
//! [`WgslError::Validation`] carrying the generated source, never a string a device will reject later.
//!
//! # Warps on WebGPU
//!
//! WGSL has no warps, and subgroup sizes differ between devices (8 on Mesa lavapipe, 32 on NVIDIA, 64 on
//! AMD, 8–32 on Intel). warpforge's warp collectives have CUDA's 32-lane semantics everywhere, so the
//! lowering never uses subgroups: a workgroup is the IR block (`@workgroup_size(block_size)`), and each
//! warp of 32 consecutive invocations exchanges values through workgroup memory:
//!
//! - **shuffle**: every lane stores its operand in `wf_exchange[thread]`, `workgroupBarrier()`, reads
//!   the source lane's slot (its own slot when the source is out of range), `workgroupBarrier()`;
//! - **ballot / vote**: lanes store their bit, barrier, lane 0 of each warp ORs the 32 bits into
//!   `wf_vote[warp]`, barrier, everyone reads it, barrier; with one warp per workgroup the read is a
//!   `workgroupUniformLoad`, so the result is uniform for naga and loops may branch on it;
//! - **match_any**: store, barrier, each lane compares the 32 slots of its warp, barrier;
//! - **warp_sync**: `workgroupBarrier()`.
//!
//! Results are identical for any subgroup size because subgroups are never involved. The costs: two or
//! three workgroup barriers per collective (vs. one instruction on CUDA), `4 × block_size` bytes of
//! workgroup memory (twice that for a 64-bit `match_any`, plus 4 bytes per warp for votes), and one
//! restriction: a collective must be reached in *workgroup*-uniform control flow, since it contains
//! barriers. Kernels whose warps take different paths run with one warp per block (block size 32) on
//! WebGPU, where warp-uniform is workgroup-uniform. naga 30 does **not** enforce barrier uniformity (its
//! analyzer records the requirement but reports nothing), so [`emit`] runs warpforge's own check
//! ([`warpforge_analysis::check_block_uniform_sync`]) first; a kernel that breaks the rule gets
//! [`WgslError::DivergentSync`] naming the statement and the cause.
//!
//! # Other traps handled
//!
//! - 8/16-bit buffers and shared arrays are packed in 32-bit words; writable ones are `atomic<u32>`,
//!   and a byte store is `atomicAnd` + `atomicOr` on its word, so lanes storing neighbouring bytes do
//!   not race (see `lower/memory.rs`).
//! - Grids beyond 65 535 blocks dispatch in two dimensions; the kernel linearizes the workgroup id and
//!   returns from workgroups past the grid ([`Wgsl::dispatch`]).
//! - Generated WGSL never trips naga's constant evaluator on IR that is legal: shifts clear the bits
//!   they would shift out, 64→32-bit truncation masks before converting, 64-bit bit functions work on
//!   32-bit halves, constant indices into workgroup arrays are clamped to the array, and `f32`
//!   constants are materialized at run time from their bits (so naga sees values computed from them
//!   as non-uniform).
//! - 64-bit integers need `SHADER_INT64` ([`Requirements::shader_int64`]); workgroup memory needs are
//!   reported in [`Requirements::workgroup_storage_bytes`] and checked against the adapter's real limit.

#![deny(missing_docs)]

pub mod layout;
mod lower;
pub mod targets;
mod validate;

use std::fmt;

pub use layout::{BufferBinding, ParamMember, ParamsLayout, Requirements, Wgsl};
pub use targets::{emit_target, Shader, ShaderCode, ShaderTarget, TargetError};
pub use validate::check_text;
use warpforge_ir::Verified;

/// Why a kernel could not be emitted as WGSL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WgslError {
    /// A barrier or warp collective may be reached by only part of a workgroup. WebGPU requires
    /// workgroup-uniform barriers and warp collectives are emulated with barriers, so such a kernel would
    /// hang or compute garbage. (naga 30 records but does not enforce this rule; warpforge does.)
    DivergentSync {
        /// The kernel.
        kernel: String,
        /// Where, what, and why control is divergent there.
        detail: warpforge_analysis::DivergentSync,
    },
    /// naga rejected the module; `message` says why (with source lines where naga gives them).
    Validation {
        /// The kernel.
        kernel: String,
        /// naga's diagnostic.
        message: String,
        /// The generated WGSL (possibly empty if not even a relaxed module could be written).
        source: String,
    },
    /// naga's WGSL writer failed.
    Writer {
        /// The kernel.
        kernel: String,
        /// The writer's error.
        message: String,
    },
}

impl fmt::Display for WgslError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WgslError::Validation { kernel, message, source } => {
                write!(f, "kernel `{kernel}`: naga rejected the generated WGSL:\n{message}")?;
                if !source.is_empty() {
                    write!(f, "\n--- generated WGSL ---\n{source}")?;
                }
                Ok(())
            }
            WgslError::DivergentSync { kernel, detail } => write!(
                f,
                "kernel `{kernel}`, {detail}; on WebGPU every barrier and warp collective must be reached by the whole workgroup (use one warp per block for warp-divergent code)"
            ),
            WgslError::Writer { kernel, message } => write!(f, "kernel `{kernel}`: WGSL writer failed: {message}"),
        }
    }
}

impl std::error::Error for WgslError {}

/// For each IR value, whether naga's own uniformity analysis of the lowered module calls it uniform
/// (`None` for values with no expression of their own). Runs without warpforge's divergence check, so
/// it answers for any kernel; used to compare warpforge's barrier rule with naga's analysis.
pub fn naga_value_uniformity(kernel: &Verified<'_>) -> Result<Vec<Option<bool>>, WgslError> {
    let lowered = lower::lower(kernel);
    let caps = if lowered.layout.requirements.shader_int64 {
        naga::valid::Capabilities::SHADER_INT64
    } else {
        naga::valid::Capabilities::empty()
    };
    let info = naga::valid::Validator::new(naga::valid::ValidationFlags::all(), caps)
        .validate(&lowered.module)
        .map_err(|e| WgslError::Validation {
            kernel: kernel.name.clone(),
            message: e.to_string(),
            source: String::new(),
        })?;
    let function = info.get_entry_point(0);
    Ok(lowered
        .values
        .iter()
        .map(|h| h.map(|h| function[h].uniformity.non_uniform_result.is_none()))
        .collect())
}

/// Lowers a verified kernel to validated WGSL with its launch layout.
pub fn emit(kernel: &Verified<'_>) -> Result<Wgsl, WgslError> {
    check_sync(kernel)?;
    let lower::Lowered {
        module, mut layout, ..
    } = lower::lower(kernel);
    layout.source =
        validate::validate_and_write(&kernel.name, &module, layout.requirements.shader_int64)?;
    layout.entry_point = written_entry_point(&layout.source).unwrap_or(layout.entry_point);
    Ok(layout)
}

/// warpforge's barrier rule (naga 30 does not enforce it): every barrier and warp collective reached by
/// the whole workgroup.
fn check_sync(kernel: &Verified<'_>) -> Result<(), WgslError> {
    warpforge_analysis::check_block_uniform_sync(kernel).map_err(|detail| {
        WgslError::DivergentSync {
            kernel: kernel.name.clone(),
            detail,
        }
    })
}

/// The entry point's name as naga's WGSL writer spelled it: its namer appends `_` to names that end in
/// a digit or clash with a keyword (`zext_i64` becomes `zext_i64_`), and a pipeline must be created
/// with the written name.
fn written_entry_point(source: &str) -> Option<String> {
    let after = &source[source.find("@compute")?..];
    let name = after[after.find("fn ")? + 3..].split('(').next()?.trim();
    (!name.is_empty()).then(|| name.to_owned())
}
