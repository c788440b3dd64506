//! Matching a kernel's [`Requirements`] against what an adapter or device offers, and the features a
//! device is created with. Shortfalls are spelled with WebGPU's limit names and both numbers.

use warpforge_wgsl::Requirements;

/// Every limit or feature in `limits`/`features` below what `req` needs, one line each (empty when the
/// requirements are met).
pub(crate) fn shortfalls(
    limits: &wgpu::Limits,
    features: wgpu::Features,
    req: &Requirements,
) -> Vec<String> {
    let mut missing = Vec::new();
    let mut check = |name: &str, unit: &str, have: u32, need: u32| {
        if have < need {
            missing.push(format!("{name} is {have}{unit}, the kernel needs {need}"));
        }
    };
    check(
        "maxComputeWorkgroupStorageSize",
        " bytes",
        limits.max_compute_workgroup_storage_size,
        req.workgroup_storage_bytes,
    );
    check(
        "maxComputeInvocationsPerWorkgroup",
        "",
        limits.max_compute_invocations_per_workgroup,
        req.invocations_per_workgroup,
    );
    check(
        "maxComputeWorkgroupSizeX",
        "",
        limits.max_compute_workgroup_size_x,
        req.invocations_per_workgroup,
    );
    check(
        "maxStorageBuffersPerShaderStage",
        "",
        limits.max_storage_buffers_per_shader_stage,
        req.storage_buffers,
    );
    if req.shader_int64 && !features.contains(wgpu::Features::SHADER_INT64) {
        missing.push(
            "feature `wgpu-shader-int64` (SHADER_INT64) is not offered, the kernel uses 64-bit integers"
                .to_owned(),
        );
    }
    missing
}

/// The features to create a device with: `SHADER_INT64` when the kernel needs it; `SUBGROUP` whenever
/// the adapter offers it (warp collectives lower to subgroup operations where the device's subgroups
/// measure 32 or 64 wide, `subgroups.rs`; enabling the feature costs nothing); `TIMESTAMP_QUERY` whenever
/// the adapter offers it (kernel times from the GPU's own clock, see `timestamps.rs`);
/// `PASSTHROUGH_SHADERS` whenever the adapter offers it (a kernel's SPIR-V runs unchanged, see
/// `spirv.rs`; the feature only allows that API).
pub(crate) fn device_features(
    adapter_features: wgpu::Features,
    req: &Requirements,
) -> wgpu::Features {
    let mut features = wgpu::Features::empty();
    if req.shader_int64 {
        features |= wgpu::Features::SHADER_INT64;
    }
    let whenever_offered = wgpu::Features::SUBGROUP
        | wgpu::Features::TIMESTAMP_QUERY
        | wgpu::Features::PASSTHROUGH_SHADERS;
    features | (adapter_features & whenever_offered)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(workgroup_storage_bytes: u32, shader_int64: bool) -> Requirements {
        Requirements {
            workgroup_storage_bytes,
            invocations_per_workgroup: 128,
            storage_buffers: 2,
            shader_int64,
        }
    }

    #[test]
    fn defaults_meet_small_kernels() {
        let limits = wgpu::Limits::default();
        assert!(shortfalls(&limits, wgpu::Features::empty(), &req(4096, false)).is_empty());
    }

    #[test]
    fn each_shortfall_names_the_limit_and_both_numbers() {
        let limits = wgpu::Limits::default();
        let missing = shortfalls(&limits, wgpu::Features::empty(), &req(1 << 30, true));
        assert_eq!(
            missing,
            [
                "maxComputeWorkgroupStorageSize is 16384 bytes, the kernel needs 1073741824",
                "feature `wgpu-shader-int64` (SHADER_INT64) is not offered, the kernel uses 64-bit \
                 integers",
            ]
        );
    }

    #[test]
    fn timestamps_are_requested_whenever_offered() {
        let offered = wgpu::Features::TIMESTAMP_QUERY | wgpu::Features::SHADER_F16;
        assert_eq!(
            device_features(offered, &req(0, false)),
            wgpu::Features::TIMESTAMP_QUERY
        );
        let offered = offered | wgpu::Features::SUBGROUP | wgpu::Features::SHADER_INT64;
        assert_eq!(
            device_features(offered, &req(0, true)),
            offered - wgpu::Features::SHADER_F16
        );
    }

    #[test]
    fn passthrough_shaders_are_requested_whenever_offered() {
        let offered = wgpu::Features::PASSTHROUGH_SHADERS | wgpu::Features::SHADER_F16;
        assert_eq!(
            device_features(offered, &req(0, false)),
            wgpu::Features::PASSTHROUGH_SHADERS
        );
    }

    #[test]
    fn int64_is_requested_only_when_needed() {
        let offered = wgpu::Features::SHADER_INT64 | wgpu::Features::SUBGROUP;
        assert_eq!(
            device_features(offered, &req(0, false)),
            wgpu::Features::SUBGROUP
        );
        assert_eq!(device_features(offered, &req(0, true)), offered);
        assert_eq!(
            device_features(wgpu::Features::empty(), &req(0, false)),
            wgpu::Features::empty()
        );
    }
}
