//! The register file of a decoded PTX function: `.reg` declarations (scoped: a nested `{ … }` block
//! may declare its own names) become register indices, and every value an instruction reads that is
//! not a declared register — an immediate, a special register (`%tid.x`, `%laneid`, …), a symbol's
//! address — becomes a register too, filled before the warp's first instruction ([`Init`]). The
//! executor then reads every operand the same way: one column of 32 lanes.

use std::collections::HashMap;

use warpforge_ptx::isa::SpecialReg;
use warpforge_ptx::parse::{DataType, Register};

use super::inst::R;

/// The most registers an entry may have (declared, and the constants and special registers the
/// decoder adds): each warp keeps 32 lanes × 8 bytes of each, so this bounds a warp's register file
/// at 16 MiB (compilers declare a few thousand).
pub(crate) const MAX_REGISTERS: usize = 1 << 16;

/// A special register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Special {
    /// `%tid.{x,y,z}` (dimension 0, 1, 2).
    Tid(u8),
    /// `%ntid.{x,y,z}`.
    Ntid(u8),
    /// `%ctaid.{x,y,z}`.
    Ctaid(u8),
    /// `%nctaid.{x,y,z}`.
    Nctaid(u8),
    /// `%laneid`.
    LaneId,
    /// `%warpid`: the warp's index in its block (hardware may move a warp; the simulator does not).
    WarpId,
    /// `%nwarpid`: warps per block.
    NWarpId,
    /// `%lanemask_eq`, `_lt`, `_le`, `_gt`, `_ge`.
    LanemaskEq,
    LanemaskLt,
    LanemaskLe,
    LanemaskGt,
    LanemaskGe,
    /// `%dynamic_smem_size`, `%total_smem_size`.
    DynamicSmem,
    TotalSmem,
    /// `%smid` (0: one SM), `%nsmid` (1), `%gridid` (0: one grid at a time).
    SmId,
    NSmId,
    GridId,
    /// The shared memory reserved for NVIDIA's libraries: `%reserved_smem_offset_begin` (0),
    /// `_end` (1), `_cap` (2), `_0` (3), `_1` (4) (`LaunchState::reserved_begin`).
    Reserved(u8),
    /// The constants of a launch without clusters (`%cluster_ctarank` 0, `%cluster_nctarank` 1).
    Zero,
    One,
}

impl Special {
    /// The special register a PTX register name stands for, if it is one the simulator provides.
    fn of(reg: &Register) -> Option<Special> {
        Some(match SpecialReg::of(reg)? {
            SpecialReg::Tid(d) => Special::Tid(d.index() as u8),
            SpecialReg::Ntid(d) => Special::Ntid(d.index() as u8),
            SpecialReg::Ctaid(d) => Special::Ctaid(d.index() as u8),
            SpecialReg::Nctaid(d) => Special::Nctaid(d.index() as u8),
            SpecialReg::Laneid => Special::LaneId,
            SpecialReg::Warpid => Special::WarpId,
            SpecialReg::Nwarpid => Special::NWarpId,
            SpecialReg::LanemaskEq => Special::LanemaskEq,
            SpecialReg::LanemaskLt => Special::LanemaskLt,
            SpecialReg::LanemaskLe => Special::LanemaskLe,
            SpecialReg::LanemaskGt => Special::LanemaskGt,
            SpecialReg::LanemaskGe => Special::LanemaskGe,
            SpecialReg::DynamicSmemSize => Special::DynamicSmem,
            SpecialReg::TotalSmemSize => Special::TotalSmem,
            SpecialReg::ReservedSmemOffsetBegin => Special::Reserved(0),
            SpecialReg::ReservedSmemOffsetEnd => Special::Reserved(1),
            SpecialReg::ReservedSmemOffsetCap => Special::Reserved(2),
            SpecialReg::ReservedSmemOffset(k) => Special::Reserved(3 + k.min(1)),
            SpecialReg::Smid => Special::SmId,
            SpecialReg::Nsmid => Special::NSmId,
            SpecialReg::Gridid => Special::GridId,
            // A launch without a cluster shape runs each block as a cluster of one (PTX ISA,
            // "Cluster of Cooperative Thread Arrays"): the block is cluster 0's only block, the
            // cluster index is the block index.
            SpecialReg::ClusterCtaid(_)
            | SpecialReg::ClusterCtarank
            | SpecialReg::IsExplicitCluster => Special::Zero,
            SpecialReg::ClusterNctaid(_) | SpecialReg::ClusterNctarank => Special::One,
            SpecialReg::Clusterid(d) => Special::Ctaid(d.index() as u8),
            SpecialReg::Nclusterid(d) => Special::Nctaid(d.index() as u8),
            // timers are read by `mov` itself (`Op::Clock`)
            SpecialReg::Clock
            | SpecialReg::Clock64
            | SpecialReg::Globaltimer
            | SpecialReg::GlobaltimerLo
            | SpecialReg::GlobaltimerHi => return None,
        })
    }
}

