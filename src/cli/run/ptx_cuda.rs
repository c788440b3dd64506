//! `warpforge run FILE.ptx --backend cuda [--check sim]`: the entry on the GPU (the driver compiles
//! the PTX), then, with `--check sim`, on the PTX simulator with the same inputs, every buffer
//! compared byte for byte.

use warpforge::runtime::cuda::{cuda_probe, CudaDevice, PtxShape, PtxValue};
use warpforge::runtime::sim::ptx::{self, PtxArg, PtxKernel, PtxLaunch};
use warpforge::runtime::sim::{SimOptions, SimReport};
use warpforge::runtime::BufferArg;

use super::args::RunArgs;
use super::buffer::Buffer;
use super::failure::{fault, usage, Failure};
use super::report::{first_difference, Outcome};

/// One PTX entry to run on CUDA.
pub(super) struct CudaRun<'a> {
    pub(super) file: &'a str,
    pub(super) text: &'a str,
    pub(super) kernel: &'a PtxKernel,
    pub(super) shape: PtxShape,
    pub(super) values: &'a [PtxValue],
    pub(super) sim_args: &'a [PtxArg],
    pub(super) options: &'a SimOptions,
}

impl CudaRun<'_> {
    /// Runs it; the outcome to print and whether it is clean.
    pub(super) fn execute(
        &self,
        args: &RunArgs,
        buffers: &mut [Buffer],
    ) -> Result<(Outcome, bool), Failure> {
        let entry = self.kernel.name();
        let info = cuda_probe().as_ref().map_err(|why| {
            fault(format!(
                "{}: cuda: {why}\n(cuda needs an NVIDIA GPU of SM 7.0+ and its driver; --backend \
                 sim runs the PTX anywhere)",
                self.file
            ))
        })?;
        let device =
            CudaDevice::new(info.index).map_err(|e| fault(format!("{}: cuda: {e}", self.file)))?;
        let mut sim_buffers = args.check.map(|_| buffers.to_vec());
        let timings = {
            let mut gpu_args: Vec<BufferArg<'_>> = buffers.iter_mut().map(Buffer::arg).collect();
            device
                .run_ptx(self.text, entry, &self.shape, self.values, &mut gpu_args)
                .map_err(|e| fault(format!("{}: entry `{entry}` on cuda: {e}", self.file)))?
        };
        let (report, check) = match sim_buffers.as_mut() {
            Some(sim_buffers) => {
                let launch = PtxLaunch {
                    grid: self.shape.grid,
                    block: self.shape.block,
                    dynamic_shared: self.shape.dynamic_shared,
                };
                let mut sim_args: Vec<BufferArg<'_>> =
                    sim_buffers.iter_mut().map(Buffer::arg).collect();
                let report = ptx::run(
                    self.kernel,
                    &launch,
                    self.sim_args,
                    &mut sim_args,
                    self.options,
                )
                .map_err(|e| usage(e.to_string()))?;
                drop(sim_args);
                (Some(report), Some(first_difference(buffers, sim_buffers)))
            }
            None => (None, None),
        };
        let clean =
            report.as_ref().is_none_or(SimReport::is_clean) && !matches!(check, Some(Some(_)));
        let outcome = Outcome {
            backend: format!("cuda ({})", device.info().label()),
            report_of_check: report.is_some(),
            report,
            time: timings.to_string(),
            check,
            written: Vec::new(),
            profile: args
                .profile
                .then(|| super::profile::Source::Ptx(self.text.to_owned())),
        };
        Ok((outcome, clean))
    }
}
