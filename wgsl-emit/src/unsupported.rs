//! What WGSL cannot express at all, refused before lowering with the place that needs it: `f64`
//! (WGSL has `f32` and, with `shader-f16`, `f16`; wgpu's `SHADER_F64` is a Vulkan-only native
//! extension the WebGPU path does not use).

use warpforge_ir::{Block, Kernel, ParamKind, ScalarType, Stmt, StmtPath, Verified};

use crate::error::WgslError;

const F64_WHY: &str = "f64 is not a WGSL type (WGSL has f32, and f16 with `shader-f16`; wgpu's \
    SHADER_F64 is a Vulkan-only native feature warpforge's WebGPU path does not use): run this kernel \
    on CUDA or the simulators, or compute in f32";

/// `Err` naming the first parameter, shared array or statement (in program order) that holds an `f64`.
pub(crate) fn check_types(kernel: &Verified<'_>) -> Result<(), WgslError> {
    let k = kernel.kernel();
    let refuse = |place: String| WgslError::Unsupported {
        kernel: k.name.clone(),
        place,
        what: F64_WHY.to_owned(),
    };
    for (_, p) in k.params.iter() {
        let ty = match p.kind {
            ParamKind::Scalar(t) => t,
            ParamKind::Buffer { elem, .. } => elem,
        };
        if ty == ScalarType::F64 {
            return Err(refuse(format!("parameter `{}`", p.name)));
        }
    }
    for (_, s) in k.shared.iter() {
        if s.elem == ScalarType::F64 {
            return Err(refuse(format!("shared array `{}`", s.name)));
        }
    }
    let mut path = StmtPath::body();
    if let Some(place) = first_f64(k, &k.body, &mut path) {
        return Err(refuse(place));
    }
    // An f64 local that no statement assigns.
    match k.locals.iter().find(|(_, l)| l.ty == ScalarType::F64) {
        Some((_, l)) => Err(refuse(format!("local `{}`", l.name))),
        None => Ok(()),
    }
}

/// The first statement under `block` that defines an `f64` value or assigns an `f64` local, as
/// `statement body[3] (src/k.rs:12:5)`.
fn first_f64(k: &Kernel, block: &Block, path: &mut StmtPath) -> Option<String> {
    let f64_value = |v: warpforge_ir::Value| k.values[v].ty == ScalarType::F64;
    for (i, stmt) in block.iter().enumerate() {
        path.push_index(i);
        let here = match stmt {
            Stmt::Let { value, .. }
            | Stmt::Load { value, .. }
            | Stmt::LoadByte { value, .. }
            | Stmt::Atomic { value, .. } => f64_value(*value),
            Stmt::Assign { value, .. } => f64_value(*value),
            Stmt::LoadWide { values, .. } => values.iter().any(|v| f64_value(*v)),
            _ => false,
        };
        if here {
            let text = path.to_string();
            return Some(format!("statement {}", k.locs.describe(&text)));
        }
        let nested: Vec<(&str, &Block)> = match stmt {
            Stmt::If {
                then_block,
                else_block,
                ..
            } => vec![("then", then_block), ("else", else_block)],
            Stmt::Loop { body, .. } => vec![("body", body)],
            _ => Vec::new(),
        };
        for (name, inner) in nested {
            path.push_block(name);
            let found = first_f64(k, inner, path);
            path.pop();
            if found.is_some() {
                return found;
            }
        }
        path.pop();
    }
    None
}
