//! Adapter discovery: every adapter wgpu finds on every backend, enumerated once per process, in
//! preference order (hardware before software), and [`AdapterSummary`], the one-line description
//! `warpforge info` prints.

use std::fmt;
use std::sync::OnceLock;

/// What one WebGPU adapter is and offers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AdapterSummary {
    /// The adapter's name, e.g. `llvmpipe (LLVM 15.0.6, 256 bits)`.
    pub name: String,
    /// The backend wgpu reaches it through (Vulkan, Metal, DX12, GL).
    pub backend: wgpu::Backend,
    /// Discrete, integrated, virtual, CPU or other.
    pub device_type: wgpu::DeviceType,
    /// Driver name and version, as the backend reports them (may be empty).
    pub driver: String,
    /// Whether this is a software rasterizer (a CPU device, llvmpipe/lavapipe, SwiftShader, WARP).
    pub is_software: bool,
    /// Smallest subgroup (warp) size the adapter may use.
    pub subgroup_min_size: u32,
    /// Largest subgroup (warp) size the adapter may use.
    pub subgroup_max_size: u32,
    /// `maxComputeWorkgroupStorageSize`: workgroup (shared) memory in bytes.
    pub max_workgroup_storage_bytes: u32,
    /// `maxComputeInvocationsPerWorkgroup`.
    pub max_invocations_per_workgroup: u32,
    /// `maxStorageBuffersPerShaderStage`.
    pub max_storage_buffers_per_shader_stage: u32,
    /// Whether the adapter offers 64-bit integers in shaders (`wgpu::Features::SHADER_INT64`).
    pub shader_int64: bool,
    /// Whether the adapter offers subgroup (warp) operations (`wgpu::Features::SUBGROUP`).
    pub subgroups: bool,
    /// Whether the adapter offers GPU timestamp queries (`wgpu::Features::TIMESTAMP_QUERY`), which time
    /// kernels on the device's clock.
    pub timestamp_query: bool,
}

impl AdapterSummary {
    /// Summarizes a wgpu adapter.
    pub(crate) fn of(adapter: &wgpu::Adapter) -> AdapterSummary {
        let info = adapter.get_info();
        let limits = adapter.limits();
        let features = adapter.features();
        let driver = [info.driver.trim(), info.driver_info.trim()]
            .into_iter()
            .filter(|part| !part.is_empty())
            .collect::<Vec<_>>()
            .join(" ");
        AdapterSummary {
            is_software: is_software(&info),
            name: info.name,
            backend: info.backend,
            device_type: info.device_type,
            driver,
            subgroup_min_size: info.subgroup_min_size,
            subgroup_max_size: info.subgroup_max_size,
            max_workgroup_storage_bytes: limits.max_compute_workgroup_storage_size,
            max_invocations_per_workgroup: limits.max_compute_invocations_per_workgroup,
            max_storage_buffers_per_shader_stage: limits.max_storage_buffers_per_shader_stage,
            shader_int64: features.contains(wgpu::Features::SHADER_INT64),
            subgroups: features.contains(wgpu::Features::SUBGROUP),
            timestamp_query: features.contains(wgpu::Features::TIMESTAMP_QUERY),
        }
    }

    /// The adapter's name and backend, as error messages name it.
    pub fn label(&self) -> String {
        format!("{} ({})", self.name, self.backend)
    }
}

impl fmt::Display for AdapterSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = if self.is_software {
            "software"
        } else {
            "hardware"
        };
        let yes_no = |b: bool| if b { "yes" } else { "no" };
        write!(
            f,
            "{} [{}, {:?}, {kind}] driver `{}`; subgroup {}..{}; workgroup storage {} B; \
             {} invocations/workgroup; {} storage buffers; int64 {}; subgroups {}; timestamps {}",
            self.name,
            self.backend,
            self.device_type,
            self.driver,
            self.subgroup_min_size,
            self.subgroup_max_size,
            self.max_workgroup_storage_bytes,
            self.max_invocations_per_workgroup,
            self.max_storage_buffers_per_shader_stage,
            yes_no(self.shader_int64),
            yes_no(self.subgroups),
            yes_no(self.timestamp_query),
        )
    }
}

/// Every adapter wgpu finds on the native backends (Vulkan, Metal, DX12; `WGPU_BACKEND=gl` or any other
/// list replaces them), hardware first. Empty when there is none.
///
/// OpenGL is not probed unless named: the kernels need storage buffers, workgroup memory and (the LZ4
/// kernels) 64-bit integers that wgpu's GL backend does not offer, and probing it makes Mesa print
/// `error: XDG_RUNTIME_DIR is invalid` on machines without a display session.
pub fn list_adapters() -> Vec<AdapterSummary> {
    adapters_by_preference()
        .iter()
        .map(AdapterSummary::of)
        .collect()
}

/// Whether an adapter is a software implementation: wgpu says it is a CPU device, or its name is one of
/// the known software rasterizers.
pub(crate) fn is_software(info: &wgpu::AdapterInfo) -> bool {
    const SOFTWARE_NAMES: [&str; 4] =
        ["llvmpipe", "lavapipe", "swiftshader", "basic render driver"];
    let name = info.name.to_lowercase();
    let driver = info.driver.to_lowercase();
    info.device_type == wgpu::DeviceType::Cpu
        || SOFTWARE_NAMES
            .iter()
            .any(|known| name.contains(known) || driver.contains(known))
}

