//! Shader module, bind group layout (from the [`Wgsl`] contract, not inferred from the shader) and compute
//! pipeline for one kernel, each stage inside error scopes so a shader that does not compile is an `Err`.

use std::borrow::Cow;

use warpforge_ir::Access;
use warpforge_wgsl::Wgsl;

use super::scopes::ErrorScopes;
use super::WebGpuError;

/// A kernel compiled for one device.
pub(crate) struct Pipeline {
    /// Layout of bind group 0: the storage buffers, then the parameter block.
    pub(crate) bind_group_layout: wgpu::BindGroupLayout,
    /// The compute pipeline of the kernel's entry point.
    pub(crate) pipeline: wgpu::ComputePipeline,
}

/// Compiles `kernel` on `device`.
pub(crate) fn build(device: &wgpu::Device, kernel: &Wgsl) -> Result<Pipeline, WebGpuError> {
    let label = Some(kernel.entry_point.as_str());

    let scopes = ErrorScopes::push(device);
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label,
        source: wgpu::ShaderSource::Wgsl(Cow::Borrowed(&kernel.source)),
    });
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
        entry_point: Some(&kernel.entry_point),
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
