//! The targets PTX is emitted for ([`Sm`]) and their shared-memory limits.

use std::fmt;

/// A PTX target architecture. Each comes with the PTX ISA version that introduced it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Sm {
    /// Volta (`sm_70`, PTX ISA 6.0): the oldest target with `match.sync` and independent thread
    /// scheduling; the default.
    #[default]
    Sm70,
    /// Ampere (`sm_80`, PTX ISA 7.0).
    Sm80,
    /// Hopper (`sm_90`, PTX ISA 7.8).
    Sm90,
}

impl Sm {
    /// Every target.
    pub const ALL: [Sm; 3] = [Sm::Sm70, Sm::Sm80, Sm::Sm90];

    /// The `.target` name (`sm_90`).
    pub fn name(self) -> &'static str {
        match self {
            Sm::Sm70 => "sm_70",
            Sm::Sm80 => "sm_80",
            Sm::Sm90 => "sm_90",
        }
    }

    /// The compute capability number (70, 80, 90).
    pub fn number(self) -> u32 {
        match self {
            Sm::Sm70 => 70,
            Sm::Sm80 => 80,
            Sm::Sm90 => 90,
        }
    }

    /// The target for a compute capability number, if supported.
    pub fn from_number(n: u32) -> Option<Sm> {
        Sm::ALL.into_iter().find(|sm| sm.number() == n)
    }

    /// The PTX ISA version written in `.version`.
    pub fn ptx_isa(self) -> (u32, u32) {
        match self {
            Sm::Sm70 => (6, 0),
            Sm::Sm80 => (7, 0),
            Sm::Sm90 => (7, 8),
        }
    }
}

impl fmt::Display for Sm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Static shared memory a kernel may declare. Kernels that declare more get dynamic shared memory
/// (one `.extern .shared` array), sized at launch ([`LaunchInfo::dynamic_shared_bytes`](crate::LaunchInfo::dynamic_shared_bytes)); the host must
/// opt in with `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES` above 48 KiB.
pub const MAX_STATIC_SHARED_BYTES: u64 = 48 * 1024;

impl Sm {
    /// The most shared memory one block may use on this target (with the dynamic opt-in).
    pub fn max_shared_bytes(self) -> u64 {
        match self {
            Sm::Sm70 => 96 * 1024,
            Sm::Sm80 => 163 * 1024,
            Sm::Sm90 => 227 * 1024,
        }
    }
}
