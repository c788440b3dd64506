//! The per-device pipeline cache: each kernel's shader module, bind group layout and compute pipeline
//! are built once per [`WebGpuDevice`](super::WebGpuDevice) and reused by every later launch.
//!
//! Entries are keyed by everything [`pipeline::build`] reads from the [`Wgsl`] and the [`Code`]: the full
//! WGSL source, the entry point, the SPIR-V words when the module is built from them, and the binding
//! layout (each buffer's binding and access, the parameter block's binding). The map is bucketed by a hash of those, but a hit compares the whole key, so two kernels
//! that differ anywhere can never share a pipeline. A build that fails is not cached: the next launch
//! compiles again and reports the same error. The lock is never held while compiling.

use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use warpforge_ir::Access;
use warpforge_wgsl::Wgsl;

use super::pipeline::{self, Code, Pipeline};
use super::WebGpuError;

/// What a pipeline is built from: every field of [`Wgsl`] and [`Code`] that [`pipeline::build`] reads.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct PipelineKey {
    /// The WGSL source text.
    source: String,
    /// The compute entry point (the SPIR-V one for a module built from SPIR-V).
    entry_point: String,
    /// The SPIR-V words, when the module is built from them instead of `source`.
    spirv: Option<Vec<u32>>,
    /// Each storage buffer's binding and whether it is read-only, in binding order.
    buffers: Vec<(u32, bool)>,
    /// The parameter block's binding.
    params_binding: u32,
}

impl PipelineKey {
    fn of(kernel: &Wgsl, code: Code<'_>) -> PipelineKey {
        let (entry_point, spirv) = shader(kernel, code);
        PipelineKey {
            source: kernel.source.clone(),
            entry_point: entry_point.to_owned(),
            spirv: spirv.map(<[u32]>::to_vec),
            buffers: buffer_layout(kernel).collect(),
            params_binding: kernel.params.binding,
        }
    }

    /// Whether this key is the one [`PipelineKey::of`] would make for `kernel` and `code` (without
    /// copying them).
    fn matches(&self, kernel: &Wgsl, code: Code<'_>) -> bool {
        let (entry_point, spirv) = shader(kernel, code);
        self.source == kernel.source
            && self.entry_point == entry_point
            && self.spirv.as_deref() == spirv
            && self.params_binding == kernel.params.binding
            && self.buffers.iter().copied().eq(buffer_layout(kernel))
    }
}

/// The entry point and the SPIR-V words (if any) a pipeline for `kernel` built from `code` uses.
fn shader<'a>(kernel: &'a Wgsl, code: Code<'a>) -> (&'a str, Option<&'a [u32]>) {
    match code {
        Code::Wgsl => (&kernel.entry_point, None),
        Code::SpirV { words, entry_point } => (entry_point, Some(words)),
    }
}

/// Each storage buffer's binding and whether it is read-only.
fn buffer_layout(kernel: &Wgsl) -> impl Iterator<Item = (u32, bool)> + '_ {
    kernel
        .buffers
        .iter()
        .map(|buffer| (buffer.binding, buffer.access == Access::ReadOnly))
}

/// The bucket of `kernel` built from `code`: a hash of the same fields, in the same order, as
/// [`PipelineKey`] holds.
fn bucket(kernel: &Wgsl, code: Code<'_>) -> u64 {
    let mut hasher = DefaultHasher::new();
    let (entry_point, spirv) = shader(kernel, code);
    kernel.source.hash(&mut hasher);
    entry_point.hash(&mut hasher);
    spirv.hash(&mut hasher);
    for entry in buffer_layout(kernel) {
        entry.hash(&mut hasher);
    }
    kernel.params.binding.hash(&mut hasher);
    hasher.finish()
}

/// Compiled kernels by bucket; each bucket holds full keys (almost always one).
type Entries = HashMap<u64, Vec<(PipelineKey, Arc<Pipeline>)>>;

/// Compiled kernels of one device.
#[derive(Default)]
pub(crate) struct PipelineCache {
    entries: Mutex<Entries>,
}

