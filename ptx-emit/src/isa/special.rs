//! PTX's special registers (`%tid.x`, `%laneid`, `%clock64`, …) and its predefined constant
//! `WARP_SZ`, defined once for the simulator (which fills them) and the linter (which reasons about
//! how they vary between threads).

use std::fmt;

use crate::parse::{Component, Register};

/// The warp size, PTX's predefined constant `WARP_SZ` (nvcc writes it for `warpSize`).
pub const WARP_SZ: u32 = 32;

/// The value of a predefined constant named `name` (`WARP_SZ`), if it is one.
pub fn predefined_constant(name: &str) -> Option<u64> {
    (name == "WARP_SZ").then_some(u64::from(WARP_SZ))
}

/// A dimension of a vector special register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dim {
    /// `.x`
    X,
    /// `.y`
    Y,
    /// `.z`
    Z,
}

impl Dim {
    /// 0, 1 or 2.
    pub fn index(self) -> usize {
        self as usize
    }
}

/// How a special register's value varies across a launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variation {
    /// Differs between the threads of a warp, by the thread's position in the block
    /// (`%tid.x`; `%tid.y`/`%tid.z` differ within a warp only when the block's x extent is below 32).
    Thread,
    /// Differs between the lanes of a warp, by lane (`%laneid`, `%lanemask_*`).
    Lane,
    /// The same on every lane of a warp, different between warps (`%warpid`).
    Warp,
    /// The same for every thread of a block (`%ctaid`, `%ntid`, `%nctaid`, `%smid`, …).
    Block,
    /// Changes while the thread runs (`%clock`, `%globaltimer`, performance counters).
    Time,
}

/// A special register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SpecialReg {
    /// `%tid`: the thread's index in its block.
    Tid(Dim),
    /// `%ntid`: the block's extent.
    Ntid(Dim),
    /// `%ctaid`: the block's index in the grid.
    Ctaid(Dim),
    /// `%nctaid`: the grid's extent.
    Nctaid(Dim),
    /// `%laneid`
    Laneid,
    /// `%warpid`
    Warpid,
    /// `%nwarpid`
    Nwarpid,
    /// `%lanemask_eq`
    LanemaskEq,
    /// `%lanemask_le`
    LanemaskLe,
    /// `%lanemask_lt`
    LanemaskLt,
    /// `%lanemask_ge`
    LanemaskGe,
    /// `%lanemask_gt`
    LanemaskGt,
    /// `%smid`
    Smid,
    /// `%nsmid`
    Nsmid,
    /// `%gridid`
    Gridid,
    /// `%dynamic_smem_size`
    DynamicSmemSize,
    /// `%total_smem_size`
    TotalSmemSize,
    /// `%reserved_smem_offset_begin`: the start of the shared memory the driver reserves for
    /// NVIDIA's libraries (cooperative groups keep their multi-warp scratch there).
    ReservedSmemOffsetBegin,
    /// `%reserved_smem_offset_end`: its end.
    ReservedSmemOffsetEnd,
    /// `%reserved_smem_offset_cap`: its size.
    ReservedSmemOffsetCap,
    /// `%reserved_smem_offset_0` and `_1`: offsets within that region, one per library.
    ReservedSmemOffset(u8),
    /// `%clock`
    Clock,
    /// `%clock64`
    Clock64,
    /// `%globaltimer`
    Globaltimer,
    /// `%globaltimer_lo`
    GlobaltimerLo,
    /// `%globaltimer_hi`
    GlobaltimerHi,
    /// `%cluster_ctaid`: the block's index in its cluster (sm_90).
    ClusterCtaid(Dim),
    /// `%cluster_nctaid`: the cluster's extent in blocks.
    ClusterNctaid(Dim),
    /// `%clusterid`: the cluster's index in the grid.
    Clusterid(Dim),
    /// `%nclusterid`: the grid's extent in clusters.
    Nclusterid(Dim),
    /// `%cluster_ctarank`: the block's rank in its cluster.
    ClusterCtarank,
    /// `%cluster_nctarank`: the blocks in the cluster.
    ClusterNctarank,
    /// `%is_explicit_cluster`: whether the launch gave a cluster shape.
    IsExplicitCluster,
}

impl SpecialReg {
    /// The special register `reg` names, if it is one of these.
    pub fn of(reg: &Register) -> Option<SpecialReg> {
        let dim = match reg.component {
            None => None,
            Some(Component::X) => Some(Dim::X),
            Some(Component::Y) => Some(Dim::Y),
            Some(Component::Z) => Some(Dim::Z),
            Some(_) => return None,
        };
        SpecialReg::from_parts(&reg.name, dim)
    }

    /// The special register written `text` (`%tid.x`, `%laneid`), if it is one of these.
    pub fn parse(text: &str) -> Option<SpecialReg> {
        let text = text.trim();
        let (name, dim) = match text.rsplit_once('.') {
            Some((name, "x")) => (name, Some(Dim::X)),
            Some((name, "y")) => (name, Some(Dim::Y)),
            Some((name, "z")) => (name, Some(Dim::Z)),
            Some(_) => return None,
            None => (text, None),
        };
        SpecialReg::from_parts(name, dim)
    }

