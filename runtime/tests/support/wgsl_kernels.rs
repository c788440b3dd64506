//! Hand-written WGSL kernels that follow the layout contract of `warpforge_wgsl::layout`, and small
//! helpers (byte conversion, a deterministic random generator) for the WebGPU tests.

use warpforge_ir::{Access, ScalarType};
use warpforge_wgsl::{BufferBinding, ParamMember, ParamsLayout, Requirements, Wgsl};

pub fn requirements(workgroup_storage_bytes: u32, shader_int64: bool) -> Requirements {
    Requirements {
        workgroup_storage_bytes,
        invocations_per_workgroup: 64,
        storage_buffers: 2,
        shader_int64,
    }
}

pub fn binding(binding: u32, name: &str, elem: ScalarType, access: Access) -> BufferBinding {
    BufferBinding {
        binding,
        name: name.to_owned(),
        elem,
        access,
    }
}

pub fn member(name: &str, ty: ScalarType, offset: u32) -> ParamMember {
    ParamMember {
        name: name.to_owned(),
        ty,
        offset,
    }
}

/// A 64-wide kernel `name` with buffers `input` (binding 0, read) and `output` (binding 1, read_write) of
/// `elem`, a parameter block at binding 2 whose `grid_blocks` follows `members`, and `body`, which sees
/// `i` (the global index) and returns early from workgroups past the grid.
pub fn kernel(
    name: &str,
    elem: ScalarType,
    wgsl_elem: &str,
    members: &[ParamMember],
    body: &str,
) -> Wgsl {
    let grid_blocks_offset = members
        .last()
        .map_or(0, |m| m.offset + if m.ty.bits() == 64 { 8 } else { 4 });
    let fields: String = members
        .iter()
        .map(|m| {
            let ty = match m.ty {
                ScalarType::U64 => "u64",
                ScalarType::I32 => "i32",
                _ => "u32",
            };
            format!("{}: {ty}, ", m.name)
        })
        .collect();
    let source = format!(
        "@group(0) @binding(0) var<storage, read> input: array<{wgsl_elem}>;\n\
         @group(0) @binding(1) var<storage, read_write> output: array<{wgsl_elem}>;\n\
         struct Params {{ {fields}grid_blocks: u32 }}\n\
         @group(0) @binding(2) var<uniform> params: Params;\n\
         @compute @workgroup_size(64)\n\
         fn {name}(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>,\n\
                   @builtin(local_invocation_index) lane: u32) {{\n\
             let block = wg.x + wg.y * groups.x;\n\
             if block >= params.grid_blocks {{ return; }}\n\
             let i = block * 64u + lane;\n\
             {body}\n\
         }}\n"
    );
    Wgsl {
        source,
        entry_point: name.to_owned(),
        workgroup_size: 64,
        buffers: vec![
            binding(0, "input", elem, Access::ReadOnly),
            binding(1, "output", elem, Access::ReadWrite),
        ],
        params: ParamsLayout {
            binding: 2,
            size: (grid_blocks_offset + 4).div_ceil(16) * 16,
            members: members.to_vec(),
            grid_blocks_offset,
            grid_dims_offset: None,
        },
        requirements: requirements(0, elem == ScalarType::U64),
        warps: warpforge_wgsl::WarpLowering::Emulated,
    }
}

/// `output[i] = input[i] + 1` for `i < n`.
pub fn add_one() -> Wgsl {
    let members = [member("n", ScalarType::U32, 0)];
    let body = "if i < params.n { output[i] = input[i] + 1u; }";
    kernel("add_one", ScalarType::U32, "u32", &members, body)
}

/// Bytes of little-endian `u32`s.
pub fn words_to_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// xorshift64*: deterministic pseudo-random numbers.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    pub fn bytes(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| self.next() as u8).collect()
    }
}
