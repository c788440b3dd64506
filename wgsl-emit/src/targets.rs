//! SPIR-V, MSL and HLSL written from the same validated `naga::Module` the WGSL comes from
//! ([`emit_target`]).
//!
//! The kernel goes through the same steps as [`emit`](crate::emit): warpforge's barrier rule, lowering,
//! naga validation with the capabilities the kernel needs and nothing more. Then naga's back end for the
//! target writes it, and the output is checked:
//!
//! - **SPIR-V** is read back with naga's SPIR-V front end and the result validated again; its entry
//!   point, workgroup size and resource bindings must be those of the module that was written. (Where
//!   SPIRV-Tools is installed, the tests also run `spirv-val` on every catalog kernel.)
//! - **MSL** and **HLSL** have no front end in naga. Their writers run with missing bindings an error
//!   rather than a made-up slot, and the entry point must have been written; the module's capabilities
//!   must be ones naga's back end supports.
//!
//! # Writer options, and why
//!
//! Common to all three: out-of-range indices are clamped into range (`BoundsCheckPolicy::Restrict`, what
//! WGSL prescribes for arrays; wgpu would do the same on a device without robust buffer access), workgroup
//! memory is zeroed at entry as WGSL requires, loops are marked bounded (`force_loop_bounding`, as wgpu
//! does: an unbounded loop is undefined behaviour to LLVM-based drivers) and integer division by zero and
//! `MIN / -1` are defined as in WGSL (naga's wrapper functions). The output therefore computes what the
//! WGSL computes, on APIs that do not add WebGPU's guarantees themselves.
//!
//! - **SPIR-V 1.3** ([`SPIRV_VERSION`], Vulkan 1.1's version): capabilities `Shader`, plus `Int64` for
//!   kernels with 64-bit integers, and nothing else: the writer is given exactly that set and fails
//!   rather than emit an instruction that needs more. These targets use the emulated warp lowering only
//!   (collectives through workgroup memory, see the [crate docs](crate); the subgroup lowering is
//!   WGSL's, for devices the WebGPU runtime measured), so no `GroupNonUniform*` capability is needed. Workgroup memory is zeroed at entry by a loop in which every invocation
//!   zeroes its share of each array, then a barrier (`lower::zeroing`; naga's writer is told not to
//!   zero it: its `Polyfill` stores one constant per variable, which Mesa unrolls into thousands of
//!   stores that LLVM compiles for minutes, and `Native` would need
//!   `VK_KHR_zero_initialize_workgroup_memory`). Bindings are the module's own
//!   (descriptor set 0, binding `i`, as in [`Wgsl`](crate::Wgsl)); `OpName`s are written, so a
//!   disassembly (`spirv-dis`) reads with the kernel's names.
//! - **MSL 2.3** ([`MSL_VERSION`]): the first version for which wgpu enables 64-bit integers on Metal
//!   (`SHADER_INT64` needs MSL 2.3 there), and at least 2.1, from which naga writes
//!   `[[max_total_threads_per_threadgroup]]`. Buffer `binding i` is `[[buffer(i)]]`, the parameter block
//!   keeps its binding number as its slot, and the next slot holds naga's `_mslBufferSizes`: one `u32`
//!   per storage buffer, its size in bytes, in binding order (naga needs it to bound runtime-sized
//!   arrays).
//! - **HLSL shader model 6.0** ([`HLSL_SHADER_MODEL`]): 64-bit integers need 6.0 (wgpu offers
//!   `SHADER_INT64` on D3D12 from 6.0), so every kernel uses it, compiled with DXC. Each resource keeps
//!   its binding number as its register in space 0 (`t`/`u` for read-only/read-write storage buffers,
//!   `b` for the parameter block); the number of workgroups, which HLSL has no system value for, is read
//!   from naga's special-constants buffer at the `b` register after the parameter block.

mod error_text;
mod options;
mod spirv_check;

use std::borrow::Cow;
use std::error::Error;
use std::fmt;

use naga::back::{hlsl, msl, spv};
use naga::ShaderStage;
use warpforge_ir::Verified;

