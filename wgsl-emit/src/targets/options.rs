//! The writer options of each target (the [parent module's docs](super) say what they are and why).

use std::collections::BTreeMap;

use naga::back::{hlsl, msl, spv};
use naga::proc::{BoundsCheckPolicies, BoundsCheckPolicy};
use naga::{AddressSpace, Module, ResourceBinding};

/// The SPIR-V version written (Vulkan 1.1 consumes it).
pub const SPIRV_VERSION: (u8, u8) = (1, 3);
/// The Metal Shading Language version written.
pub const MSL_VERSION: (u8, u8) = (2, 3);
/// The HLSL shader model written.
pub const HLSL_SHADER_MODEL: hlsl::ShaderModel = hlsl::ShaderModel::V6_0;

/// Clamp every index into range: what WGSL prescribes for arrays, kept on APIs without robust access.
fn restrict() -> BoundsCheckPolicies {
    BoundsCheckPolicies {
        index: BoundsCheckPolicy::Restrict,
        buffer: BoundsCheckPolicy::Restrict,
        image_load: BoundsCheckPolicy::Restrict,
        binding_array: BoundsCheckPolicy::Unchecked,
    }
}

pub(super) fn spirv_options(module: &Module, int64: bool) -> spv::Options<'static> {
    let binding_map = bindings(module)
        .into_iter()
        .map(|(binding, _)| {
            let info = spv::BindingInfo {
                descriptor_set: binding.group,
                binding: binding.binding,
                binding_array_size: None,
            };
            (binding, info)
        })
        .collect();
    let mut capabilities = naga::FastHashSet::default();
    capabilities.insert(spv::Capability::Shader);
    if int64 {
        capabilities.insert(spv::Capability::Int64);
    }
    spv::Options {
        lang_version: SPIRV_VERSION,
        flags: spv::WriterFlags::DEBUG,
        fake_missing_bindings: false,
        binding_map,
        capabilities: Some(capabilities),
        bounds_check_policies: restrict(),
        // Zeroed by the lowering instead (`lower::zeroing`, see the targets module docs).
        zero_initialize_workgroup_memory: spv::ZeroInitializeWorkgroupMemoryMode::None,
        force_loop_bounding: true,
        emit_int_div_checks: true,
        ..spv::Options::default()
    }
}

/// The module's resource bindings, in binding order, with whether each is writable storage.
pub(super) fn bindings(module: &Module) -> Vec<(ResourceBinding, AddressSpace)> {
    let mut found: Vec<_> = module
        .global_variables
        .iter()
        .filter_map(|(_, var)| var.binding.map(|b| (b, var.space)))
        .collect();
    found.sort_by_key(|(b, _)| (b.group, b.binding));
    found
}

fn writable(space: AddressSpace) -> bool {
    matches!(space, AddressSpace::Storage { access } if access.contains(naga::StorageAccess::STORE))
}

pub(super) fn msl_options(module: &Module, entry: &str) -> Result<msl::Options, String> {
    let slot = |binding: u32| {
        u8::try_from(binding).map_err(|_| format!("binding {binding} has no Metal buffer slot"))
    };
    let mut resources = msl::BindingMap::default();
    let mut next = 0;
    for (binding, space) in bindings(module) {
        resources.insert(
            binding,
            msl::BindTarget {
                buffer: Some(slot(binding.binding)?),
                mutable: writable(space),
                ..msl::BindTarget::default()
            },
        );
        next = next.max(binding.binding + 1);
    }
    let resources = msl::EntryPointResources {
        resources,
        immediates_buffer: None,
        sizes_buffer: Some(slot(next)?),
    };
    Ok(msl::Options {
        lang_version: MSL_VERSION,
        per_entry_point_map: BTreeMap::from([(entry.to_owned(), resources)]),
        fake_missing_bindings: false,
        bounds_check_policies: restrict(),
        zero_initialize_workgroup_memory: true,
        force_loop_bounding: true,
        emit_int_div_checks: true,
        ..msl::Options::default()
    })
}

pub(super) fn hlsl_options(module: &Module) -> hlsl::Options {
    let mut binding_map = hlsl::BindingMap::default();
    let mut next = 0;
    for (binding, _) in bindings(module) {
        let target = hlsl::BindTarget {
            space: 0,
            register: binding.binding,
            ..hlsl::BindTarget::default()
        };
        binding_map.insert(binding, target);
        next = next.max(binding.binding + 1);
    }
    hlsl::Options {
        shader_model: HLSL_SHADER_MODEL,
        binding_map,
        fake_missing_bindings: false,
        special_constants_binding: Some(hlsl::BindTarget {
            space: 0,
            register: next,
            ..hlsl::BindTarget::default()
        }),
        zero_initialize_workgroup_memory: true,
        restrict_indexing: true,
        force_loop_bounding: true,
        ..hlsl::Options::default()
    }
}
