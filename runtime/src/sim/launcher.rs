//! [`SimLauncher`]: the simulator behind the runtime's [`Launcher`] API.

use warpforge_ir::{verify, Verified};

use super::{run, SimOptions};
use crate::launch::{Backend, Form, LaunchError, Launched, Launcher, Loaded};
use crate::{BufferArg, Clock, Timings};

/// The simulator as a [`Launcher`].
#[derive(Clone, Debug, Default)]
pub struct SimLauncher {
    /// How each launch runs (sanitizer, counters, threads).
    pub options: SimOptions,
}

impl SimLauncher {
    /// A launcher whose launches run with `options`.
    pub fn new(options: SimOptions) -> SimLauncher {
        SimLauncher { options }
    }
}

impl Launcher for SimLauncher {
    fn backend(&self) -> Backend {
        Backend::Sim
    }

    fn describe(&self) -> String {
        let sanitizer = if self.options.sanitize { "on" } else { "off" };
        format!("sim (CPU simulator, sanitizer {sanitizer})")
    }

    fn device_name(&self) -> String {
        "CPU simulator".into()
    }

    fn load(&self, kernel: &Verified<'_>) -> Result<Loaded, LaunchError> {
        Ok(Loaded::new(kernel, Form::Ir))
    }

    /// The kernel time is the host clock around the whole launch (decoding included); there is no
    /// transfer. The report is in [`Launched::sim`].
    fn launch(
        &self,
        kernel: &Loaded,
        blocks: u32,
        buffers: &mut [BufferArg<'_>],
        scalars: &[u64],
    ) -> Result<Launched, LaunchError> {
        if !matches!(kernel.form, Form::Ir) {
            return Err(kernel.wrong_launcher(Backend::Sim));
        }
        let verified = verify(kernel.kernel()).expect("a loaded kernel was verified when loaded");
        let report = run(&verified, blocks, buffers, scalars, &self.options)?;
        Ok(Launched {
            timings: Timings {
                kernel_ns: report.elapsed_ns,
                kernel_clock: Clock::HostClock,
                transfer_clock: Clock::HostClock,
                ..Timings::default()
            },
            sim: Some(report),
        })
    }
}