use crate::error::WgslError;
use crate::{emit_wgsl, lower, validate};
use error_text::chain;
use options::{hlsl_options, msl_options, spirv_options};
pub use options::{HLSL_SHADER_MODEL, MSL_VERSION, SPIRV_VERSION};
use spirv_check::check_spirv;
pub use spirv_check::check_spirv_layout;

/// A language or binary form a kernel can be written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShaderTarget {
    /// WGSL, as [`emit`](crate::emit) writes it.
    Wgsl,
    /// A SPIR-V binary module (Vulkan).
    SpirV,
    /// Metal Shading Language source.
    Msl,
    /// HLSL source (Direct3D 12).
    Hlsl,
}

impl ShaderTarget {
    /// Every target.
    pub const ALL: [ShaderTarget; 4] = [
        ShaderTarget::Wgsl,
        ShaderTarget::SpirV,
        ShaderTarget::Msl,
        ShaderTarget::Hlsl,
    ];

    /// The target's usual name ("SPIR-V").
    pub fn name(self) -> &'static str {
        match self {
            ShaderTarget::Wgsl => "WGSL",
            ShaderTarget::SpirV => "SPIR-V",
            ShaderTarget::Msl => "MSL",
            ShaderTarget::Hlsl => "HLSL",
        }
    }

    /// The usual file extension, without the dot.
    pub fn extension(self) -> &'static str {
        match self {
            ShaderTarget::Wgsl => "wgsl",
            ShaderTarget::SpirV => "spv",
            ShaderTarget::Msl => "metal",
            ShaderTarget::Hlsl => "hlsl",
        }
    }
}

impl fmt::Display for ShaderTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a writer produced: source text, or SPIR-V's 32-bit words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ShaderCode {
    /// WGSL, MSL or HLSL source.
    Text(String),
    /// A SPIR-V module.
    Words(Vec<u32>),
}

/// One kernel written for one target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shader {
    /// The target.
    pub target: ShaderTarget,
    /// The compute entry point as this target's writer named it (writers rename names that clash with
    /// a keyword of their language).
    pub entry_point: String,
    /// The code.
    pub code: ShaderCode,
}

impl Shader {
    /// The source text (`None` for SPIR-V).
    pub fn text(&self) -> Option<&str> {
        match &self.code {
            ShaderCode::Text(text) => Some(text),
            ShaderCode::Words(_) => None,
        }
    }

    /// The SPIR-V words (`None` for text targets).
    pub fn words(&self) -> Option<&[u32]> {
        match &self.code {
            ShaderCode::Words(words) => Some(words),
            ShaderCode::Text(_) => None,
        }
    }

    /// The bytes of a file holding the code: UTF-8 text, or the SPIR-V words little-endian (the byte
    /// order `spirv-val`, `spirv-dis` and Vulkan loaders read on every common host).
    pub fn bytes(&self) -> Cow<'_, [u8]> {
        match &self.code {
            ShaderCode::Text(text) => Cow::Borrowed(text.as_bytes()),
            ShaderCode::Words(words) => {
                Cow::Owned(words.iter().flat_map(|w| w.to_le_bytes()).collect())
            }
        }
    }
}

/// Why a kernel could not be written for a target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TargetError {
    /// The kernel was refused before any writer ran (the same errors as [`emit`](crate::emit)).
    Kernel(WgslError),
    /// naga's writer for `target` failed.
    Writer {
        /// The kernel.
        kernel: String,
        /// The target.
        target: ShaderTarget,
        /// The writer's error.
        message: String,
    },
    /// The written code failed its check (see the [module docs](self)).
    Check {
        /// The kernel.
        kernel: String,
        /// The target.
        target: ShaderTarget,
        /// What was wrong.
        message: String,
    },
}

impl fmt::Display for TargetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TargetError::Kernel(error) => error.fmt(f),
            TargetError::Writer {
                kernel,
                target,
                message,
            } => write!(
                f,
                "kernel `{kernel}`: naga's {target} writer failed: {message}"
            ),
            TargetError::Check {
                kernel,
                target,
                message,
            } => write!(
                f,
                "kernel `{kernel}`: the written {target} failed its check: {message}"
            ),
        }
    }
}

