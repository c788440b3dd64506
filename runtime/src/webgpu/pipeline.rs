//! Shader module, bind group layout (from the [`Wgsl`] contract, not inferred from the shader) and compute
//! pipeline for one kernel, each stage inside error scopes so a shader that does not compile is an `Err`.
//! The shader module is built from the WGSL source, or from SPIR-V words of the same naga module
//! ([`Code::SpirV`], handed to the driver as they are).

use std::borrow::Cow;

use warpforge_ir::Access;
use warpforge_wgsl::Wgsl;

use super::scopes::ErrorScopes;
use super::timestamps::Timestamps;
use super::WebGpuError;

/// A kernel compiled for one device.
pub(crate) struct Pipeline {
    /// Layout of bind group 0: the storage buffers, then the parameter block.
    pub(crate) bind_group_layout: wgpu::BindGroupLayout,
    /// The compute pipeline of the kernel's entry point.
    pub(crate) pipeline: wgpu::ComputePipeline,
}

/// What a kernel's shader module is built from.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Code<'a> {
    /// `Wgsl::source`, through wgpu's WGSL front end.
    Wgsl,
    /// A SPIR-V module of the same kernel (`warpforge_wgsl::emit_target`), passed through to the Vulkan
    /// driver unchanged; the device must have `wgpu::Features::PASSTHROUGH_SHADERS`.
    SpirV {
        /// The module.
        words: &'a [u32],
        /// Its compute entry point's name.
        entry_point: &'a str,
    },
}

/// Compiles `kernel` on `device`, its shader module built from `code`.
pub(crate) fn build(
    device: &wgpu::Device,
    kernel: &Wgsl,
    code: Code<'_>,
) -> Result<Pipeline, WebGpuError> {
    let label = Some(kernel.entry_point.as_str());

    let scopes = ErrorScopes::push(device);
    let (module, entry_point) = match code {
        Code::Wgsl => {
            let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label,
                source: wgpu::ShaderSource::Wgsl(Cow::Borrowed(&kernel.source)),
            });
            (module, kernel.entry_point.as_str())
        }
        Code::SpirV { words, entry_point } => {
            warpforge_wgsl::targets::check_spirv_layout(words, entry_point, kernel).map_err(
                |message| WebGpuError::Validation {
                    stage: "SPIR-V check",
                    message: format!("kernel `{}`: {message}", kernel.entry_point),
                },
            )?;
            let entry_points = [wgpu::PassthroughShaderEntryPoint {
                name: Cow::Borrowed(entry_point),
                workgroup_size: (kernel.workgroup_size, 1, 1),
            }];
            let descriptor = wgpu::ShaderModuleDescriptorPassthrough {
                label,
                entry_points: Cow::Borrowed(&entry_points),
                spirv: Some(Cow::Borrowed(words)),
                ..Default::default()
            };
            // SAFETY: wgpu hands the words to the driver without checking them, so they were checked
            // just above (`check_spirv_layout`): naga's SPIR-V front end read them and naga validated
            // the module, with 64-bit integers only when `Requirements::shader_int64` says so (and
            // `run_code` checked that this device offers them); its one entry point is the compute
            // one we name below with the layout's workgroup size, and its bindings are exactly those
            // of the bind group layout built below from the same `Wgsl`. (`emit_target` writes such
            // words; the tests also run `spirv-val` on them.)
            let module = unsafe { device.create_shader_module_passthrough(descriptor) };
            (module, entry_point)
        }
    };
    scopes.pop("shader module")?;

    let scopes = ErrorScopes::push(device);
    let entries: Vec<wgpu::BindGroupLayoutEntry> = kernel
        .buffers
        .iter()
        .map(|buffer| {
            let read_only = buffer.access == Access::ReadOnly;
            layout_entry(
                buffer.binding,
                wgpu::BufferBindingType::Storage { read_only },
            )
        })
        .chain([layout_entry(
            kernel.params.binding,
            wgpu::BufferBindingType::Uniform,
        )])
        .collect();
    let bind_group_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label,
        entries: &entries,
    });
    let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label,
        bind_group_layouts: &[Some(&bind_group_layout)],
        immediate_size: 0,
    });
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label,
        layout: Some(&pipeline_layout),
        module: &module,
        entry_point: Some(entry_point),
        compilation_options: wgpu::PipelineCompilationOptions::default(),
        cache: None,
    });
    scopes.pop("compute pipeline")?;

    Ok(Pipeline {
        bind_group_layout,
        pipeline,
    })
}

/// One buffer binding visible to the compute stage.
fn layout_entry(binding: u32, ty: wgpu::BufferBindingType) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty,
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

impl Pipeline {
    /// The bind group of one launch of `kernel`: `buffers` at their bindings (binding order), then the
    /// parameter block `params`. Call inside error scopes.
    pub(crate) fn bind_group(
        &self,
        device: &wgpu::Device,
        kernel: &Wgsl,
        buffers: &[&wgpu::Buffer],
        params: &wgpu::Buffer,
    ) -> wgpu::BindGroup {
        let entries: Vec<wgpu::BindGroupEntry<'_>> = (kernel.buffers.iter())
            .zip(buffers)
            .map(|(binding, buffer)| wgpu::BindGroupEntry {
                binding: binding.binding,
                resource: buffer.as_entire_binding(),
            })
            .chain([wgpu::BindGroupEntry {
                binding: kernel.params.binding,
                resource: params.as_entire_binding(),
            }])
            .collect();
        device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(&kernel.entry_point),
            layout: &self.bind_group_layout,
            entries: &entries,
        })
    }

    /// An encoder holding one compute pass of `kernel` over `(x, y, z)` workgroups on `bind_group`,
    /// with `timestamps` written at its beginning and end where given. Call inside error scopes.
    pub(crate) fn encode(
        &self,
        device: &wgpu::Device,
        kernel: &Wgsl,
        bind_group: &wgpu::BindGroup,
        (x, y, z): (u32, u32, u32),
        timestamps: Option<&Timestamps>,
    ) -> wgpu::CommandEncoder {
        let label = Some(kernel.entry_point.as_str());
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label });
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label,
                timestamp_writes: timestamps.map(Timestamps::writes),
            });
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(0, bind_group, &[]);
            pass.dispatch_workgroups(x, y, z);
        }
        encoder
    }
}
