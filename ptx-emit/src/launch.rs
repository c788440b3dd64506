//! Launch metadata carried with emitted PTX, and the launch configuration derived from it.
//!
//! The block shape and shared bytes come from the kernel, never from the caller: a host chooses only
//! how many blocks to run.

use std::fmt;

use warpforge_ir::{Kernel, ParamKind};

/// Where one parameter sits in the kernel's parameter buffer (CUDA's layout: each parameter aligned to
/// its size, in declaration order).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamLayout {
    /// The IR name.
    pub name: String,
    /// Buffer or scalar, with its type.
    pub kind: ParamKind,
    /// Byte offset in the parameter buffer.
    pub offset: u32,
    /// Size in bytes (8 for a buffer pointer).
    pub size: u32,
}

/// What a host needs to launch an emitted kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaunchInfo {
    /// The `.entry` name.
    pub entry: String,
    /// Parameters in launch order.
    pub params: Vec<ParamLayout>,
    /// Threads per block the kernel was built for.
    pub block_size: u32,
    /// The block's shape `[x, y, z]` (`[block_size, 1, 1]` for a 1-D kernel): `.reqntid`.
    pub block_dims: [u32; 3],
    /// Whether the kernel reads the grid's shape: only then may a launch have more than one grid
    /// dimension (for any other kernel a grid is its number of blocks).
    pub grid_dims: bool,
    /// Shared memory per block (static, or dynamic when [`LaunchInfo::dynamic_shared_bytes`] is non-zero).
    pub shared_bytes: u32,
    /// Dynamic shared memory the launch must request: the whole of `shared_bytes` when the kernel's
    /// arrays exceed the 48 KiB static limit, else 0.
    pub dynamic_shared_bytes: u32,
}

/// A launch shape: grid and block dimensions and the dynamic shared memory to request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchConfig {
    /// Blocks in the grid.
    pub grid: (u32, u32, u32),
    /// Threads per block.
    pub block: (u32, u32, u32),
    /// Dynamic shared memory bytes.
    pub dynamic_shared_bytes: u32,
}

/// A launch that cannot be made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LaunchError {
    /// Zero blocks, or more than CUDA's 2^31 − 1 in x.
    GridSize {
        /// The kernel.
        entry: String,
        /// Blocks asked for.
        blocks: u64,
    },
    /// The arguments do not match the parameters.
    Arguments {
        /// The kernel.
        entry: String,
        /// What differs.
        detail: String,
    },
}

impl fmt::Display for LaunchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LaunchError::GridSize { entry, blocks } => {
                write!(
                    f,
                    "kernel `{entry}`: cannot launch {blocks} blocks (1 ..= 2147483647)"
                )
            }
            LaunchError::Arguments { entry, detail } => write!(f, "kernel `{entry}`: {detail}"),
        }
    }
}

impl std::error::Error for LaunchError {}

impl LaunchInfo {
    /// The metadata of `kernel`.
    pub fn of(kernel: &Kernel) -> LaunchInfo {
        let mut offset = 0u32;
        let params = kernel
            .params
            .iter()
            .map(|(_, p)| {
                let size = match p.kind {
                    ParamKind::Buffer { .. } => 8,
                    ParamKind::Scalar(t) => t.size_bytes().unwrap_or(1),
                };
                offset = offset.div_ceil(size) * size;
                let layout = ParamLayout {
                    name: p.name.clone(),
                    kind: p.kind,
                    offset,
                    size,
                };
                offset += size;
                layout
            })
            .collect();
        let shared_bytes = kernel
            .shared_bytes()
            .and_then(|b| u32::try_from(b).ok())
            .unwrap_or(u32::MAX);
        let dynamic = u64::from(shared_bytes) > crate::MAX_STATIC_SHARED_BYTES;
        LaunchInfo {
            entry: kernel.name.clone(),
            params,
            block_size: kernel.block_size,
            block_dims: kernel.block_dims(),
            grid_dims: kernel.uses_grid_dims(),
            shared_bytes,
            dynamic_shared_bytes: if dynamic { shared_bytes } else { 0 },
        }
    }

    /// The configuration for `blocks` blocks of the kernel's own block shape.
    pub fn config(&self, blocks: u64) -> Result<LaunchConfig, LaunchError> {
        let [bx, by, bz] = self.block_dims;
        match u32::try_from(blocks) {
            Ok(b) if b > 0 && b <= i32::MAX as u32 => Ok(LaunchConfig {
                grid: (b, 1, 1),
                block: (bx, by, bz),
                dynamic_shared_bytes: self.dynamic_shared_bytes,
            }),
            _ => Err(LaunchError::GridSize {
                entry: self.entry.clone(),
                blocks,
            }),
        }
    }

    /// The configuration for a grid of `[x, y, z]` blocks: as given for a kernel that reads the
    /// grid's shape (CUDA's limits: x up to 2^31 - 1, y and z up to 65535), else the same number of
    /// blocks in one dimension (the kernel cannot tell the difference).
    pub fn config_grid(&self, grid: [u32; 3]) -> Result<LaunchConfig, LaunchError> {
        let blocks: u64 = grid.iter().map(|&d| u64::from(d)).product();
        if !self.grid_dims || grid[1..] == [1, 1] {
            return self.config(blocks);
        }
        let [x, y, z] = grid;
        if blocks == 0 || x > i32::MAX as u32 || y > 65535 || z > 65535 {
            return Err(LaunchError::GridSize {
                entry: self.entry.clone(),
                blocks,
            });
        }
        let mut config = self.config(u64::from(x))?;
        config.grid = (x, y, z);
        Ok(config)
    }

    /// The configuration with enough blocks for `threads` threads.
    pub fn config_for_threads(&self, threads: u64) -> Result<LaunchConfig, LaunchError> {
        self.config(threads.div_ceil(u64::from(self.block_size)))
    }

    /// Checks that arguments of these kinds, in this order, match the parameters.
    pub fn check_args(&self, args: &[ParamKind]) -> Result<(), LaunchError> {
        let fail = |detail: String| {
            Err(LaunchError::Arguments {
                entry: self.entry.clone(),
                detail,
            })
        };
        if args.len() != self.params.len() {
            return fail(format!(
                "expects {} arguments, got {}",
                self.params.len(),
                args.len()
            ));
        }
        for (i, (param, arg)) in self.params.iter().zip(args).enumerate() {
            if param.kind != *arg {
                return fail(format!(
                    "argument {i} (`{}`) must be {:?}, got {arg:?}",
                    param.name, param.kind
                ));
            }
        }
        Ok(())
    }
}