    fn from_parts(name: &str, dim: Option<Dim>) -> Option<SpecialReg> {
        if let Some(d) = dim {
            return Some(match name {
                "%tid" => SpecialReg::Tid(d),
                "%ntid" => SpecialReg::Ntid(d),
                "%ctaid" => SpecialReg::Ctaid(d),
                "%nctaid" => SpecialReg::Nctaid(d),
                "%cluster_ctaid" => SpecialReg::ClusterCtaid(d),
                "%cluster_nctaid" => SpecialReg::ClusterNctaid(d),
                "%clusterid" => SpecialReg::Clusterid(d),
                "%nclusterid" => SpecialReg::Nclusterid(d),
                _ => return None,
            });
        }
        Some(match name {
            "%laneid" => SpecialReg::Laneid,
            "%warpid" => SpecialReg::Warpid,
            "%nwarpid" => SpecialReg::Nwarpid,
            "%lanemask_eq" => SpecialReg::LanemaskEq,
            "%lanemask_le" => SpecialReg::LanemaskLe,
            "%lanemask_lt" => SpecialReg::LanemaskLt,
            "%lanemask_ge" => SpecialReg::LanemaskGe,
            "%lanemask_gt" => SpecialReg::LanemaskGt,
            "%smid" => SpecialReg::Smid,
            "%nsmid" => SpecialReg::Nsmid,
            "%gridid" => SpecialReg::Gridid,
            "%dynamic_smem_size" => SpecialReg::DynamicSmemSize,
            "%total_smem_size" => SpecialReg::TotalSmemSize,
            "%reserved_smem_offset_begin" => SpecialReg::ReservedSmemOffsetBegin,
            "%reserved_smem_offset_end" => SpecialReg::ReservedSmemOffsetEnd,
            "%reserved_smem_offset_cap" => SpecialReg::ReservedSmemOffsetCap,
            "%reserved_smem_offset_0" => SpecialReg::ReservedSmemOffset(0),
            "%reserved_smem_offset_1" => SpecialReg::ReservedSmemOffset(1),
            "%clock" => SpecialReg::Clock,
            "%clock64" => SpecialReg::Clock64,
            "%globaltimer" => SpecialReg::Globaltimer,
            "%globaltimer_lo" => SpecialReg::GlobaltimerLo,
            "%globaltimer_hi" => SpecialReg::GlobaltimerHi,
            "%cluster_ctarank" => SpecialReg::ClusterCtarank,
            "%cluster_nctarank" => SpecialReg::ClusterNctarank,
            "%is_explicit_cluster" => SpecialReg::IsExplicitCluster,
            _ => return None,
        })
    }

