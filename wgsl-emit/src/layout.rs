//! What a host needs to run emitted WGSL: bindings, the parameter block, resource requirements and the
//! dispatch shape. This is the contract between `warpforge-wgsl` and the WebGPU runtime.
//!
//! Bind group 0 holds, in this order: one storage buffer per buffer parameter of the kernel (binding
//! `i` for the `i`-th buffer parameter, in declaration order), then one uniform buffer with every scalar
//! parameter and the grid size ([`ParamsLayout`]).
//!
//! Buffer contents are the elements' little-endian bytes, exactly as on the CPU. Buffers of `u8` and
//! `u16` elements are declared as arrays of 32-bit words in WGSL (WGSL has no 8/16-bit storage types);
//! their bytes are the same, padded with zeros to a multiple of 4.

use warpforge_ir::{Access, ScalarType};

/// WebGPU's limit on workgroups per dispatch dimension.
pub const MAX_WORKGROUPS_PER_DIMENSION: u32 = 65_535;

/// One storage-buffer binding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BufferBinding {
    /// Binding number in group 0.
    pub binding: u32,
    /// The IR parameter name.
    pub name: String,
    /// Element type in the IR.
    pub elem: ScalarType,
    /// Read-only or read-write (a read-only buffer is `var<storage, read>`).
    pub access: Access,
}

impl BufferBinding {
    /// Bytes needed on the GPU for `elements` elements: rounded up to whole 32-bit words.
    pub fn byte_len(&self, elements: u64) -> u64 {
        let bytes = elements * u64::from(self.elem.size_bytes().unwrap_or(4));
        bytes.div_ceil(4) * 4
    }
}

/// One scalar parameter inside the uniform parameter block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamMember {
    /// The IR parameter name.
    pub name: String,
    /// Its IR type. `bool`, `u8` and `u16` travel as a `u32` (0/1 for `bool`).
    pub ty: ScalarType,
    /// Byte offset in the block.
    pub offset: u32,
}

/// The uniform buffer holding scalar parameters and the grid size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamsLayout {
    /// Binding number in group 0 (after every storage buffer).
    pub binding: u32,
    /// Size of the block in bytes (a multiple of 16).
    pub size: u32,
    /// The scalar parameters.
    pub members: Vec<ParamMember>,
    /// Offset of the `u32` that holds the number of blocks (workgroups) of the launch.
    pub grid_blocks_offset: u32,
    /// For a kernel that reads the grid's shape, the offset of two `u32`s holding the grid's x and y
    /// extents (`grid_x`, `grid_y`).
    pub grid_dims_offset: Option<u32>,
}

/// What a device must offer to run the kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Requirements {
    /// Workgroup memory in bytes (`maxComputeWorkgroupStorageSize`).
    pub workgroup_storage_bytes: u32,
    /// Invocations per workgroup (`maxComputeInvocationsPerWorkgroup`, `maxComputeWorkgroupSizeX`).
    pub invocations_per_workgroup: u32,
    /// Storage buffers bound at once (`maxStorageBuffersPerShaderStage`).
    pub storage_buffers: u32,
    /// Whether the kernel uses 64-bit integers (`wgpu::Features::SHADER_INT64`).
    pub shader_int64: bool,
}

/// How warp collectives are lowered ([`crate::emit_with`]; the crate docs, "Warps on WebGPU").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum WarpLowering {
    /// A 32-lane warp emulated through workgroup memory and barriers: right on every adapter.
    #[default]
    Emulated,
    /// Native subgroup operations on subgroups `width` (32 or 64) invocations wide, laid out along the
    /// local invocation index (a 64-wide subgroup holds two warps). Needs `wgpu::Features::SUBGROUP`
    /// and a device whose subgroups were measured to have that width and layout.
    Subgroups {
        /// Invocations per subgroup: 32 or 64.
        width: u32,
    },
}

impl WarpLowering {
    /// The lowering for subgroups of `width` (32 or 64), or `None` for any other width.
    pub fn subgroups(width: u32) -> Option<WarpLowering> {
        matches!(width, 32 | 64).then_some(WarpLowering::Subgroups { width })
    }
}

impl std::fmt::Display for WarpLowering {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WarpLowering::Emulated => f.write_str("emulated (workgroup memory and barriers)"),
            WarpLowering::Subgroups { width: 32 } => {
                f.write_str("native subgroups (32 lanes: a warp each)")
            }
            WarpLowering::Subgroups { width } => {
                write!(f, "native subgroups ({width} lanes: a warp is 32 of them)")
            }
        }
    }
}

/// Emitted WGSL and everything needed to launch it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Wgsl {
    /// The WGSL source, validated by naga.
    pub source: String,
    /// The compute entry point's name (the kernel's name).
    pub entry_point: String,
    /// Invocations per workgroup: the kernel's block size, as `@workgroup_size(N, 1, 1)`.
    pub workgroup_size: u32,
    /// Storage buffers, one per buffer parameter.
    pub buffers: Vec<BufferBinding>,
    /// The uniform parameter block.
    pub params: ParamsLayout,
    /// Device requirements.
    pub requirements: Requirements,
    /// How the warp collectives were lowered: a [`WarpLowering::Subgroups`] kernel runs only on a device
    /// with `wgpu::Features::SUBGROUP` whose subgroups have that width.
    pub warps: WarpLowering,
}

impl Wgsl {
    /// The `dispatch_workgroups(x, y, 1)` arguments for `blocks` blocks. Grids larger than 65 535 blocks
    /// use a second dimension; the kernel linearizes the workgroup id and returns at once from
    /// workgroups past `blocks` (it reads `blocks` from the parameter block). `None` if `blocks` is 0 or
    /// too large even for two dimensions.
    pub fn dispatch(&self, blocks: u32) -> Option<(u32, u32, u32)> {
        if blocks == 0 {
            return None;
        }
        let x = blocks.min(MAX_WORKGROUPS_PER_DIMENSION);
        let y = blocks.div_ceil(x);
        (y <= MAX_WORKGROUPS_PER_DIMENSION).then_some((x, y, 1))
    }

    /// The parameter block's bytes for `blocks` blocks and these scalar values (as little-endian bits,
    /// in `params.members` order; use [`warpforge_ir::Literal::to_bits`]).
    pub fn params_bytes(&self, blocks: u32, scalars: &[u64]) -> Vec<u8> {
        self.params_bytes_grid([blocks, 1, 1], scalars)
    }

    /// [`Wgsl::params_bytes`] for a grid of `[x, y, z]` blocks (`x·y·z` blocks; the kernel computes
    /// its block's coordinates from the linear index, x fastest).
    pub fn params_bytes_grid(&self, grid: [u32; 3], scalars: &[u64]) -> Vec<u8> {
        let blocks = grid[0].saturating_mul(grid[1]).saturating_mul(grid[2]);
        let mut bytes = vec![0u8; self.params.size as usize];
        for (member, &bits) in self.params.members.iter().zip(scalars) {
            let at = member.offset as usize;
            let width = if matches!(member.ty, ScalarType::U64 | ScalarType::I64) {
                8
            } else {
                4
            };
            bytes[at..at + width].copy_from_slice(&bits.to_le_bytes()[..width]);
        }
        let at = self.params.grid_blocks_offset as usize;
        bytes[at..at + 4].copy_from_slice(&blocks.to_le_bytes());
        if let Some(at) = self.params.grid_dims_offset {
            let at = at as usize;
            bytes[at..at + 4].copy_from_slice(&grid[0].to_le_bytes());
            bytes[at + 4..at + 8].copy_from_slice(&grid[1].to_le_bytes());
        }
        bytes
    }
}
