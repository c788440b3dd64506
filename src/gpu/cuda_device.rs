//! CUDA device discovery without panics: whether the driver library is there, every device described
//! from its attributes ([`GpuDeviceInfo`]), the first supported one probed once per process
//! ([`cuda_probe`]), and the pinned host-to-device bandwidth.

use std::sync::Arc;

use super::cuda::err;
use super::{GpuBackend, GpuDeviceInfo, GpuError};
use crate::runtime::cudarc::driver::{sys, CudaContext};

/// Whether the CUDA driver library can be loaded and reports at least one device. Never panics.
pub fn driver_device_count() -> usize {
    // SAFETY: `is_culib_present` only tries to open the driver library by its known names; it touches
    // no CUDA state.
    if !unsafe { sys::is_culib_present() } {
        return 0;
    }
    CudaContext::device_count()
        .map(|n| n.max(0) as usize)
        .unwrap_or(0)
}

/// The description of CUDA device `index`, read from the device.
pub fn device_info(ctx: &Arc<CudaContext>, index: u32) -> Result<GpuDeviceInfo, GpuError> {
    let (major, minor) = ctx
        .compute_capability()
        .map_err(err("cuDeviceGetAttribute(compute capability)"))?;
    let l2 = ctx
        .attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)
        .map_err(err("cuDeviceGetAttribute(L2 cache size)"))?;
    Ok(GpuDeviceInfo {
        index,
        name: ctx.name().map_err(err("cuDeviceGetName"))?,
        total_memory: ctx.total_mem().map_err(err("cuDeviceTotalMem"))? as u64,
        l2_cache_size: l2.max(0) as u64,
        compute_capability: (major.max(0) as u32, minor.max(0) as u32),
        backend: GpuBackend::Cuda,
    })
}

/// The first supported CUDA device, or why there is none (no driver library, no device, only devices
/// older than SM 7.0, or a driver error), probed once per process and kept.
pub fn cuda_probe() -> &'static Result<GpuDeviceInfo, String> {
    static PROBE: std::sync::OnceLock<Result<GpuDeviceInfo, String>> = std::sync::OnceLock::new();
    PROBE.get_or_init(|| {
        // SAFETY: `is_culib_present` only tries to open the driver library by its known names.
        if !unsafe { sys::is_culib_present() } {
            return Err("no CUDA driver library (libcuda.so) on this machine".into());
        }
        let devices = cuda_devices();
        if devices.is_empty() {
            return Err("the CUDA driver reports no device".into());
        }
        let mut why = Vec::new();
        for device in devices {
            match device {
                Ok(d) if d.is_supported() => return Ok(d),
                Ok(d) => why.push(format!(
                    "device {} ({}) is SM {}.{}, warpforge needs SM 7.0+",
                    d.index, d.name, d.compute_capability.0, d.compute_capability.1
                )),
                Err(e) => why.push(e.to_string()),
            }
        }
        Err(why.join("; "))
    })
}

/// Every CUDA device, described; empty without a driver.
pub fn cuda_devices() -> Vec<Result<GpuDeviceInfo, GpuError>> {
    (0..driver_device_count())
        .map(|i| {
            let ctx = CudaContext::new(i).map_err(err("cuCtxCreate"))?;
            device_info(&ctx, i as u32)
        })
        .collect()
}

/// Host-to-device bandwidth of CUDA device `index` in GB/s (10⁹ B/s): `bytes` from pinned memory in one
/// async copy, timed with events, best of 5.
pub fn measure_h2d_gbps(index: u32, bytes: usize) -> Result<f64, GpuError> {
    if driver_device_count() <= index as usize {
        return Err(GpuError::NotAvailable(format!("no CUDA device {index}")));
    }
    let ctx = CudaContext::new(index as usize).map_err(err("cuCtxCreate"))?;
    let stream = ctx.new_stream().map_err(err("cuStreamCreate"))?;
    // SAFETY: the pinned buffer is only the source of a copy; its contents do not matter.
    let host = unsafe { ctx.alloc_pinned::<u8>(bytes.max(1)) }.map_err(err("cuMemHostAlloc"))?;
    let mut dev = stream
        .alloc_zeros::<u8>(bytes.max(1))
        .map_err(err("cuMemAlloc"))?;
    let (a, b) = (
        ctx.new_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT))
            .map_err(err("cuEventCreate"))?,
        ctx.new_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT))
            .map_err(err("cuEventCreate"))?,
    );
    let mut best = f64::MAX;
    for _ in 0..5 {
        a.record(&stream).map_err(err("cuEventRecord"))?;
        stream
            .memcpy_htod(&host, &mut dev)
            .map_err(err("cuMemcpyHtoDAsync"))?;
        b.record(&stream).map_err(err("cuEventRecord"))?;
        b.synchronize().map_err(err("cuEventSynchronize"))?;
        best = best.min(f64::from(
            a.elapsed_ms(&b).map_err(err("cuEventElapsedTime"))?,
        ));
    }
    Ok(bytes as f64 / (best.max(1e-6) / 1e3) / 1e9)
}
