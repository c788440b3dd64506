//! How wide this device's subgroups really are, measured once per device before its first pipeline:
//! the fact behind the choice between native subgroup operations and the emulation of a 32-lane warp
//! through workgroup memory (`warpforge_wgsl`'s crate docs, "Warps on WebGPU").
//!
//! The adapter's `subgroup_min_size..=subgroup_max_size` only bounds the width; a driver may pick any
//! width in it per pipeline, and WGSL does not promise that subgroup invocation `i` is workgroup
//! invocation `base + i`. So a probe kernel with the LZ4 kernels' shape (256 invocations per
//! workgroup, four workgroups) records each invocation's `subgroup_size` and
//! `subgroup_invocation_id`; native subgroups are used only when every subgroup has the same width,
//! 32 or 64, and every invocation's id is its local index modulo that width. Anything else, including
//! a device without `wgpu::Features::SUBGROUP` or a probe that fails, keeps the emulation, with the
//! reason.

use std::borrow::Cow;
use std::sync::mpsc;

const WORKGROUP: u32 = 256;
const WORKGROUPS: u32 = 4;

/// Per invocation, three words: `(subgroup_size << 16) | subgroup_invocation_id`; the local index of
/// its subgroup's lane 0 (a `subgroupShuffle`); the invocations its subgroup's ballot counts (so a
/// subgroup split into partial ones, or a shuffle or ballot that misbehaves, shows).
const PROBE: &str = "
@group(0) @binding(0) var<storage, read_write> seen: array<u32>;

@compute @workgroup_size(256)
fn probe(
    @builtin(local_invocation_index) local: u32,
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(subgroup_size) width: u32,
    @builtin(subgroup_invocation_id) lane: u32,
) {
    let at = 3u * (group.x * 256u + local);
    seen[at] = (width << 16u) | lane;
    seen[at + 1u] = subgroupShuffle(local, 0u);
    let votes = subgroupBallot(true);
    seen[at + 2u] = countOneBits(votes.x) + countOneBits(votes.y) + countOneBits(votes.z)
        + countOneBits(votes.w);
}
";

/// What the probe found: the width every subgroup had (when they all had one and were laid out along
/// the local index), or why native subgroups cannot stand for warps here.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SubgroupLayout {
    /// Every subgroup was `width` invocations wide and invocation `i` of the workgroup was subgroup
    /// lane `i mod width`.
    Linear {
        /// Invocations per subgroup.
        width: u32,
    },
    /// No native subgroups to use, and why (no `SUBGROUP` feature, widths that differ, a layout that
    /// is not linear, a probe that failed).
    Unusable(String),
}

/// Judges what the probe recorded: three words per invocation (see [`PROBE`]), in workgroup-major
/// order of workgroups of `workgroup` invocations.
pub(crate) fn judge(seen: &[u32], workgroup: u32) -> SubgroupLayout {
    let Some(&first) = seen.first() else {
        return SubgroupLayout::Unusable("the probe recorded nothing".into());
    };
    let width = first >> 16;
    if width == 0 || !width.is_power_of_two() || seen.len() % 3 != 0 {
        return SubgroupLayout::Unusable(format!("the probe saw a subgroup width of {width}"));
    }
    for (i, words) in seen.chunks_exact(3).enumerate() {
        let (word, leader, members) = (words[0], words[1], words[2]);
        let local = i as u32 % workgroup;
        let want_leader = local - local % width;
        if leader != want_leader || members != width.min(workgroup) {
            return SubgroupLayout::Unusable(format!(
                "invocation {local}'s subgroup starts at invocation {leader} (not {want_leader}) and \
                 counts {members} active invocations (not {width}): subgroups are not whole runs of \
                 the local index"
            ));
        }
        let (w, lane) = (word >> 16, word & 0xffff);
        if w != width {
            return SubgroupLayout::Unusable(format!(
                "subgroups of different widths in one pipeline ({width} and {w})"
            ));
        }
        if lane != local % width {
            return SubgroupLayout::Unusable(format!(
                "invocation {local} of a workgroup was subgroup lane {lane}, not {} (the driver does \
                 not lay subgroups along the local index)",
                local % width
            ));
        }
    }
    SubgroupLayout::Linear { width }
}

/// Runs the probe on `device` (which must have been opened with `wgpu::Features::SUBGROUP`).
pub(crate) fn probe(device: &wgpu::Device, queue: &wgpu::Queue) -> SubgroupLayout {
    match run_probe(device, queue) {
        Ok(seen) => judge(&seen, WORKGROUP),
        Err(why) => SubgroupLayout::Unusable(format!("the subgroup probe failed: {why}")),
    }
}

