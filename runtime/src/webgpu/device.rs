//! [`WebGpuDevice`]: a wgpu device opened on the first adapter that meets a kernel's requirements, with
//! the adapter's real limits, and the bookkeeping that turns device loss and stray errors into
//! [`WebGpuError`]s instead of panics. Each device owns the cache of the pipelines built on it.

use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use warpforge_wgsl::{Requirements, WarpLowering};

/// The environment variable that forces the emulated warp lowering (`emulated`).
pub const WARPS_VAR: &str = "WARPFORGE_WEBGPU_WARPS";

use super::adapters::{adapters_by_preference, AdapterSummary};
use super::cache::PipelineCache;
use super::requirements::{device_features, shortfalls};
use super::scopes::from_wgpu;
use super::subgroups::{self, SubgroupLayout};
use super::{AdapterShortfall, WebGpuError};

/// A WebGPU device ready to run kernels. Cheap to share between threads (`&WebGpuDevice` is `Sync`);
/// each launch captures its own errors. Each kernel's pipeline is compiled on its first launch and
/// reused by later ones (see the [module docs](super)).
#[derive(Debug)]
pub struct WebGpuDevice {
    pub(crate) summary: AdapterSummary,
    pub(crate) device: wgpu::Device,
    pub(crate) queue: wgpu::Queue,
    pub(crate) pipelines: PipelineCache,
    health: Arc<Health>,
    /// What the subgroup probe found, measured on first use.
    subgroups: OnceLock<SubgroupLayout>,
}

/// What the device's callbacks report: whether the device was lost, and errors that escaped every error
/// scope (wgpu's default would panic on those).
#[derive(Debug, Default)]
struct Health {
    lost: Mutex<Option<String>>,
    uncaptured: Mutex<Vec<WebGpuError>>,
}

