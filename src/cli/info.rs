//! `warpforge info`: the backends and devices this machine has.

use warpforge::ptx::ptxas::Ptxas;

/// Prints ptxas, the CUDA devices and the WebGPU adapters found.
pub fn run() {
    println!("ptx: emitted for sm_70, sm_80, sm_90");
    match Ptxas::find() {
        Some(p) => println!(
            "ptxas: {} ({})",
            p.path().display(),
            p.version().unwrap_or_default()
        ),
        None => println!("ptxas: not found (set WARPFORGE_PTXAS; needed for --report)"),
    }
    let cuda = warpforge::gpu::cuda_devices();
    if cuda.is_empty() {
        println!("cuda: no driver or no device (gpu_available() = false)");
    }
    for (i, device) in cuda.iter().enumerate() {
        match device {
            Ok(d) => println!(
                "cuda device {}: {}, SM {}.{}, {} MiB memory, {} MiB L2, supported: {}, optimal batch: {} pages",
                d.index,
                d.name,
                d.compute_capability.0,
                d.compute_capability.1,
                d.total_memory >> 20,
                d.l2_cache_size >> 20,
                d.is_supported(),
                d.optimal_batch_size()
            ),
            Err(e) => println!("cuda device {i}: {e}"),
        }
    }
    let adapters = warpforge::runtime::webgpu::list_adapters();
    if adapters.is_empty() {
        println!("webgpu: no adapter found (on Linux without a GPU: apt-get install mesa-vulkan-drivers)");
    }
    for (i, adapter) in adapters.iter().enumerate() {
        println!("webgpu adapter {i}: {adapter}");
    }
    if adapters.is_empty() {
        return;
    }
    // The device the LZ4 kernels open, and how its warps lower (the runtime measures its subgroups).
    let opened = warpforge::auto::webgpu_requirements()
        .map_err(|e| e.to_string())
        .and_then(|req| {
            warpforge::runtime::webgpu::WebGpuDevice::new(&req).map_err(|e| e.to_string())
        });
    match opened {
        Ok(device) => {
            let (lowering, why) = device.warp_choice();
            println!(
                "webgpu warps on {}: {lowering} ({why})",
                device.adapter().name
            );
        }
        Err(e) => println!("webgpu warps: no device for the LZ4 kernels ({e})"),
    }
}
