//! A kernel's PTX loaded on a CUDA device ([`CudaKernel`]): emitted for the device's SM, checked
//! against the device's shared-memory limit, loaded with the JIT error log when the driver rejects it,
//! opted in to its dynamic shared memory, and given launch configurations from its [`LaunchInfo`].

use std::sync::Arc;

use cudarc::driver::{sys, CudaContext, CudaFunction, LaunchConfig};
use cudarc::nvrtc::Ptx;
use warpforge_ir::Verified;
use warpforge_ptx::{LaunchInfo, Sm};

use super::error::driver_err;
use super::{CudaDeviceInfo, CudaError};

/// A kernel loaded from warpforge's PTX, with its launch metadata.
pub struct CudaKernel {
    /// The loaded entry point.
    pub function: CudaFunction,
    /// Parameters, block size and shared memory, from the emitter.
    pub launch: LaunchInfo,
    /// The PTX target it was emitted for.
    pub sm: Sm,
}

impl CudaKernel {
    /// Emits `kernel` as PTX for `sm` and loads it on the device of `ctx` (described by `device`).
    pub fn load(
        ctx: &Arc<CudaContext>,
        device: &CudaDeviceInfo,
        kernel: &Verified<'_>,
        sm: Sm,
    ) -> Result<CudaKernel, CudaError> {
        let ptx = warpforge_ptx::emit(kernel, sm).map_err(|e| {
            CudaError::Unsupported(format!("kernel `{}`: PTX for {sm}: {e}", kernel.name))
        })?;
        // `shared_bytes` is the whole per-block need (static, or dynamic when that is non-zero).
        let needs = ptx.launch.shared_bytes;
        let allows = device.max_shared_per_block_optin;
        if needs > allows {
            return Err(CudaError::Unsupported(format!(
                "kernel `{}` needs {needs} bytes of shared memory per block; {} allows {allows} \
                 (CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)",
                ptx.launch.entry, device.name
            )));
        }
        let function = load_entry(
            ctx,
            &ptx.text,
            &ptx.launch.entry,
            ptx.launch.dynamic_shared_bytes,
        )?;
        Ok(CudaKernel {
            function,
            launch: ptx.launch,
            sm,
        })
    }

    /// The launch configuration for `blocks` blocks: the kernel's own block size and dynamic shared
    /// memory.
    pub fn config(&self, blocks: u64) -> Result<LaunchConfig, CudaError> {
        let c = self
            .launch
            .config(blocks)
            .map_err(|e| CudaError::Arguments(e.to_string()))?;
        Ok(LaunchConfig {
            grid_dim: c.grid,
            block_dim: c.block,
            shared_mem_bytes: c.dynamic_shared_bytes,
        })
    }

    /// The launch configuration for a grid of `[x, y, z]` blocks (see
    /// `warpforge_ptx::LaunchInfo::config_grid`).
    pub fn config_grid(&self, grid: [u32; 3]) -> Result<LaunchConfig, CudaError> {
        let c = self
            .launch
            .config_grid(grid)
            .map_err(|e| CudaError::Arguments(e.to_string()))?;
        Ok(LaunchConfig {
            grid_dim: c.grid,
            block_dim: c.block,
            shared_mem_bytes: c.dynamic_shared_bytes,
        })
    }
}

/// Loads `ptx` (the driver compiles it for the device), takes its `entry`, and opts it in to
/// `dynamic_shared` bytes of dynamic shared memory when that is above the default 48 KiB (asking for
/// any amount is harmless below it). A rejection is [`CudaError::Jit`] with the driver's log.
pub(super) fn load_entry(
    ctx: &Arc<CudaContext>,
    ptx: &str,
    entry: &str,
    dynamic_shared: u32,
) -> Result<CudaFunction, CudaError> {
    let module = ctx
        .load_module(Ptx::from_src(ptx.to_owned()))
        .map_err(|e| CudaError::Jit {
            entry: entry.to_owned(),
            code: e.0 as u32,
            log: jit_error_log(ctx, ptx).unwrap_or_default(),
        })?;
    let function = module
        .load_function(entry)
        .map_err(driver_err("cuModuleGetFunction"))?;
    if dynamic_shared > 0 {
        function
            .set_attribute(
                sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                i32::try_from(dynamic_shared).unwrap_or(i32::MAX),
            )
            .map_err(driver_err("cuFuncSetAttribute(max dynamic shared)"))?;
    }
    Ok(function)
}

/// Why the driver rejects `ptx`: loads it again through `cuModuleLoadDataEx` with a JIT error-log
/// buffer and returns the log (`None` if it loads this time or the log cannot be had).
fn jit_error_log(ctx: &Arc<CudaContext>, ptx: &str) -> Option<String> {
    use std::ffi::{c_void, CString};
    ctx.bind_to_thread().ok()?;
    let source = CString::new(ptx).ok()?;
    let mut log = vec![0u8; 1 << 14];
    let mut options = [
        sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER,
        sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
    ];
    // The size option's value is passed in the pointer itself, as the driver API specifies.
    let mut values: [*mut c_void; 2] = [log.as_mut_ptr().cast(), log.len() as *mut c_void];
    let mut module: sys::CUmodule = std::ptr::null_mut();
    // SAFETY: `source` is a NUL-terminated PTX image that outlives the call; `options` and `values` hold
    // two entries each, as `numOptions` says; the log buffer is `log.len()` bytes and outlives the call.
    let code = unsafe {
        sys::cuModuleLoadDataEx(
            &mut module,
            source.as_ptr().cast(),
            2,
            options.as_mut_ptr(),
            values.as_mut_ptr(),
        )
    };
    if code == sys::CUresult::CUDA_SUCCESS {
        // SAFETY: `module` was just loaded by this call and is used nowhere else.
        unsafe { sys::cuModuleUnload(module) };
        return None;
    }
    let end = log.iter().position(|&b| b == 0).unwrap_or(log.len());
    Some(String::from_utf8_lossy(&log[..end]).trim().to_owned())
}
