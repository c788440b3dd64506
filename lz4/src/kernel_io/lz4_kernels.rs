//! [`Lz4Kernels`]: the compress and decompress kernels loaded on any runtime [`Launcher`] (simulator,
//! WebGPU, CUDA), in the shape [`crate::kernels::warps_per_block`] gives that backend, and one batch
//! through each.

use warpforge_ir::verify;

use super::page::Page;
use super::transfer::{compress_through, decompress_through, DecodeError};
use super::KernelIoError;
use crate::archive::Record;
use crate::kernels::lz4::Lz4Level;
use crate::kernels::{blocks_for, Kernel, Lz4WarpCompressKernel, Lz4WarpDecompressKernel};
use crate::runtime::{BufferArg, LaunchError, Launched, Launcher, Loaded};

/// The page kernels loaded on one launcher.
pub struct Lz4Kernels {
    launcher: Launcher,
    compress: Loaded,
    level: Lz4Level,
    decompress: Loaded,
}

impl Lz4Kernels {
    /// Loads both kernels on `launcher` (emitting and compiling them where the backend needs it), the
    /// compress kernel at `level`.
    pub fn new(launcher: Launcher, level: Lz4Level) -> Result<Lz4Kernels, LaunchError> {
        let backend = launcher.backend();
        let compress = Lz4WarpCompressKernel::at_level(0, level).ir_for(backend);
        let decompress = Lz4WarpDecompressKernel::new(0).ir_for(backend);
        let load = |kernel: &warpforge_ir::Kernel| {
            launcher.load(&verify(kernel).expect("the repository's kernels verify"))
        };
        let (compress, decompress) = (load(&compress)?, load(&decompress)?);
        Ok(Lz4Kernels {
            launcher,
            compress,
            level,
            decompress,
        })
    }

    /// The launcher.
    pub fn launcher(&self) -> &Launcher {
        &self.launcher
    }

    /// One launch of `kernel` for `pages` pages; an error-level finding of the simulator fails it.
    fn launch(
        &self,
        kernel: &Loaded,
        buffers: &mut [BufferArg<'_>],
        pages: u32,
    ) -> Result<Launched, KernelIoError> {
        let blocks = blocks_for(pages as usize, self.launcher.backend());
        let launched = self
            .launcher
            .launch(kernel, blocks, buffers, &[u64::from(pages)])?;
        if let Some(report) = &launched.sim {
            if let Some(f) = report.errors().next() {
                return Err(KernelIoError::Finding {
                    kernel: kernel.kernel().name.clone(),
                    stopped: report.stopped_blocks as u64,
                    blocks,
                    finding: Box::new(f.clone()),
                });
            }
        }
        Ok(launched)
    }

    /// Compresses a batch: one record per page, and the launch (`None` for an empty batch).
    pub fn compress(
        &self,
        pages: &[Page],
    ) -> Result<(Vec<Record>, Option<Launched>), KernelIoError> {
        compress_through(pages, self.level, |buffers, n| {
            self.launch(&self.compress, buffers, n).map(Some)
        })
    }

    /// Decodes `records` into `out`, and the launch (`None` when no page was LZ4).
    pub fn decompress(
        &self,
        records: &[Record],
        out: &mut [Page],
    ) -> Result<(Result<(), DecodeError>, Option<Launched>), KernelIoError> {
        decompress_through(records, out, |buffers, n| {
            self.launch(&self.decompress, buffers, n).map(Some)
        })
    }
}