/// Every adapter, hardware before software; among equals, discrete before integrated before virtual,
/// and native backends (Vulkan, Metal, DX12) before GL. Otherwise wgpu's order.
///
/// Enumerated once per process and kept: enumerating is slow on some drivers (lavapipe), and wgpu's GL
/// backend panics (EGL `BadAccess`) when one thread drops a GL adapter while another thread has the
/// shared EGL context current, so adapters are never dropped. wgpu allows several devices per adapter.
pub(crate) fn adapters_by_preference() -> &'static [wgpu::Adapter] {
    static ADAPTERS: OnceLock<(wgpu::Instance, Vec<wgpu::Adapter>)> = OnceLock::new();
    let (_instance, adapters) = ADAPTERS.get_or_init(|| {
        quiet_mesa_device_select();
        let mut descriptor = wgpu::InstanceDescriptor::new_without_display_handle();
        descriptor.backends = wgpu::Backends::PRIMARY;
        let descriptor = descriptor.with_env();
        let backends = descriptor.backends;
        let instance = wgpu::Instance::new(descriptor);
        let mut adapters = pollster::block_on(instance.enumerate_adapters(backends));
        adapters.sort_by_cached_key(|adapter| preference_key(&adapter.get_info()));
        (instance, adapters)
    });
    adapters
}

/// Mesa's device-selection layer (`VK_LAYER_MESA_device_select`, installed with lavapipe) connects to a
/// Wayland display while devices are enumerated, and on a machine without a display session libwayland
/// prints `error: XDG_RUNTIME_DIR is invalid or not set in the environment.` on stderr. The layer only
/// reorders devices for a display; warpforge orders adapters itself. So, when there is no session
/// (`XDG_RUNTIME_DIR` unset or not a directory) and the user has not decided otherwise, the layer is
/// turned off with its documented switch `NODEVICE_SELECT=1`. Set once, before the first Vulkan call of
/// the process.
fn quiet_mesa_device_select() {
    let session = std::env::var_os("XDG_RUNTIME_DIR")
        .is_some_and(|dir| !dir.is_empty() && std::path::Path::new(&dir).is_dir());
    if !session && std::env::var_os("NODEVICE_SELECT").is_none() {
        std::env::set_var("NODEVICE_SELECT", "1");
    }
}

/// Sort key of [`adapters_by_preference`]: smaller is better.
fn preference_key(info: &wgpu::AdapterInfo) -> (bool, u8, u8) {
    let device_rank = match info.device_type {
        wgpu::DeviceType::DiscreteGpu => 0,
        wgpu::DeviceType::IntegratedGpu => 1,
        wgpu::DeviceType::VirtualGpu => 2,
        wgpu::DeviceType::Other => 3,
        wgpu::DeviceType::Cpu => 4,
    };
    let backend_rank = match info.backend {
        wgpu::Backend::Vulkan | wgpu::Backend::Metal | wgpu::Backend::Dx12 => 0,
        wgpu::Backend::Gl => 1,
        _ => 2,
    };
    (is_software(info), device_rank, backend_rank)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(
        name: &str,
        device_type: wgpu::DeviceType,
        backend: wgpu::Backend,
    ) -> wgpu::AdapterInfo {
        wgpu::AdapterInfo {
            name: name.to_owned(),
            ..wgpu::AdapterInfo::new(device_type, backend)
        }
    }

    #[test]
    fn software_adapters_are_recognized_by_type_or_name() {
        use wgpu::{Backend, DeviceType};
        let lavapipe = info(
            "llvmpipe (LLVM 15.0.6, 256 bits)",
            DeviceType::Cpu,
            Backend::Vulkan,
        );
        let gl_llvmpipe = info(
            "llvmpipe (LLVM 15.0.6, 256 bits)",
            DeviceType::Other,
            Backend::Gl,
        );
        let swiftshader = info(
            "SwiftShader Device (Subzero)",
            DeviceType::Other,
            Backend::Vulkan,
        );
        let nvidia = info("NVIDIA H100", DeviceType::DiscreteGpu, Backend::Vulkan);
        assert!(is_software(&lavapipe));
        assert!(is_software(&gl_llvmpipe));
        assert!(is_software(&swiftshader));
        assert!(!is_software(&nvidia));
    }

    #[test]
    fn hardware_sorts_before_software_and_vulkan_before_gl() {
        use wgpu::{Backend, DeviceType};
        let lavapipe = info("llvmpipe", DeviceType::Cpu, Backend::Vulkan);
        let integrated_gl = info("Intel", DeviceType::IntegratedGpu, Backend::Gl);
        let integrated_vk = info("Intel", DeviceType::IntegratedGpu, Backend::Vulkan);
        let discrete = info("NVIDIA", DeviceType::DiscreteGpu, Backend::Vulkan);
        let mut all = [&lavapipe, &integrated_gl, &integrated_vk, &discrete];
        all.sort_by_key(|info| preference_key(info));
        assert_eq!(all, [&discrete, &integrated_vk, &integrated_gl, &lavapipe]);
    }
}