impl Error for TargetError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match self {
            TargetError::Kernel(error) => Some(error),
            _ => None,
        }
    }
}

impl From<WgslError> for TargetError {
    fn from(error: WgslError) -> TargetError {
        TargetError::Kernel(error)
    }
}

/// Writes a verified kernel for `target` from its validated naga module and checks the output (see the
/// [module docs](self) for the options and the checks).
pub fn emit_target(kernel: &Verified<'_>, target: ShaderTarget) -> Result<Shader, TargetError> {
    if target == ShaderTarget::Wgsl {
        let wgsl = emit_wgsl::emit(kernel)?;
        return Ok(Shader {
            target,
            entry_point: wgsl.entry_point,
            code: ShaderCode::Text(wgsl.source),
        });
    }
    emit_wgsl::check_sync(kernel)?;
    // SPIR-V zeroes workgroup memory in the code (see `lower::zeroing`); MSL and HLSL through naga's
    // writers.
    let lowered = if target == ShaderTarget::SpirV {
        lower::lower_zeroing_workgroup(kernel)
    } else {
        lower::lower(kernel, crate::WarpLowering::Emulated)
    };
    let int64 = lowered.layout.requirements.shader_int64;
    let module = &lowered.module;
    let info = validate::validate(&kernel.name, module, int64, false)?;
    let writer_error = |message: String| TargetError::Writer {
        kernel: kernel.name.clone(),
        target,
        message,
    };
    let caps = validate::capabilities(int64);
    let supported = match target {
        ShaderTarget::SpirV => spv::supported_capabilities(),
        ShaderTarget::Msl => msl::supported_capabilities(),
        ShaderTarget::Hlsl => hlsl::supported_capabilities(),
        ShaderTarget::Wgsl => naga::back::wgsl::supported_capabilities(),
    };
    if !supported.contains(caps) {
        let missing = caps.difference(supported);
        return Err(writer_error(format!(
            "the back end does not support {missing:?}"
        )));
    }
    let entry = module
        .entry_points
        .first()
        .ok_or_else(|| writer_error("the module has no entry point".to_owned()))?;
    let (entry_point, code) = match target {
        ShaderTarget::SpirV => {
            let words = spv::write_vec(module, &info, &spirv_options(module, int64), None)
                .map_err(|e| writer_error(chain(&e)))?;
            check_spirv(module, &words, caps).map_err(|message| TargetError::Check {
                kernel: kernel.name.clone(),
                target,
                message,
            })?;
            (entry.name.clone(), ShaderCode::Words(words))
        }
        ShaderTarget::Msl => {
            let options = msl_options(module, &entry.name).map_err(writer_error)?;
            let pipeline = msl::PipelineOptions {
                entry_point: Some((ShaderStage::Compute, entry.name.clone())),
                ..msl::PipelineOptions::default()
            };
            let (text, translation) = msl::write_string(module, &info, &options, &pipeline)
                .map_err(|e| writer_error(chain(&e)))?;
            let name = written_entry(&translation.entry_point_names).map_err(writer_error)?;
            (name, ShaderCode::Text(text))
        }
        ShaderTarget::Hlsl => {
            let options = hlsl_options(module);
            let pipeline = hlsl::PipelineOptions {
                entry_point: Some((ShaderStage::Compute, entry.name.clone())),
            };
            let mut text = String::new();
            let reflection = hlsl::Writer::new(&mut text, &options, &pipeline)
                .write(module, &info, None)
                .map_err(|e| writer_error(chain(&e)))?;
            let name = written_entry(&reflection.entry_point_names).map_err(writer_error)?;
            (name, ShaderCode::Text(text))
        }
        ShaderTarget::Wgsl => unreachable!("returned above"),
    };
    Ok(Shader {
        target,
        entry_point,
        code,
    })
}

/// The name the writer gave the (only) entry point, or why it did not write it.
fn written_entry<E: Error + 'static>(names: &[Result<String, E>]) -> Result<String, String> {
    match names.first() {
        Some(Ok(name)) => Ok(name.clone()),
        Some(Err(error)) => Err(format!("the entry point was not written: {}", chain(error))),
        None => Err("no entry point was written".to_owned()),
    }
}
