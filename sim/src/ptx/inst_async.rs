//! The decoded form of the asynchronous copy and mbarrier instructions (`decode_async.rs`,
//! executed in `exec_async.rs` and `exec_mbarrier.rs`).

use super::inst_mem::{Addr, MemSpace};
use super::inst_types::R;

/// `cp.async` and the mbarrier family.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Async {
    /// `cp.async.{ca,cg}.shared.global [dst], [src], size{, src-size | ignore-src}`: `size` bytes
    /// (4, 8 or 16) to shared `dst`, the first `src_size` of them (all when `None`) from global
    /// `src` and the rest zeros; `ignore`: the predicate (and whether it is negated) that, when
    /// true, makes the copy all zeros.
    Copy {
        dst: Addr,
        src: Addr,
        size: u32,
        src_size: Option<R>,
        ignore: Option<(R, bool)>,
    },
    /// `cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [dst], [src], size,
    /// [mbar]` (what `cuda::memcpy_async` becomes on sm_90): `size` bytes (a multiple of 16, both
    /// addresses 16-aligned) from global `src` to shared `dst`, then a complete-tx of `size` bytes
    /// on the mbarrier at shared `mbar` (`exec_bulk.rs`).
    Bulk {
        dst: Addr,
        src: Addr,
        size: R,
        mbar: Addr,
    },
    /// `cp.async.commit_group`.
    Commit,
    /// `cp.async.wait_group n` (`Some(n)`) and `cp.async.wait_all` (`None`).
    CopyWait(Option<u32>),
    /// `cp.async.mbarrier.arrive{.noinc}.shared.b64 [mbar]`.
    CopyArrive {
        mbar: Addr,
        space: MemSpace,
        noinc: bool,
    },
    /// `mbarrier.init.shared.b64 [addr], count`. Each mbarrier address is in `space`: `.shared`, or
    /// generic when the instruction names none.
    Init {
        addr: Addr,
        space: MemSpace,
        count: R,
    },
    /// `mbarrier.arrive{.expect_tx}` and `mbarrier.arrive_drop{.expect_tx}`: `state` gets the
    /// object as it was before the arrival (`None`: `_`, or the `.noComplete` form's sink);
    /// `count` arrivals (1 when `None`); `tx`: the `.expect_tx` byte count.
    Arrive {
        state: Option<R>,
        addr: Addr,
        space: MemSpace,
        count: Option<R>,
        drop: bool,
        tx: Option<R>,
        no_complete: bool,
    },
    /// `mbarrier.expect_tx` (`add`) and `mbarrier.complete_tx` (`!add`): the tx-count changes.
    Tx {
        addr: Addr,
        space: MemSpace,
        bytes: R,
        add: bool,
    },
    /// `mbarrier.test_wait` / `mbarrier.try_wait` (`try_`), with a state or, with `parity`, a
    /// phase parity; `p` gets whether the phase completed.
    Wait {
        p: R,
        addr: Addr,
        space: MemSpace,
        operand: R,
        parity: bool,
        try_: bool,
    },
    /// `mbarrier.inval.shared.b64 [addr]`.
    Inval { addr: Addr, space: MemSpace },
    /// `mbarrier.pending_count.b64 d, state`.
    PendingCount { d: R, state: R },
}
