//! CUDA device discovery without panics: whether the driver library is there, every device described
//! from its attributes ([`CudaDeviceInfo`]), the first supported one probed once per process
//! ([`cuda_probe`]), and the pinned host-to-device bandwidth.

use std::sync::{Arc, OnceLock};

use cudarc::driver::{sys, CudaContext};
use warpforge_ptx::Sm;

use super::error::driver_err;
use super::CudaError;

/// A CUDA device, as its attributes describe it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CudaDeviceInfo {
    /// The device ordinal.
    pub index: u32,
    /// `cuDeviceGetName`.
    pub name: String,
    /// `cuDeviceTotalMem`, bytes.
    pub total_memory: u64,
    /// `CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE`, bytes.
    pub l2_cache_size: u64,
    /// Compute capability (major, minor).
    pub compute_capability: (u32, u32),
    /// `CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT`.
    pub multiprocessors: u32,
    /// `CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN`, bytes: the most shared memory one block
    /// may have once the kernel opted in.
    pub max_shared_per_block_optin: u32,
}

impl CudaDeviceInfo {
    /// Whether warpforge's PTX runs on it: SM 7.0 or newer (independent thread scheduling, `match.sync`).
    pub fn is_supported(&self) -> bool {
        self.compute_capability >= (7, 0)
    }

    /// The newest PTX target the device runs natively.
    pub fn sm(&self) -> Sm {
        match self.compute_capability.0 {
            9.. => Sm::Sm90,
            8 => Sm::Sm80,
            _ => Sm::Sm70,
        }
    }

    /// `NAME (device N, SM X.Y)`.
    pub fn label(&self) -> String {
        let (major, minor) = self.compute_capability;
        format!("{} (device {}, SM {major}.{minor})", self.name, self.index)
    }
}

/// Whether the CUDA driver library can be loaded, and how many devices it reports (0 without one).
/// Never panics.
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

fn attribute(
    ctx: &Arc<CudaContext>,
    attribute: sys::CUdevice_attribute,
    call: &'static str,
) -> Result<u32, CudaError> {
    Ok(ctx.attribute(attribute).map_err(driver_err(call))?.max(0) as u32)
}

/// The description of the device of `ctx`, read from the device.
pub fn device_info(ctx: &Arc<CudaContext>, index: u32) -> Result<CudaDeviceInfo, CudaError> {
    use sys::CUdevice_attribute as A;
    let (major, minor) = ctx
        .compute_capability()
        .map_err(driver_err("cuDeviceGetAttribute(compute capability)"))?;
    Ok(CudaDeviceInfo {
        index,
        name: ctx.name().map_err(driver_err("cuDeviceGetName"))?,
        total_memory: ctx.total_mem().map_err(driver_err("cuDeviceTotalMem"))? as u64,
        l2_cache_size: u64::from(attribute(
            ctx,
            A::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE,
            "cuDeviceGetAttribute(L2 cache size)",
        )?),
        compute_capability: (major.max(0) as u32, minor.max(0) as u32),
        multiprocessors: attribute(
            ctx,
            A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
            "cuDeviceGetAttribute(multiprocessor count)",
        )?,
        max_shared_per_block_optin: attribute(
            ctx,
            A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
            "cuDeviceGetAttribute(max shared memory per block, opt-in)",
        )?,
    })
}

/// Every CUDA device, described; empty without a driver.
pub fn cuda_devices() -> Vec<Result<CudaDeviceInfo, CudaError>> {
    (0..driver_device_count())
        .map(|i| {
            let ctx = CudaContext::new(i).map_err(driver_err("cuCtxCreate"))?;
            device_info(&ctx, i as u32)
        })
        .collect()
}

/// The first supported CUDA device, or why there is none (no driver library, no device, only devices
/// older than SM 7.0, or a driver error), probed once per process and kept.
pub fn cuda_probe() -> &'static Result<CudaDeviceInfo, String> {
    static PROBE: OnceLock<Result<CudaDeviceInfo, String>> = OnceLock::new();
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

/// A context on device `index`, after checking that the device exists and is supported.
pub fn open_context(index: u32) -> Result<(Arc<CudaContext>, CudaDeviceInfo), CudaError> {
    let count = driver_device_count();
    if count == 0 {
        return Err(CudaError::NotAvailable(match cuda_probe() {
            Err(why) => why.clone(),
            Ok(_) => "the CUDA driver reports no device".into(),
        }));
    }
    if index as usize >= count {
        return Err(CudaError::NotAvailable(format!(
            "device {index}, but there are {count} CUDA devices"
        )));
    }
    let ctx = CudaContext::new(index as usize).map_err(driver_err("cuCtxCreate"))?;
    let info = device_info(&ctx, index)?;
    if !info.is_supported() {
        let (major, minor) = info.compute_capability;
        return Err(CudaError::NotAvailable(format!(
            "{} is SM {major}.{minor}; warpforge needs SM 7.0+",
            info.name
        )));
    }
    Ok((ctx, info))
}

/// Host-to-device bandwidth of CUDA device `index` in GB/s (10⁹ B/s): `bytes` from pinned memory in one
/// async copy, timed with events, best of 5.
pub fn measure_h2d_gbps(index: u32, bytes: usize) -> Result<f64, CudaError> {
    let (ctx, _) = open_context(index)?;
    let stream = ctx.new_stream().map_err(driver_err("cuStreamCreate"))?;
    // SAFETY: the pinned buffer is only the source of a copy; its contents do not matter.
    let host =
        unsafe { ctx.alloc_pinned::<u8>(bytes.max(1)) }.map_err(driver_err("cuMemHostAlloc"))?;
    let mut dev = stream
        .alloc_zeros::<u8>(bytes.max(1))
        .map_err(driver_err("cuMemAlloc"))?;
    let event = || {
        ctx.new_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT))
            .map_err(driver_err("cuEventCreate"))
    };
    let (a, b) = (event()?, event()?);
    let mut best = f64::MAX;
    for _ in 0..5 {
        a.record(&stream).map_err(driver_err("cuEventRecord"))?;
        stream
            .memcpy_htod(&host, &mut dev)
            .map_err(driver_err("cuMemcpyHtoDAsync"))?;
        b.record(&stream).map_err(driver_err("cuEventRecord"))?;
        b.synchronize().map_err(driver_err("cuEventSynchronize"))?;
        best = best.min(f64::from(
            a.elapsed_ms(&b).map_err(driver_err("cuEventElapsedTime"))?,
        ));
    }
    Ok(bytes as f64 / (best.max(1e-6) / 1e3) / 1e9)
}
