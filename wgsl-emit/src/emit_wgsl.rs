//! IR to validated WGSL ([`emit`]): warpforge's barrier rule, the lowering, naga's validation and
//! writer; and naga's own uniformity of the lowered module ([`naga_value_uniformity`]).

use warpforge_ir::Verified;

use crate::error::WgslError;
use crate::layout::{WarpLowering, Wgsl};
use crate::{lower, validate};

/// For each IR value, whether naga's own uniformity analysis of the lowered module calls it uniform
/// (`None` for values with no expression of their own). Runs without warpforge's divergence check, so
/// it answers for any kernel; used to compare warpforge's barrier rule with naga's analysis.
pub fn naga_value_uniformity(kernel: &Verified<'_>) -> Result<Vec<Option<bool>>, WgslError> {
    let lowered = lower::lower(kernel, WarpLowering::Emulated);
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

/// Lowers a verified kernel to validated WGSL with its launch layout, warp collectives emulated
/// through workgroup memory ([`WarpLowering::Emulated`]: right on every adapter).
pub fn emit(kernel: &Verified<'_>) -> Result<Wgsl, WgslError> {
    emit_with(kernel, WarpLowering::Emulated)
}

/// [`emit`] with the warp collectives lowered as `warps` says: [`WarpLowering::Subgroups`] for a
/// device whose subgroups were measured to be that wide and laid out along the local index (the
/// WebGPU runtime measures and chooses; see the crate docs). The barrier rule is the same for both:
/// every collective in workgroup-uniform control flow.
pub fn emit_with(kernel: &Verified<'_>, warps: WarpLowering) -> Result<Wgsl, WgslError> {
    check_sync(kernel)?;
    if let WarpLowering::Subgroups { width } = warps {
        if WarpLowering::subgroups(width).is_none() {
            return Err(WgslError::Unsupported {
                kernel: kernel.name.clone(),
                place: format!("warps on subgroups {width} wide"),
                what: "a warp is 32 lanes: native subgroups must be 32 or 64 wide".into(),
            });
        }
    }
    let lower::Lowered {
        module, mut layout, ..
    } = lower::lower(kernel, warps);
    layout.source = validate::validate_and_write(
        &kernel.name,
        &module,
        layout.requirements.shader_int64,
        warps != WarpLowering::Emulated,
    )?;
    layout.entry_point = written_entry_point(&layout.source).unwrap_or(layout.entry_point);
    Ok(layout)
}

/// The types WGSL lacks, then warpforge's barrier rule (naga 30 does not enforce it): every barrier and warp collective reached by
/// the whole workgroup.
pub(crate) fn check_sync(kernel: &Verified<'_>) -> Result<(), WgslError> {
    // First what WGSL cannot hold at all.
    crate::unsupported::check_types(kernel)?;
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
