//! The simulator's address map. Global memory: buffer `k` of a launch at [`GLOBAL_BASE`] + `k` ×
//! [`GLOBAL_STRIDE`] (aligned as `cudaMalloc`'s are, far apart so an overrun falls between buffers
//! and faults), module `.global` variables at [`MODULE_GLOBAL_BASE`]. Generic addresses are global
//! addresses, except two windows: [`SHARED_WINDOW`] + a shared address, and [`LOCAL_WINDOW`] + a
//! local one (what `cvta.shared` / `cvta.local` produce). The shared, local, parameter and constant
//! spaces are addressed from 0 to their size.

/// Where the first buffer of a launch starts.
pub(crate) const GLOBAL_BASE: u64 = 0x0010_0000_0000;

/// The distance between two buffers' starts (64 GiB).
pub(crate) const GLOBAL_STRIDE: u64 = 0x0010_0000_0000;

/// Where module `.global` variables start.
pub(crate) const MODULE_GLOBAL_BASE: u64 = 0x0008_0000_0000;

/// The generic address of shared byte 0.
pub(crate) const SHARED_WINDOW: u64 = 0x7f00_0000_0000;

/// The generic address of local byte 0.
pub(crate) const LOCAL_WINDOW: u64 = 0x7f80_0000_0000;

/// The size of each generic window.
pub(crate) const WINDOW: u64 = 1 << 32;

/// The address of buffer `k`.
pub(crate) fn buffer_base(k: usize) -> u64 {
    GLOBAL_BASE + k as u64 * GLOBAL_STRIDE
}

/// Where a generic address points.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Generic {
    /// A shared address.
    Shared(u64),
    /// A local address.
    Local(u64),
    /// A global address.
    Global(u64),
}

/// Classifies a generic address.
pub(crate) fn generic(addr: u64) -> Generic {
    if (SHARED_WINDOW..SHARED_WINDOW + WINDOW).contains(&addr) {
        Generic::Shared(addr - SHARED_WINDOW)
    } else if (LOCAL_WINDOW..LOCAL_WINDOW + WINDOW).contains(&addr) {
        Generic::Local(addr - LOCAL_WINDOW)
    } else {
        Generic::Global(addr)
    }
}

/// The global regions of a launch, for finding which one an address is in.
#[derive(Clone, Debug, Default)]
pub(crate) struct GlobalMap {
    /// (start address, length in bytes, index among the launch's global buffers), by start.
    regions: Vec<(u64, u64, u32)>,
}

impl GlobalMap {
    /// The map of `buffers` (lengths, in launch order: buffer `k` at [`buffer_base`]`(k)`) and,
    /// when `module` is `Some`, the module variables' buffer (its index and length).
    pub fn new(buffers: &[u64], module: Option<(u32, u64)>) -> Self {
        let mut regions: Vec<(u64, u64, u32)> = buffers
            .iter()
            .enumerate()
            .map(|(k, &len)| (buffer_base(k), len, k as u32))
            .collect();
        if let Some((index, len)) = module {
            regions.push((MODULE_GLOBAL_BASE, len, index));
        }
        regions.sort_unstable();
        GlobalMap { regions }
    }

    /// [`Self::find`]'s `Ok`, trying region `*hint` first (the previous lane's, usually the same)
    /// and leaving in it the region found.
    #[inline]
    /// The buffer whose region holds global address `addr`, with the region's start and length
    /// (`hint`: as for [`Self::find_quick`]).
    pub fn region_of(&self, addr: u64, hint: &mut usize) -> Option<(u32, u64, u64)> {
        let holds = |&(start, len, index): &(u64, u64, u32)| {
            (addr.checked_sub(start)? < len).then_some((index, start, len))
        };
        if let Some(found) = self.regions.get(*hint).and_then(holds) {
            return Some(found);
        }
        let at = self
            .regions
            .partition_point(|r| r.0 <= addr)
            .checked_sub(1)?;
        *hint = at;
        holds(&self.regions[at])
    }

    pub fn find_quick(&self, addr: u64, size: u64, hint: &mut usize) -> Option<(u32, u64)> {
        let inside = |&(start, len, index): &(u64, u64, u32)| {
            let offset = addr.checked_sub(start)?;
            offset
                .checked_add(size)
                .is_some_and(|end| end <= len)
                .then_some((index, offset))
        };
        if let Some(found) = self.regions.get(*hint).and_then(inside) {
            return Some(found);
        }
        let at = self
            .regions
            .partition_point(|r| r.0 <= addr)
            .checked_sub(1)?;
        *hint = at;
        inside(&self.regions[at])
    }

    /// The buffer and offset of an access of `size` bytes at global address `addr`: `Ok` when it
    /// lies inside one buffer; `Err` with the nearest buffer below it (if any) and the offset from
    /// its start, to name in the finding.
    #[allow(clippy::type_complexity)]
    pub fn find(&self, addr: u64, size: u64) -> Result<(u32, u64), Option<(u32, u64)>> {
        let at = self.regions.partition_point(|r| r.0 <= addr);
        let Some(&(start, len, index)) = at.checked_sub(1).and_then(|i| self.regions.get(i)) else {
            return Err(None);
        };
        let offset = addr - start;
        if offset.checked_add(size).is_some_and(|end| end <= len) {
            Ok((index, offset))
        } else {
            Err(Some((index, offset)))
        }
    }
}
