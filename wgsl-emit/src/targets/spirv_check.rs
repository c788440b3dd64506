//! The check of written SPIR-V: read back with naga's SPIR-V front end, validated again, and its
//! interface compared with the module that was written ([`check_spirv`]) or with the layout a host
//! binds it with ([`check_spirv_layout`]).

use naga::valid::{Capabilities, ValidationFlags, Validator};
use naga::{AddressSpace, Expression, Module, ShaderStage, Statement, StorageAccess};
use warpforge_ir::Access;

use crate::layout::Wgsl;

use super::error_text::chain;
use super::options::bindings;

/// Reads `words` with naga's SPIR-V front end and validates the result with `caps`.
fn read_and_validate(words: &[u32], caps: Capabilities) -> Result<Module, String> {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let options = naga::front::spv::Options {
        adjust_coordinate_space: false,
        strict_capabilities: true,
        block_ctx_dump_prefix: None,
    };
    let mut read = naga::front::spv::parse_u8_slice(&bytes, &options)
        .map_err(|e| format!("naga's SPIR-V front end rejected it: {}", chain(&e)))?;
    drop_atomic_zeroing(&mut read);
    Validator::new(ValidationFlags::all(), caps)
        .validate(&read)
        .map_err(|e| format!("the module read back does not validate: {}", chain(&e)))?;
    Ok(read)
}

/// Reads `words` back with naga's SPIR-V front end, validates the result with the kernel's
/// capabilities, and compares its interface with the module that was written.
pub(super) fn check_spirv(
    written: &Module,
    words: &[u32],
    caps: Capabilities,
) -> Result<(), String> {
    let read = read_and_validate(words, caps)?;
    let interface = |m: &Module| {
        let entries: Vec<_> = m
            .entry_points
            .iter()
            .map(|e| (e.name.clone(), e.stage, e.workgroup_size))
            .collect();
        (entries, bindings(m))
    };
    let (want, got) = (interface(written), interface(&read));
    if want != got {
        return Err(format!(
            "the module read back has entry points and bindings {got:?}, the one written {want:?}"
        ));
    }
    Ok(())
}

/// Checks SPIR-V words against the layout a host binds them with, before they go to a driver that
/// takes them unchecked: naga's SPIR-V front end reads them and naga validates the result (with 64-bit
/// integers only when `layout.requirements.shader_int64`, as [`emit_target`](super::emit_target)
/// does), and the module must have exactly one entry point, a compute one named `entry_point` with
/// `layout.workgroup_size` invocations, and exactly the bindings of `layout`: in group 0, each storage
/// buffer read-only or read-write as the layout says, and the parameter block as a uniform buffer.
pub fn check_spirv_layout(words: &[u32], entry_point: &str, layout: &Wgsl) -> Result<(), String> {
    let caps = crate::validate::capabilities(layout.requirements.shader_int64);
    let read = read_and_validate(words, caps)?;
    let entries: Vec<_> = read
        .entry_points
        .iter()
        .map(|e| (e.name.as_str(), e.stage, e.workgroup_size))
        .collect();
    let want = [(
        entry_point,
        ShaderStage::Compute,
        [layout.workgroup_size, 1, 1],
    )];
    if entries != want {
        return Err(format!(
            "the module's entry points are {entries:?}, the layout's is {want:?}"
        ));
    }
    let kind = |space: AddressSpace| match space {
        AddressSpace::Storage { access } if access.contains(StorageAccess::STORE) => "read-write",
        AddressSpace::Storage { .. } => "read-only",
        AddressSpace::Uniform => "uniform",
        _ => "other",
    };
    let got: Vec<_> = bindings(&read)
        .into_iter()
        .map(|(b, space)| (b.group, b.binding, kind(space)))
        .collect();
    let mut want: Vec<_> = layout
        .buffers
        .iter()
        .map(|b| {
            let access = match b.access {
                Access::ReadOnly => "read-only",
                Access::ReadWrite => "read-write",
            };
            (0, b.binding, access)
        })
        .chain([(0, layout.params.binding, "uniform")])
        .collect();
    want.sort_unstable();
    if got != want {
        return Err(format!(
            "the module's bindings are {got:?}, the layout's {want:?}"
        ));
    }
    Ok(())
}

