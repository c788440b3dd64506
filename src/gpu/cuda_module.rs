//! A kernel of warpforge's PTX loaded on a CUDA device: checked against the device's shared-memory
//! limit, loaded with the JIT error log when the driver rejects it, opted in to its dynamic shared
//! memory, and launched one warp per page.

use std::sync::Arc;

use warpforge_ptx::{LaunchInfo, Sm};

use super::cuda::err;
use super::GpuError;
use crate::kernels::WARPS_PER_BLOCK;
use crate::runtime::cudarc::driver::{sys, CudaContext, CudaFunction, LaunchConfig};
use crate::runtime::cudarc::nvrtc::Ptx;

/// A kernel loaded from warpforge's PTX with its launch metadata.
pub(crate) struct Loaded {
    pub(crate) function: CudaFunction,
    pub(crate) launch: LaunchInfo,
}

impl Loaded {
    pub(crate) fn new(
        ctx: &Arc<CudaContext>,
        kernel: &warpforge_ir::Kernel,
        sm: Sm,
    ) -> Result<Loaded, GpuError> {
        let verified = warpforge_ir::verify(kernel)
            .map_err(|e| GpuError::NotAvailable(format!("kernel: {e}")))?;
        let ptx = warpforge_ptx::emit(&verified, sm)
            .map_err(|e| GpuError::NotAvailable(format!("PTX: {e}")))?;
        let optin = ctx
            .attribute(
                sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
            )
            .map_err(err(
                "cuDeviceGetAttribute(max shared memory per block, opt-in)",
            ))?;
        // `shared_bytes` is the whole per-block need (static, or dynamic when that is non-zero).
        let needs = ptx.launch.shared_bytes;
        if i64::from(needs) > i64::from(optin) {
            return Err(GpuError::NotAvailable(format!(
                "kernel `{}` needs {needs} bytes of shared memory per block; this device allows {optin} \
                 (CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)",
                ptx.launch.entry
            )));
        }
        let module = match ctx.load_module(Ptx::from_src(ptx.text.clone())) {
            Ok(module) => module,
            Err(e) => {
                let log = jit_error_log(ctx, &ptx.text).unwrap_or_default();
                return Err(GpuError::NotAvailable(format!(
                    "the driver rejected the PTX of `{}`: {}; JIT error log: {}",
                    ptx.launch.entry,
                    GpuError::cuda("cuModuleLoadData", e.0 as u32),
                    if log.is_empty() { "(empty)" } else { &log }
                )));
            }
        };
        let function = module
            .load_function(&ptx.launch.entry)
            .map_err(err("cuModuleGetFunction"))?;
        if ptx.launch.dynamic_shared_bytes > 0 {
            function
                .set_attribute(
                    sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                    ptx.launch.dynamic_shared_bytes as i32,
                )
                .map_err(err("cuFuncSetAttribute(max dynamic shared)"))?;
        }
        Ok(Loaded {
            function,
            launch: ptx.launch,
        })
    }

    /// One warp per page.
    pub(crate) fn config(&self, pages: usize) -> Result<LaunchConfig, GpuError> {
        let blocks = pages.div_ceil(WARPS_PER_BLOCK as usize) as u64;
        let c = self
            .launch
            .config(blocks)
            .map_err(|e| GpuError::NotAvailable(e.to_string()))?;
        Ok(LaunchConfig {
            grid_dim: c.grid,
            block_dim: c.block,
            shared_mem_bytes: c.dynamic_shared_bytes,
        })
    }
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
