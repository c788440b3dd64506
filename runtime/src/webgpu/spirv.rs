//! [`WebGpuDevice::run_spirv`]: a launch whose shader module is the kernel's SPIR-V
//! (`warpforge_wgsl::emit_target(.., ShaderTarget::SpirV)`) instead of its WGSL, with the same layout.
//!
//! The words reach the Vulkan driver unchanged through wgpu's passthrough API
//! (`Device::create_shader_module_passthrough`, feature `PASSTHROUGH_SHADERS`, which wgpu 30 offers on
//! Vulkan): the driver compiles exactly what warpforge wrote. (`ShaderSource::SpirV`, the other way
//! wgpu takes SPIR-V, would parse it into a naga module and write new SPIR-V from that, so the driver
//! would never see warpforge's.) The pipeline is cached like a WGSL one, keyed by the words too.

use warpforge_wgsl::{Shader, ShaderTarget, Wgsl};

use super::pipeline::Code;
use super::{AdapterShortfall, BufferArg, WebGpuDevice, WebGpuError};
use crate::Timings;

impl WebGpuDevice {
    /// [`WebGpuDevice::run`], with the shader module built from `spirv`, the same kernel written as
    /// SPIR-V, instead of `kernel.source`; `kernel` gives the layout (bindings, parameter block,
    /// requirements, dispatch) as for WGSL.
    ///
    /// # Errors
    ///
    /// [`WebGpuError::Arguments`] when `spirv` is not SPIR-V; [`WebGpuError::Unsupported`] when the
    /// device is not a Vulkan device with `PASSTHROUGH_SHADERS`; otherwise those of
    /// [`WebGpuDevice::run`].
    pub fn run_spirv(
        &self,
        kernel: &Wgsl,
        spirv: &Shader,
        blocks: u32,
        buffers: &mut [BufferArg<'_>],
        scalars: &[u64],
    ) -> Result<Timings, WebGpuError> {
        let words = match (spirv.target, spirv.words()) {
            (ShaderTarget::SpirV, Some(words)) => words,
            _ => {
                return Err(WebGpuError::Arguments(format!(
                    "kernel `{}`: run_spirv needs SPIR-V, got {}",
                    kernel.entry_point, spirv.target
                )))
            }
        };
        let missing = spirv_shortfalls(self.summary.backend, self.device.features());
        if !missing.is_empty() {
            return Err(WebGpuError::Unsupported {
                adapters: vec![AdapterShortfall {
                    adapter: self.summary.label(),
                    missing,
                }],
            });
        }
        let code = Code::SpirV {
            words,
            entry_point: &spirv.entry_point,
        };
        self.run_code(kernel, code, [blocks, 1, 1], buffers, scalars)
    }

    /// Whether this device can run SPIR-V with [`WebGpuDevice::run_spirv`]; if not, why.
    pub fn spirv_support(&self) -> Result<(), String> {
        let missing = spirv_shortfalls(self.summary.backend, self.device.features());
        if missing.is_empty() {
            Ok(())
        } else {
            Err(missing.join("; "))
        }
    }
}

/// What a device on `backend` with `features` lacks to take SPIR-V unchanged.
fn spirv_shortfalls(backend: wgpu::Backend, features: wgpu::Features) -> Vec<String> {
    let mut missing = Vec::new();
    if backend != wgpu::Backend::Vulkan {
        missing.push(format!(
            "SPIR-V reaches the driver unchanged only on Vulkan, the adapter is on {backend:?}"
        ));
    }
    if !features.contains(wgpu::Features::PASSTHROUGH_SHADERS) {
        missing
            .push("feature `passthrough-shaders` (PASSTHROUGH_SHADERS) is not offered".to_owned());
    }
    missing
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spirv_needs_vulkan_and_passthrough() {
        let passthrough = wgpu::Features::PASSTHROUGH_SHADERS;
        assert!(spirv_shortfalls(wgpu::Backend::Vulkan, passthrough).is_empty());
        let missing = spirv_shortfalls(wgpu::Backend::Metal, wgpu::Features::empty());
        assert_eq!(missing.len(), 2, "{missing:?}");
        assert!(missing[0].contains("Metal"), "{missing:?}");
        assert!(missing[1].contains("PASSTHROUGH_SHADERS"), "{missing:?}");
    }
}