/// Removes the stores of zero to whole workgroup variables that hold atomics from a module read from
/// SPIR-V. SPIR-V has no atomic types: naga's front end gives a variable used atomically an atomic type
/// after reading the code, but the polyfill that zeroes workgroup memory at entry (naga's own, see
/// `ZeroInitializeWorkgroupMemoryMode::Polyfill`) stores a zero of the plain type into the whole
/// variable, and naga IR cannot express that store (WGSL zeroes atomics implicitly), so validation would
/// fail on naga's own code. Everything else is validated as read; `spirv-val` checks the stores.
fn drop_atomic_zeroing(module: &mut Module) {
    fn holds_atomic(types: &naga::UniqueArena<naga::Type>, ty: naga::Handle<naga::Type>) -> bool {
        match &types[ty].inner {
            naga::TypeInner::Atomic(_) => true,
            naga::TypeInner::Array { base, .. } => holds_atomic(types, *base),
            naga::TypeInner::Struct { members, .. } => {
                members.iter().any(|m| holds_atomic(types, m.ty))
            }
            _ => false,
        }
    }
    /// Keeps the statements of `block` (at any depth) for which `keep` holds.
    fn filter(block: &mut naga::Block, keep: &dyn Fn(&Statement) -> bool) {
        for (mut statement, span) in std::mem::take(block).span_into_iter() {
            match &mut statement {
                Statement::Block(inner) => filter(inner, keep),
                Statement::If { accept, reject, .. } => {
                    filter(accept, keep);
                    filter(reject, keep);
                }
                Statement::Switch { cases, .. } => {
                    cases
                        .iter_mut()
                        .for_each(|case| filter(&mut case.body, keep));
                }
                Statement::Loop {
                    body, continuing, ..
                } => {
                    filter(body, keep);
                    filter(continuing, keep);
                }
                _ => {}
            }
            if keep(&statement) {
                block.push(statement, span);
            }
        }
    }
    let atomic: Vec<_> = module
        .global_variables
        .iter()
        .filter(|(_, var)| {
            var.space == AddressSpace::WorkGroup && holds_atomic(&module.types, var.ty)
        })
        .map(|(handle, _)| handle)
        .collect();
    let zeros: Vec<_> = module
        .constants
        .iter()
        .filter(|(_, c)| matches!(module.global_expressions[c.init], Expression::ZeroValue(_)))
        .map(|(handle, _)| handle)
        .collect();
    let functions = module.functions.iter_mut().map(|(_, f)| f);
    let entry_points = module.entry_points.iter_mut().map(|e| &mut e.function);
    for function in functions.chain(entry_points) {
        let expressions = &function.expressions;
        let keep = |statement: &Statement| match *statement {
            Statement::Store { pointer, value } => {
                let whole_atomic = matches!(expressions[pointer],
                    Expression::GlobalVariable(var) if atomic.contains(&var));
                let zero = match expressions[value] {
                    Expression::ZeroValue(_) => true,
                    Expression::Constant(c) => zeros.contains(&c),
                    _ => false,
                };
                !(whole_atomic && zero)
            }
            _ => true,
        };
        filter(&mut function.body, &keep);
    }
}

#[cfg(test)]
mod tests {
    use warpforge_ir::{samples, verify};

    use super::*;
    use crate::targets::options::spirv_options;

    /// `vector-add`'s module, its SPIR-V and capabilities.
    fn vector_add() -> (Module, Vec<u32>, Capabilities) {
        let kernel = (samples::ALL[0].build)();
        let verified = verify(&kernel).expect("verifies");
        let module = crate::lower::lower(&verified, crate::WarpLowering::Emulated).module;
        let info =
            crate::validate::validate("vector_add", &module, false, false).expect("validates");
        let words =
            naga::back::spv::write_vec(&module, &info, &spirv_options(&module, false), None)
                .expect("writes");
        (module, words, Capabilities::empty())
    }

    /// Rewrites the first operand after `at_operand` of the first instruction with `opcode` whose
    /// operand `match_operand` is `value`.
    fn patch(words: &mut [u32], opcode: u32, match_operand: (usize, u32), new: (usize, u32)) {
        let mut at = 5;
        while at < words.len() {
            let count = (words[at] >> 16) as usize;
            if words[at] & 0xffff == opcode && words[at + match_operand.0] == match_operand.1 {
                words[at + new.0] = new.1;
                return;
            }
            at += count;
        }
        panic!("no instruction {opcode} to patch");
    }

    #[test]
    fn written_spirv_passes_and_tampered_spirv_fails_the_check() {
        let (module, words, caps) = vector_add();
        check_spirv(&module, &words, caps).expect("the written SPIR-V passes");

        let truncated = &words[..words.len() / 2];
        let error = check_spirv(&module, truncated, caps).expect_err("half a module");
        assert!(error.contains("front end rejected"), "{error}");

        // OpDecorate (71) %x Binding (33) 0 → 7.
        let mut rebound = words.clone();
        patch(&mut rebound, 71, (2, 33), (3, 7));
        let error = check_spirv(&module, &rebound, caps).expect_err("a moved binding");
        assert!(error.contains("entry points and bindings"), "{error}");

        // OpExecutionMode (16) %main LocalSize (17) x y z: a different workgroup size.
        let mut resized = words.clone();
        patch(&mut resized, 16, (2, 17), (3, 3));
        let error = check_spirv(&module, &resized, caps).expect_err("another workgroup size");
        assert!(error.contains("entry points and bindings"), "{error}");
    }

    #[test]
    fn spirv_is_checked_against_the_layout_it_is_bound_with() {
        let (_, words, _) = vector_add();
        let verified_kernel = (samples::ALL[0].build)();
        let layout = crate::emit(&verify(&verified_kernel).expect("verifies")).expect("emits");
        check_spirv_layout(&words, "vector_add", &layout).expect("its own layout");

        let error = check_spirv_layout(&words, "other", &layout).expect_err("another name");
        assert!(error.contains("entry points"), "{error}");
        let mut wider = layout.clone();
        wider.workgroup_size = 256;
        let error = check_spirv_layout(&words, "vector_add", &wider).expect_err("another size");
        assert!(error.contains("entry points"), "{error}");
        let mut read_only = layout.clone();
        read_only.buffers[2].access = Access::ReadOnly;
        let error =
            check_spirv_layout(&words, "vector_add", &read_only).expect_err("read-only out");
        assert!(error.contains("bindings"), "{error}");
        let mut extra = layout.clone();
        extra.buffers.push(extra.buffers[0].clone());
        extra.buffers[3].binding = 9;
        let error = check_spirv_layout(&words, "vector_add", &extra).expect_err("a missing buffer");
        assert!(error.contains("bindings"), "{error}");
    }
}