/// How a register is filled before a warp starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Init {
    /// The same bits on every lane.
    Const(u64),
    /// A special register's value on each lane.
    Special(Special),
}

/// The registers of a function being decoded.
#[derive(Debug, Default)]
pub(crate) struct Registers {
    /// Declared names in scope, innermost scope last.
    scopes: Vec<HashMap<String, R>>,
    /// Width in bits of each register (1 for predicates).
    pub bits: Vec<u32>,
    /// Registers filled before the warp starts.
    pub init: Vec<(R, Init)>,
    consts: HashMap<u64, R>,
    specials: HashMap<Special, R>,
    /// The condition code `CC.CF` of the carry chains (`exec_ext.rs`), once an instruction uses it.
    carry: Option<R>,
}

/// The width of a register of type `ty`.
pub(crate) fn width(ty: DataType) -> u32 {
    match ty {
        DataType::Pred => 1,
        other => other.size_bytes() * 8,
    }
}

impl Registers {
    /// Opens a `{ … }` scope.
    pub fn push_scope(&mut self) {
        self.scopes.push(HashMap::new());
    }

    /// Closes the innermost scope.
    pub fn pop_scope(&mut self) {
        self.scopes.pop();
    }

    fn fresh(&mut self, bits: u32) -> R {
        self.bits.push(bits);
        (self.bits.len() - 1) as R
    }

    /// Declares `name` (or `name0` … `name{range-1}`) of type `ty` in the innermost scope; `Err` says
    /// why not (more than [`MAX_REGISTERS`] in all).
    pub fn declare(&mut self, name: &str, range: Option<u32>, ty: DataType) -> Result<(), String> {
        let count = range.map_or(1, u64::from);
        if self.bits.len() as u64 + count > MAX_REGISTERS as u64 {
            return Err(format!(
                "{count} registers here, {} before: the simulator allows {MAX_REGISTERS} per entry \
                 (each warp keeps 256 bytes per register; MAX_REGISTERS in sim/src/ptx/registers.rs)",
                self.bits.len()
            ));
        }
        let bits = width(ty);
        if self.scopes.is_empty() {
            self.push_scope();
        }
        let names: Vec<String> = match range {
            None => vec![name.to_owned()],
            Some(n) => (0..n).map(|i| format!("{name}{i}")).collect(),
        };
        for n in names {
            let r = self.fresh(bits);
            if let Some(scope) = self.scopes.last_mut() {
                scope.insert(n, r);
            }
        }
        Ok(())
    }

    /// The declared register `reg` names (innermost scope first).
    pub fn declared(&self, reg: &Register) -> Option<R> {
        if reg.component.is_some() {
            return None;
        }
        self.scopes
            .iter()
            .rev()
            .find_map(|scope| scope.get(&reg.name).copied())
    }

    /// The declared register `reg` names (innermost scope first), or the special register it is.
    pub fn lookup(&mut self, reg: &Register) -> Option<R> {
        if reg.component.is_none() {
            for scope in self.scopes.iter().rev() {
                if let Some(&r) = scope.get(&reg.name) {
                    return Some(r);
                }
            }
        }
        let special = Special::of(reg)?;
        if let Some(&r) = self.specials.get(&special) {
            return Some(r);
        }
        let r = self.fresh(32);
        self.specials.insert(special, r);
        self.init.push((r, Init::Special(special)));
        Some(r)
    }

    /// A register holding `bits` on every lane.
    pub fn constant(&mut self, bits: u64) -> R {
        if let Some(&r) = self.consts.get(&bits) {
            return r;
        }
        let r = self.fresh(64);
        self.consts.insert(bits, r);
        self.init.push((r, Init::Const(bits)));
        r
    }

    /// The one-bit register holding each lane's `CC.CF` (0 when the warp starts).
    pub fn carry(&mut self) -> R {
        if let Some(r) = self.carry {
            return r;
        }
        let r = self.fresh(1);
        self.carry = Some(r);
        r
    }

    /// A scratch register of `bits` (the `_` sink of a result).
    pub fn scratch(&mut self, bits: u32) -> R {
        self.fresh(bits)
    }
}
