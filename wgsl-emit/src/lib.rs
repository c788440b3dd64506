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
//! AMD, 8–32 on Intel). warpforge's warp collectives have CUDA's 32-lane semantics everywhere, and
//! there are two lowerings of them ([`WarpLowering`], chosen with [`emit_with`]):
//!
//! **Native subgroups** ([`WarpLowering::Subgroups`], 32 or 64 lanes): a warp is a 32-wide subgroup,
//! or half of a 64-wide one; a shuffle is one `subgroupShuffle` from the warp's source lane (its own
//! when out of range, as CUDA's), a ballot or vote one `subgroupBallot` (the warp's 32 bits of it), a
//! `match_any` 32 shuffles; no workgroup memory, no barrier per collective (`warp_sync` stays a
//! `workgroupBarrier`: a subgroup barrier does not order workgroup memory). It is right only where
//! every subgroup has that width and subgroup lane `i` is invocation `i mod width` of the workgroup;
//! WGSL promises neither, so the WebGPU runtime measures both on each device with a probe kernel and
//! uses this lowering only where they hold and the adapter allows that one width only (a driver that
//! picks 32 or 64 per pipeline, as AMD's may, keeps the emulation); `warpforge info` says which it
//! chose and why. naga
//! validates it with the `SUBGROUP` capability; SPIR-V, MSL and HLSL ([`targets`]) keep the
//! emulation. Structured control flow reconverges at its merge points on the GPUs we target, which
//! the collectives rely on (Vulkan promises it only with `VK_KHR_shader_maximal_reconvergence`).
//! The barrier rule is the emulation's (every collective in workgroup-uniform control flow), although
//! subgroup operations would need only warp-uniform flow: the runtime offers this lowering only for
//! kernels that pass that rule anyway. The WGSL carries no `enable subgroups;`: the standard wants it,
//! but naga 30 (wgpu's front end) refuses the directive as not yet implemented and gates the
//! builtins on the validator's `SUBGROUP` capability instead (`tests/it/subgroups.rs` pins both).
//! No device here has 32- or 64-wide subgroups (lavapipe's are 8), so the tests *run* the emitted
//! WGSL in a naga interpreter on modelled subgroups of each width and compare every buffer with the
//! IR simulator (`tests/it/subgroup_runs.rs`: the samples, a kernel with every operand type, random
//! kernels).
//!
//! **Emulation** ([`WarpLowering::Emulated`], what [`emit`] gives; right on every adapter): a
//! workgroup is the IR block (`@workgroup_size(block_size)`), and each warp of 32 consecutive
//! invocations exchanges values through workgroup memory:
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

mod emit_wgsl;
mod error;
pub mod layout;
mod lower;
pub mod targets;
mod unsupported;
mod validate;

pub use emit_wgsl::{emit, emit_with, naga_value_uniformity};
pub use error::WgslError;
pub use layout::{BufferBinding, ParamMember, ParamsLayout, Requirements, WarpLowering, Wgsl};
pub use targets::{emit_target, Shader, ShaderCode, ShaderTarget, TargetError};
pub use validate::{check_text, check_text_with};
