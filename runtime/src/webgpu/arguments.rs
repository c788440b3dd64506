//! [`BufferArg`] and the checks a launch makes before touching the device: that the kernel's layout is
//! consistent and that the arguments match it (counts, access kinds, byte lengths, scalar widths, grid).

use std::collections::BTreeSet;

use warpforge_ir::{Access, ScalarType};

pub use crate::BufferArg;
use warpforge_wgsl::{BufferBinding, Wgsl};

use super::WebGpuError;

/// Size in bytes of one element of `binding` (`Bool` buffers are rejected by [`check_layout`]).
pub(crate) fn element_size(binding: &BufferBinding) -> u64 {
    u64::from(binding.elem.size_bytes().unwrap_or(4))
}

/// Width in bytes of a scalar parameter inside the parameter block.
fn param_width(ty: ScalarType) -> u32 {
    if matches!(ty, ScalarType::U64 | ScalarType::I64) {
        8
    } else {
        4
    }
}

/// Checks that the kernel's layout is usable: distinct bindings, storable element types, and every
/// parameter (and the grid size) inside the parameter block.
pub(crate) fn check_layout(kernel: &Wgsl) -> Result<(), WebGpuError> {
    let name = &kernel.entry_point;
    let mut bindings = BTreeSet::new();
    for buffer in &kernel.buffers {
        if !bindings.insert(buffer.binding) {
            return Err(WebGpuError::Layout(format!(
                "kernel `{name}`: binding {} is used twice (again by buffer `{}`)",
                buffer.binding, buffer.name
            )));
        }
        if buffer.elem.size_bytes().is_none() {
            return Err(WebGpuError::Layout(format!(
                "kernel `{name}`: buffer `{}` has element type {}, which cannot be stored",
                buffer.name, buffer.elem
            )));
        }
    }
    let params = &kernel.params;
    if !bindings.insert(params.binding) {
        return Err(WebGpuError::Layout(format!(
            "kernel `{name}`: the parameter block's binding {} is also a buffer's",
            params.binding
        )));
    }
    let fields = params
        .members
        .iter()
        .map(|m| (m.name.as_str(), m.offset, param_width(m.ty)))
        .chain([("grid_blocks", params.grid_blocks_offset, 4)]);
    for (member, offset, width) in fields {
        if u64::from(offset) + u64::from(width) > u64::from(params.size) {
            return Err(WebGpuError::Layout(format!(
                "kernel `{name}`: parameter `{member}` ({width} bytes at offset {offset}) lies outside \
                 the {}-byte parameter block",
                params.size
            )));
        }
    }
    Ok(())
}

/// Checks the arguments of a launch of `blocks` blocks against the kernel, and returns the dispatch
/// shape.
pub(crate) fn check_arguments(
    kernel: &Wgsl,
    blocks: u32,
    buffers: &[BufferArg<'_>],
    scalars: &[u64],
) -> Result<(u32, u32, u32), WebGpuError> {
    let name = &kernel.entry_point;
    let bad = |message: String| {
        Err(WebGpuError::Arguments(format!(
            "kernel `{name}`: {message}"
        )))
    };
    if buffers.len() != kernel.buffers.len() {
        let names: Vec<String> = kernel
            .buffers
            .iter()
            .map(|b| format!("`{}`", b.name))
            .collect();
        return bad(format!(
            "expects {} buffers ({}), got {}",
            kernel.buffers.len(),
            names.join(", "),
            buffers.len()
        ));
    }
    for (binding, arg) in kernel.buffers.iter().zip(buffers) {
        if binding.access != arg.access() {
            let wanted = match binding.access {
                Access::ReadOnly => "BufferArg::ReadOnly",
                Access::ReadWrite => "BufferArg::ReadWrite",
            };
            return bad(format!(
                "buffer `{}` (binding {}) is `{}`: pass {wanted}",
                binding.name,
                binding.binding,
                binding.access.name()
            ));
        }
        let len = arg.bytes().len() as u64;
        let size = element_size(binding);
        if len % size != 0 {
            return bad(format!(
                "buffer `{}` (binding {}) holds {} elements of {size} bytes, but has {len} bytes",
                binding.name, binding.binding, binding.elem
            ));
        }
    }
    let members = &kernel.params.members;
    if scalars.len() != members.len() {
        let names: Vec<String> = members.iter().map(|m| format!("`{}`", m.name)).collect();
        return bad(format!(
            "expects {} scalars ({}), got {}",
            members.len(),
            names.join(", "),
            scalars.len()
        ));
    }
    for (member, &bits) in members.iter().zip(scalars) {
        let width = member.ty.bits();
        if width < 64 && bits >> width != 0 {
            return bad(format!(
                "scalar `{}` is {}, but its bits {bits:#x} do not fit in {width} bits",
                member.name, member.ty
            ));
        }
    }
    match kernel.dispatch(blocks) {
        Some(shape) => Ok(shape),
        None if blocks == 0 => bad("a launch needs at least one block, got 0".to_owned()),
        None => bad(format!(
            "{blocks} blocks do not fit in a {max} x {max} dispatch",
            max = warpforge_wgsl::layout::MAX_WORKGROUPS_PER_DIMENSION
        )),
    }
}
