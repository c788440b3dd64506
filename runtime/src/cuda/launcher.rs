//! A [`CudaDevice`] behind the runtime's [`Launcher`] API: kernels loaded as PTX modules for the
//! device's SM.

use warpforge_ir::Verified;

use super::CudaDevice;
use crate::launch::{Backend, Form, LaunchError, Launched, Launcher, Loaded};
use crate::BufferArg;

impl Launcher for CudaDevice {
    fn backend(&self) -> Backend {
        Backend::Cuda
    }

    fn describe(&self) -> String {
        format!("cuda on {}", self.info().label())
    }

    fn device_name(&self) -> String {
        self.info().name.clone()
    }

    fn load(&self, kernel: &Verified<'_>) -> Result<Loaded, LaunchError> {
        let loaded = CudaDevice::load(self, kernel)?;
        Ok(Loaded::new(kernel, Form::Cuda(Box::new(loaded))))
    }

    fn launch(
        &self,
        kernel: &Loaded,
        blocks: u32,
        buffers: &mut [BufferArg<'_>],
        scalars: &[u64],
    ) -> Result<Launched, LaunchError> {
        let Form::Cuda(loaded) = &kernel.form else {
            return Err(kernel.wrong_launcher(Backend::Cuda));
        };
        let timings = self.run(loaded, blocks, buffers, scalars)?;
        Ok(Launched { timings, sim: None })
    }
}