fn run_probe(device: &wgpu::Device, queue: &wgpu::Queue) -> Result<Vec<u32>, String> {
    let count = 3 * (WORKGROUP * WORKGROUPS) as usize;
    let bytes = (count * 4) as u64;
    let scopes = super::scopes::ErrorScopes::push(device);
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("warpforge subgroup probe"),
        source: wgpu::ShaderSource::Wgsl(Cow::Borrowed(PROBE)),
    });
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some("warpforge subgroup probe"),
        layout: None,
        module: &module,
        entry_point: Some("probe"),
        compilation_options: wgpu::PipelineCompilationOptions::default(),
        cache: None,
    });
    let storage = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("subgroup probe"),
        size: bytes,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let staging = super::transfer::staging(device, "subgroup probe read-back", bytes);
    let bind = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("subgroup probe"),
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[wgpu::BindGroupEntry {
            binding: 0,
            resource: storage.as_entire_binding(),
        }],
    });
    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
        label: Some("subgroup probe"),
    });
    {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("subgroup probe"),
            timestamp_writes: None,
        });
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &bind, &[]);
        pass.dispatch_workgroups(WORKGROUPS, 1, 1);
    }
    encoder.copy_buffer_to_buffer(&storage, 0, &staging, 0, bytes);
    let submission = queue.submit([encoder.finish()]);
    scopes.pop("subgroup probe").map_err(|e| e.to_string())?;
    let (sender, receiver) = mpsc::channel();
    staging.map_async(wgpu::MapMode::Read, .., move |outcome| {
        // The receiver waits below; a failed send means nobody is left to tell.
        let _ = sender.send(outcome);
    });
    device
        .poll(wgpu::PollType::Wait {
            submission_index: Some(submission),
            timeout: None,
        })
        .map_err(|e| e.to_string())?;
    receiver
        .try_recv()
        .map_err(|_| "the read-back was not mapped after waiting".to_owned())?
        .map_err(|e| e.to_string())?;
    let view = staging.get_mapped_range(..).map_err(|e| e.to_string())?;
    let seen = view
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect();
    drop(view);
    staging.unmap();
    Ok(seen)
}

#[cfg(test)]
mod tests {
    use super::{judge, SubgroupLayout};

    /// What a probe of two workgroups of 256 would record with these lanes (leaders and ballot
    /// counts of whole, linear subgroups).
    fn words(width: u32, lane: impl Fn(u32) -> u32) -> Vec<u32> {
        (0..512)
            .flat_map(|i| {
                let local = i % 256;
                [
                    (width << 16) | lane(local),
                    local - local % width.max(1),
                    width,
                ]
            })
            .collect()
    }

    #[test]
    fn linear_layouts_of_one_width_are_usable() {
        for width in [8, 32, 64] {
            assert_eq!(
                judge(&words(width, |i| i % width), 256),
                SubgroupLayout::Linear { width }
            );
        }
    }

    #[test]
    fn mixed_widths_and_shuffled_lanes_are_not() {
        let mut mixed = words(32, |i| i % 32);
        mixed[3 * 300] = (64 << 16) | 12; // invocation 44 of the second workgroup, lane 12 of 32
        assert!(
            matches!(judge(&mixed, 256), SubgroupLayout::Unusable(w) if w.contains("different widths"))
        );
        let reversed = words(32, |i| 31 - i % 32);
        assert!(
            matches!(judge(&reversed, 256), SubgroupLayout::Unusable(w) if w.contains("local index"))
        );
        assert!(matches!(judge(&[], 256), SubgroupLayout::Unusable(_)));
        // Lanes numbered right, but the subgroups split in two partial ones (half the lanes each).
        let mut split = words(32, |i| i % 32);
        for c in split.chunks_exact_mut(3) {
            c[2] = 16;
        }
        assert!(
            matches!(judge(&split, 256), SubgroupLayout::Unusable(w) if w.contains("whole runs"))
        );
        let mut wrong_leader = words(32, |i| i % 32);
        wrong_leader[3 * 40 + 1] = 0;
        assert!(matches!(
            judge(&wrong_leader, 256),
            SubgroupLayout::Unusable(_)
        ));
        assert!(matches!(
            judge(&words(0, |_| 0), 256),
            SubgroupLayout::Unusable(_)
        ));
    }
}
