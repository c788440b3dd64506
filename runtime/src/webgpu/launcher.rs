//! A [`WebGpuDevice`] behind the runtime's [`Launcher`] API: kernels loaded as WGSL, scalars taken in
//! parameter order and placed in the parameter block by name.

use warpforge_ir::{ParamKind, Verified};

use super::WebGpuDevice;
use crate::launch::{emit_wgsl, Backend, Form, LaunchError, Launched, Launcher, Loaded};
use crate::BufferArg;

impl Launcher for WebGpuDevice {
    fn backend(&self) -> Backend {
        Backend::WebGpu
    }

    fn describe(&self) -> String {
        format!("webgpu on {}", self.adapter().label())
    }

    fn device_name(&self) -> String {
        self.adapter().name.clone()
    }

    fn load(&self, kernel: &Verified<'_>) -> Result<Loaded, LaunchError> {
        Ok(Loaded::new(
            kernel,
            Form::Wgsl(Box::new(emit_wgsl(kernel)?)),
        ))
    }

    fn launch(
        &self,
        kernel: &Loaded,
        blocks: u32,
        buffers: &mut [BufferArg<'_>],
        scalars: &[u64],
    ) -> Result<Launched, LaunchError> {
        let Form::Wgsl(wgsl) = &kernel.form else {
            return Err(kernel.wrong_launcher(Backend::WebGpu));
        };
        // The parameter block's members by name; a scalar the WGSL does not use is not in it.
        let names: Vec<&str> = (kernel.kernel().params.iter())
            .filter(|(_, p)| matches!(p.kind, ParamKind::Scalar(_)))
            .map(|(_, p)| p.name.as_str())
            .collect();
        let bits: Vec<u64> = if names.len() == scalars.len() {
            (wgsl.params.members.iter())
                .map(|m| {
                    names
                        .iter()
                        .position(|n| *n == m.name)
                        .map_or(0, |i| scalars[i])
                })
                .collect()
        } else {
            // Wrong count: let the launch's own check name the parameters.
            scalars.to_vec()
        };
        let timings = self.run(wgsl, blocks, buffers, &bits)?;
        Ok(Launched { timings, sim: None })
    }
}
