//! The checks every backend makes before a launch touches a device: the arguments against the kernel's
//! parameters (counts, access kinds, byte lengths, scalar widths) and the grid.

use warpforge_ir::{Access, ParamKind};

use crate::BufferArg;

/// Checks a launch of `blocks` blocks of kernel `name`, whose parameters are `params` (name and kind,
/// in parameter order), with `buffers` (buffer parameters in order) and `scalars` (scalar parameters'
/// bits in order). `Err` is one sentence naming the kernel and the parameter.
pub fn check_arguments<'p>(
    name: &str,
    params: impl Iterator<Item = (&'p str, ParamKind)>,
    blocks: u32,
    buffers: &[BufferArg<'_>],
    scalars: &[u64],
) -> Result<(), String> {
    let bad = |m: String| Err(format!("kernel `{name}`: {m}"));
    let (mut buffer_params, mut scalar_params) = (Vec::new(), Vec::new());
    for (param, kind) in params {
        match kind {
            ParamKind::Buffer { elem, access } => buffer_params.push((param, elem, access)),
            ParamKind::Scalar(t) => scalar_params.push((param, t)),
        }
    }
    let names = |names: &mut dyn Iterator<Item = &str>| {
        names
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if buffers.len() != buffer_params.len() {
        return bad(format!(
            "expects {} buffers ({}), got {}",
            buffer_params.len(),
            names(&mut buffer_params.iter().map(|p| p.0)),
            buffers.len()
        ));
    }
    for ((param, elem, access), arg) in buffer_params.iter().zip(buffers) {
        if *access == Access::ReadWrite && arg.access() == Access::ReadOnly {
            return bad(format!(
                "buffer `{param}` is `read_write`: pass BufferArg::ReadWrite"
            ));
        }
        let size = elem.size_bytes().unwrap_or(4) as usize;
        if arg.bytes().len() % size != 0 {
            return bad(format!(
                "buffer `{param}` holds {elem} elements of {size} bytes, but has {} bytes",
                arg.bytes().len()
            ));
        }
    }
    if scalars.len() != scalar_params.len() {
        return bad(format!(
            "expects {} scalars ({}), got {}",
            scalar_params.len(),
            names(&mut scalar_params.iter().map(|p| p.0)),
            scalars.len()
        ));
    }
    for ((param, ty), &bits) in scalar_params.iter().zip(scalars) {
        let width = ty.bits();
        if width < 64 && bits >> width != 0 {
            return bad(format!(
                "scalar `{param}` is {ty}, but its bits {bits:#x} do not fit in {width} bits"
            ));
        }
    }
    if blocks == 0 {
        return bad("a launch needs at least one block, got 0".into());
    }
    Ok(())
}