impl PipelineCache {
    /// The compiled `kernel` (its shader module built from `code`): from the cache, or built on `device`
    /// (and cached when the build succeeds).
    pub(crate) fn get_or_build(
        &self,
        device: &wgpu::Device,
        kernel: &Wgsl,
        code: Code<'_>,
    ) -> Result<Arc<Pipeline>, WebGpuError> {
        let bucket = bucket(kernel, code);
        if let Some(found) = self.find(bucket, kernel, code) {
            return Ok(found);
        }
        // Compile without the lock, so launches of other (cached) kernels never wait on a compile.
        let built = Arc::new(pipeline::build(device, kernel, code)?);
        let mut entries = self.lock();
        let slot = entries.entry(bucket).or_default();
        // Another thread may have built the same kernel meanwhile: keep the first, so every launch
        // shares one pipeline.
        if let Some((_, existing)) = slot.iter().find(|(key, _)| key.matches(kernel, code)) {
            return Ok(Arc::clone(existing));
        }
        slot.push((PipelineKey::of(kernel, code), Arc::clone(&built)));
        Ok(built)
    }

    /// How many kernels are cached.
    pub(crate) fn len(&self) -> usize {
        self.lock().values().map(Vec::len).sum()
    }

    /// Drops every cached kernel (launches in flight keep theirs alive until they finish).
    pub(crate) fn clear(&self) {
        self.lock().clear();
    }

    fn find(&self, bucket: u64, kernel: &Wgsl, code: Code<'_>) -> Option<Arc<Pipeline>> {
        let entries = self.lock();
        let slot = entries.get(&bucket)?;
        slot.iter()
            .find(|(key, _)| key.matches(kernel, code))
            .map(|(_, pipeline)| Arc::clone(pipeline))
    }

    /// The map; a panic elsewhere while it was held leaves it consistent (every change is one push or
    /// one clear), so a poisoned lock is taken as is.
    fn lock(&self) -> MutexGuard<'_, Entries> {
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl fmt::Debug for PipelineCache {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PipelineCache")
            .field("pipelines", &self.len())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use warpforge_ir::ScalarType;

    use super::*;

    /// A kernel with one buffer and the parameter block (the device tests' `fill_seven`).
    fn kernel() -> Wgsl {
        crate::webgpu::device::tests::fill_seven()
    }

    #[test]
    fn keys_tell_apart_everything_the_pipeline_is_built_from() {
        let base = kernel();
        let key = PipelineKey::of(&base, Code::Wgsl);
        assert!(key.matches(&base, Code::Wgsl));

        let mut source = kernel();
        source.source.push(' ');
        let mut entry = kernel();
        entry.entry_point = "other".to_owned();
        let mut access = kernel();
        access.buffers[0].access = Access::ReadOnly;
        let mut binding = kernel();
        binding.buffers[0].binding = 2;
        let mut params = kernel();
        params.params.binding = 3;
        let mut extra = kernel();
        extra.buffers.push(extra.buffers[0].clone());
        for (what, other) in [
            ("source", source),
            ("entry point", entry),
            ("access", access),
            ("buffer binding", binding),
            ("params binding", params),
            ("buffer count", extra),
        ] {
            assert!(
                !key.matches(&other, Code::Wgsl),
                "a different {what} matched"
            );
            assert_ne!(key, PipelineKey::of(&other, Code::Wgsl), "{what}");
        }

        // What the pipeline does not depend on shares the entry.
        let mut elem = kernel();
        elem.buffers[0].elem = ScalarType::F32;
        elem.buffers[0].name = "renamed".to_owned();
        assert!(key.matches(&elem, Code::Wgsl));
        assert_eq!(bucket(&base, Code::Wgsl), bucket(&elem, Code::Wgsl));

        // A module built from SPIR-V is another pipeline, and so are other words or entry points.
        let (words, other_words) = ([0x0723_0203, 1, 2], [0x0723_0203, 1, 3]);
        let spirv = |words, entry_point| Code::SpirV { words, entry_point };
        let from_spirv = PipelineKey::of(&base, spirv(&words, "main"));
        assert!(from_spirv.matches(&base, spirv(&words, "main")));
        assert!(!from_spirv.matches(&base, Code::Wgsl));
        assert!(!key.matches(&base, spirv(&words, "main")));
        assert!(!from_spirv.matches(&base, spirv(&other_words, "main")));
        assert!(!from_spirv.matches(&base, spirv(&words, "other")));
    }

    #[test]
    fn the_cache_and_the_device_can_be_shared_between_threads() {
        fn shared<T: Send + Sync>() {}
        shared::<PipelineCache>();
        shared::<crate::webgpu::WebGpuDevice>();
    }
}