    /// Its name without component (`%tid`).
    pub fn name(self) -> &'static str {
        match self {
            SpecialReg::Tid(_) => "%tid",
            SpecialReg::Ntid(_) => "%ntid",
            SpecialReg::Ctaid(_) => "%ctaid",
            SpecialReg::Nctaid(_) => "%nctaid",
            SpecialReg::Laneid => "%laneid",
            SpecialReg::Warpid => "%warpid",
            SpecialReg::Nwarpid => "%nwarpid",
            SpecialReg::LanemaskEq => "%lanemask_eq",
            SpecialReg::LanemaskLe => "%lanemask_le",
            SpecialReg::LanemaskLt => "%lanemask_lt",
            SpecialReg::LanemaskGe => "%lanemask_ge",
            SpecialReg::LanemaskGt => "%lanemask_gt",
            SpecialReg::Smid => "%smid",
            SpecialReg::Nsmid => "%nsmid",
            SpecialReg::Gridid => "%gridid",
            SpecialReg::DynamicSmemSize => "%dynamic_smem_size",
            SpecialReg::TotalSmemSize => "%total_smem_size",
            SpecialReg::ReservedSmemOffsetBegin => "%reserved_smem_offset_begin",
            SpecialReg::ReservedSmemOffsetEnd => "%reserved_smem_offset_end",
            SpecialReg::ReservedSmemOffsetCap => "%reserved_smem_offset_cap",
            SpecialReg::ReservedSmemOffset(0) => "%reserved_smem_offset_0",
            SpecialReg::ReservedSmemOffset(_) => "%reserved_smem_offset_1",
            SpecialReg::Clock => "%clock",
            SpecialReg::Clock64 => "%clock64",
            SpecialReg::Globaltimer => "%globaltimer",
            SpecialReg::GlobaltimerLo => "%globaltimer_lo",
            SpecialReg::GlobaltimerHi => "%globaltimer_hi",
            SpecialReg::ClusterCtaid(_) => "%cluster_ctaid",
            SpecialReg::ClusterNctaid(_) => "%cluster_nctaid",
            SpecialReg::Clusterid(_) => "%clusterid",
            SpecialReg::Nclusterid(_) => "%nclusterid",
            SpecialReg::ClusterCtarank => "%cluster_ctarank",
            SpecialReg::ClusterNctarank => "%cluster_nctarank",
            SpecialReg::IsExplicitCluster => "%is_explicit_cluster",
        }
    }

    /// Its dimension, for the vector registers.
    pub fn dim(self) -> Option<Dim> {
        match self {
            SpecialReg::Tid(d)
            | SpecialReg::Ntid(d)
            | SpecialReg::Ctaid(d)
            | SpecialReg::Nctaid(d)
            | SpecialReg::ClusterCtaid(d)
            | SpecialReg::ClusterNctaid(d)
            | SpecialReg::Clusterid(d)
            | SpecialReg::Nclusterid(d) => Some(d),
            _ => None,
        }
    }

    /// How its value varies across a launch.
    pub fn variation(self) -> Variation {
        match self {
            SpecialReg::Tid(_) => Variation::Thread,
            SpecialReg::Laneid
            | SpecialReg::LanemaskEq
            | SpecialReg::LanemaskLe
            | SpecialReg::LanemaskLt
            | SpecialReg::LanemaskGe
            | SpecialReg::LanemaskGt => Variation::Lane,
            SpecialReg::Warpid => Variation::Warp,
            SpecialReg::Clock
            | SpecialReg::Clock64
            | SpecialReg::Globaltimer
            | SpecialReg::GlobaltimerLo
            | SpecialReg::GlobaltimerHi => Variation::Time,
            SpecialReg::Ntid(_)
            | SpecialReg::Ctaid(_)
            | SpecialReg::Nctaid(_)
            | SpecialReg::Nwarpid
            | SpecialReg::Smid
            | SpecialReg::Nsmid
            | SpecialReg::Gridid
            | SpecialReg::DynamicSmemSize
            | SpecialReg::TotalSmemSize
            | SpecialReg::ReservedSmemOffsetBegin
            | SpecialReg::ReservedSmemOffsetEnd
            | SpecialReg::ReservedSmemOffsetCap
            | SpecialReg::ReservedSmemOffset(_)
            | SpecialReg::ClusterCtaid(_)
            | SpecialReg::ClusterNctaid(_)
            | SpecialReg::Clusterid(_)
            | SpecialReg::Nclusterid(_)
            | SpecialReg::ClusterCtarank
            | SpecialReg::ClusterNctarank
            | SpecialReg::IsExplicitCluster => Variation::Block,
        }
    }

    /// The values the ISA allows it (inclusive), for the registers whose range it fixes: block
    /// extents of at most 1024 × 1024 × 64 threads, grids of at most 2³¹−1 × 65535 × 65535 blocks,
    /// lanes 0–31.
    pub fn range(self) -> Option<(u64, u64)> {
        let (lo, hi) = match self {
            SpecialReg::Tid(Dim::Z) => (0, 63),
            SpecialReg::Tid(_) => (0, 1023),
            SpecialReg::Ntid(Dim::Z) => (1, 64),
            SpecialReg::Ntid(_) => (1, 1024),
            SpecialReg::Ctaid(Dim::X) => (0, (1 << 31) - 2),
            SpecialReg::Ctaid(_) => (0, 65534),
            SpecialReg::Nctaid(Dim::X) => (1, (1 << 31) - 1),
            SpecialReg::Nctaid(_) => (1, 65535),
            SpecialReg::Laneid => (0, u64::from(WARP_SZ) - 1),
            SpecialReg::Warpid => (0, 1023 / u64::from(WARP_SZ)),
            SpecialReg::Nwarpid => (1, 1024 / u64::from(WARP_SZ)),
            _ => return None,
        };
        Some((lo, hi))
    }
}

impl fmt::Display for SpecialReg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())?;
        match self.dim() {
            Some(Dim::X) => f.write_str(".x"),
            Some(Dim::Y) => f.write_str(".y"),
            Some(Dim::Z) => f.write_str(".z"),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{predefined_constant, Dim, SpecialReg, Variation};

    #[test]
    fn names_parse_back_and_vary_as_the_isa_says() {
        for text in [
            "%tid.x",
            "%ntid.z",
            "%laneid",
            "%lanemask_lt",
            "%clock64",
            "%ctaid.y",
        ] {
            assert_eq!(SpecialReg::parse(text).unwrap().to_string(), text);
        }
        assert_eq!(SpecialReg::parse("%tid"), None);
        assert_eq!(SpecialReg::parse("%laneid.x"), None);
        assert_eq!(SpecialReg::parse("%r1"), None);
        assert_eq!(SpecialReg::Tid(Dim::Y).variation(), Variation::Thread);
        assert_eq!(SpecialReg::Laneid.range(), Some((0, 31)));
        assert_eq!(predefined_constant("WARP_SZ"), Some(32));
        assert_eq!(predefined_constant("warp_sz"), None);
    }
}