/// The adapters that meet some requirements (in preference order, with their summaries) and what each
/// other adapter lacks.
type Matching = (
    Vec<(&'static wgpu::Adapter, AdapterSummary)>,
    Vec<AdapterShortfall>,
);

/// The adapters that meet `req`, in preference order, and what each other adapter lacks.
fn meeting(req: &Requirements) -> Result<Matching, WebGpuError> {
    let adapters = adapters_by_preference();
    if adapters.is_empty() {
        return Err(WebGpuError::NoAdapter);
    }
    let (mut fit, mut rejected) = (Vec::new(), Vec::new());
    for adapter in adapters {
        let summary = AdapterSummary::of(adapter);
        let missing = shortfalls(&adapter.limits(), adapter.features(), req);
        if missing.is_empty() {
            fit.push((adapter, summary));
        } else {
            rejected.push(AdapterShortfall {
                adapter: summary.label(),
                missing,
            });
        }
    }
    Ok((fit, rejected))
}

/// The first adapter (hardware before software) that meets `req`, found without opening a device.
///
/// # Errors
///
/// [`WebGpuError::NoAdapter`] when wgpu finds no adapter; [`WebGpuError::Unsupported`] naming every
/// adapter's missing limits and features when none meets `req`.
pub fn find_adapter(req: &Requirements) -> Result<AdapterSummary, WebGpuError> {
    let (fit, rejected) = meeting(req)?;
    fit.into_iter()
        .next()
        .map(|(_, summary)| summary)
        .ok_or(WebGpuError::Unsupported { adapters: rejected })
}

impl WebGpuDevice {
    /// Opens a device on the first adapter (hardware before software, see
    /// [`list_adapters`](super::list_adapters)) that meets `req`, with that adapter's own limits and the
    /// features the kernel needs (`SHADER_INT64` only when `req.shader_int64`; `SUBGROUP` and
    /// `TIMESTAMP_QUERY` whenever the adapter offers them).
    ///
    /// # Errors
    ///
    /// [`WebGpuError::NoAdapter`] when wgpu finds no adapter; [`WebGpuError::Unsupported`] naming every
    /// adapter's missing limits and features when none meets `req`; [`WebGpuError::RequestDevice`] when
    /// suitable adapters refuse to open a device.
    pub fn new(req: &Requirements) -> Result<WebGpuDevice, WebGpuError> {
        let (fit, rejected) = meeting(req)?;
        let mut refused = None;
        for (adapter, summary) in fit {
            match open(adapter, req) {
                Ok((device, queue)) => return Ok(WebGpuDevice::watch(summary, device, queue)),
                Err(message) => {
                    refused = Some(WebGpuError::RequestDevice {
                        adapter: summary.label(),
                        message,
                    });
                }
            }
        }
        Err(refused.unwrap_or(WebGpuError::Unsupported { adapters: rejected }))
    }

    /// The adapter this device runs on.
    pub fn adapter(&self) -> &AdapterSummary {
        &self.summary
    }

    /// The limits the device was created with (the adapter's).
    pub fn limits(&self) -> wgpu::Limits {
        self.device.limits()
    }

    /// The features the device was opened with (see [`WebGpuDevice::new`]).
    pub fn features(&self) -> wgpu::Features {
        self.device.features()
    }

    /// How this device's subgroups are laid out, measured by a probe kernel on the first call (see
    /// `subgroups.rs`): the width when every subgroup has one width and follows the local index.
    pub fn subgroup_layout(&self) -> &SubgroupLayout {
        self.subgroups.get_or_init(|| {
            if self.device.features().contains(wgpu::Features::SUBGROUP) {
                subgroups::probe(&self.device, &self.queue)
            } else {
                SubgroupLayout::Unusable(
                    "the adapter offers no subgroup operations (wgpu::Features::SUBGROUP)".into(),
                )
            }
        })
    }

    /// How warp collectives are lowered for this device ([`Launcher::load`](crate::Launcher::load)
    /// emits every kernel's WGSL this way): native subgroups when the probe measured subgroups 32 or 64
    /// wide laid out along the local index ([`WebGpuDevice::subgroup_layout`]) and the adapter allows
    /// only that width (so no pipeline can get another), else the emulation
    /// through workgroup memory. `WARPFORGE_WEBGPU_WARPS=emulated` forces the emulation (`auto`, or unset, measures; to compare
    /// the two on one GPU, or to step around a driver's subgroup bug).
    pub fn warp_lowering(&self) -> WarpLowering {
        self.warp_choice().0
    }

    /// [`WebGpuDevice::warp_lowering`] and why, in words (for `warpforge info` and the benchmarks).
    pub fn warp_choice(&self) -> (WarpLowering, String) {
        match std::env::var(WARPS_VAR).as_deref() {
            Ok("emulated") => {
                return (WarpLowering::Emulated, format!("{WARPS_VAR}=emulated"));
            }
            Ok("auto") | Err(_) => {}
            Ok(other) => {
                return (
                    WarpLowering::Emulated,
                    format!("{WARPS_VAR}={other} is not `emulated` or `auto`: emulated"),
                );
            }
        }
        let (min, max) = (
            self.summary.subgroup_min_size,
            self.summary.subgroup_max_size,
        );
        match self.subgroup_layout() {
            // A driver that may pick the width per pipeline (AMD's wave32/wave64, Intel's 8..32)
            // could give a kernel another width than the probe's.
            SubgroupLayout::Linear { width } if min != max => (
                WarpLowering::Emulated,
                format!(
                    "measured subgroups of {width} lanes, but the adapter allows {min}..{max}: another pipeline may get another width"
                ),
            ),
            SubgroupLayout::Linear { width } => match WarpLowering::subgroups(*width) {
                Some(lowering) => (lowering, format!("measured subgroups of {width} lanes")),
                None => (
                    WarpLowering::Emulated,
                    format!("measured subgroups of {width} lanes, not 32 or 64"),
                ),
            },
            SubgroupLayout::Unusable(why) => (WarpLowering::Emulated, why.clone()),
        }
    }

    /// How many kernels have a cached pipeline on this device (for tests).
    #[doc(hidden)]
    pub fn cached_pipelines(&self) -> usize {
        self.pipelines.len()
    }

    /// Forgets every cached pipeline, so the next launch of each kernel compiles it again (for the
    /// launch benchmark's cold case).
    #[doc(hidden)]
    pub fn clear_pipeline_cache(&self) {
        self.pipelines.clear();
    }

    /// Installs the device-lost and uncaptured-error callbacks.
    fn watch(summary: AdapterSummary, device: wgpu::Device, queue: wgpu::Queue) -> WebGpuDevice {
        let health = Arc::new(Health::default());
        let on_lost = Arc::clone(&health);
        device.set_device_lost_callback(move |reason, message| {
            let mut lost = on_lost.lost.lock().unwrap_or_else(PoisonError::into_inner);
            *lost = Some(format!("{reason:?}: {message}"));
        });
        let on_error = Arc::clone(&health);
        device.on_uncaptured_error(Arc::new(move |error| {
            let mut errors = on_error
                .uncaptured
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            errors.push(from_wgpu(error, "work outside any error scope"));
        }));
        WebGpuDevice {
            summary,
            device,
            queue,
            pipelines: PipelineCache::default(),
            health,
            subgroups: OnceLock::new(),
        }
    }

    /// `Err` if the device was lost, or if an error escaped the error scopes since the last check.
    pub(crate) fn check_health(&self) -> Result<(), WebGpuError> {
        let lost = self
            .health
            .lost
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(message) = lost.as_ref() {
            return Err(WebGpuError::DeviceLost(format!(
                "adapter `{}`: {message}",
                self.summary.label()
            )));
        }
        drop(lost);
        let mut uncaptured = self
            .health
            .uncaptured
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let first = uncaptured.drain(..).next();
        first.map_or(Ok(()), Err)
    }

    /// Records that the device is unusable (a fatal error surfaced somewhere other than the callback).
    pub(crate) fn mark_lost(&self, message: String) {
        let mut lost = self
            .health
            .lost
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        lost.get_or_insert(message);
    }
}

/// Requests a device with the adapter's limits and the kernel's features.
fn open(
    adapter: &wgpu::Adapter,
    req: &Requirements,
) -> Result<(wgpu::Device, wgpu::Queue), String> {
    let descriptor = wgpu::DeviceDescriptor {
        label: Some("warpforge"),
        required_features: device_features(adapter.features(), req),
        required_limits: adapter.limits(),
        memory_hints: wgpu::MemoryHints::Performance,
        ..Default::default()
    };
    pollster::block_on(adapter.request_device(&descriptor)).map_err(|error| error.to_string())
}

#[cfg(test)]
pub(crate) mod tests {
    use warpforge_ir::{Access, ScalarType};
    use warpforge_wgsl::{BufferBinding, ParamsLayout, Wgsl};

    use super::*;
    use crate::webgpu::BufferArg;

    /// `output[i] = 7` for the 64 invocations of one workgroup.
    pub(crate) fn fill_seven() -> Wgsl {
        Wgsl {
            source: "@group(0) @binding(0) var<storage, read_write> output: array<u32>;\n\
                     struct Params { grid_blocks: u32 }\n\
                     @group(0) @binding(1) var<uniform> params: Params;\n\
                     @compute @workgroup_size(64)\n\
                     fn fill_seven(@builtin(local_invocation_index) i: u32) { output[i] = 7u; }\n"
                .to_owned(),
            entry_point: "fill_seven".to_owned(),
            workgroup_size: 64,
            buffers: vec![BufferBinding {
                binding: 0,
                name: "output".to_owned(),
                elem: ScalarType::U32,
                access: Access::ReadWrite,
            }],
            params: ParamsLayout {
                binding: 1,
                size: 16,
                members: Vec::new(),
                grid_blocks_offset: 0,
                grid_dims_offset: None,
            },
            requirements: Requirements {
                workgroup_storage_bytes: 0,
                invocations_per_workgroup: 64,
                storage_buffers: 1,
                shader_int64: false,
            },
            warps: warpforge_wgsl::WarpLowering::Emulated,
        }
    }

    #[test]
    fn a_destroyed_device_gives_device_lost_not_a_panic() {
        let kernel = fill_seven();
        let device = match WebGpuDevice::new(&kernel.requirements) {
            Err(WebGpuError::NoAdapter) => {
                let test = "a_destroyed_device_gives_device_lost_not_a_panic";
                crate::webgpu::skip_webgpu_test(test, "no WebGPU adapter");
                return;
            }
            other => other.expect("a device"),
        };
        let mut output = vec![0u8; 256];
        device
            .run(&kernel, 1, &mut [BufferArg::ReadWrite(&mut output)], &[])
            .expect("fill_seven runs");
        assert!(output.chunks(4).all(|word| word == 7u32.to_le_bytes()));

        device.device.destroy();
        for attempt in ["first", "second"] {
            let outcome = device.run(&kernel, 1, &mut [BufferArg::ReadWrite(&mut output)], &[]);
            match outcome {
                Err(WebGpuError::DeviceLost(message)) => assert!(message.contains("Destroyed")),
                other => panic!("{attempt} launch after destroy gave {other:?}"),
            }
        }
    }
}
