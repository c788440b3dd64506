//! [`KernelIoError`]: why a batch through the page kernels failed, with the runtime's error kept
//! whole.

use crate::runtime::sim::Finding;
use crate::runtime::LaunchError;

/// Why one batch through a page kernel failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum KernelIoError {
    /// The launch failed (the runtime's error: the simulator's, WebGPU's or CUDA's).
    #[error(transparent)]
    Launch(#[from] LaunchError),
    /// The simulator ran the kernel and reported an error-level finding (the first one).
    #[error(
        "the simulator stopped kernel `{kernel}` ({stopped} of {blocks} blocks stopped): {finding}"
    )]
    Finding {
        /// The kernel.
        kernel: String,
        /// Blocks the simulator stopped.
        stopped: u64,
        /// Blocks launched.
        blocks: u32,
        /// The finding.
        finding: Box<Finding>,
    },
    /// The compress kernel wrote a meta word that does not describe its page (a kernel bug).
    #[error("page {page}: {detail}")]
    Meta {
        /// The page's index in the batch.
        page: usize,
        /// What is wrong with the word.
        detail: String,
    },
}
