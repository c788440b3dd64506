//! The decoded form of the warp-level matrix instructions (`decode_mma.rs`, executed by
//! `exec_mma.rs`): `ldmatrix`/`stmatrix` (8x8 matrices of 16-bit elements between shared memory and
//! the warp's registers), `mma.sync` and `wmma.mma` (D = A·B + C on fragments spread over the 32
//! lanes), and `wmma.load`/`wmma.store`. Also the fragment layouts: which matrix element each
//! lane's element `e` of a fragment is ([`coords`]).
//!
//! # Fragment layouts
//!
//! `mma.sync` fragments are those of the PTX ISA ("Matrix fragments for mma.m16n8k16", `.m16n8k8`,
//! `.m16n8k4`, `.m16n8k32`, `.m8n8k4` with `.f64`): with `g = %laneid >> 2` (groupID) and
//! `t = %laneid % 4` (threadID_in_group), element `e` of a fragment is element `e % per` of register
//! `e / per`, `per` elements per 32-bit register (lowest bits first), e.g. for `.m16n8k16` `.f16` A,
//! `a0..a7` at row `g + 8·((e/2)%2)`, column `2t + e%2 + 8·(e/4)`.
//!
//! `wmma` fragments are implementation-defined (the ISA says only that the layout must be the same
//! for `wmma.load`, `wmma.mma` and `wmma.store` of one shape and type). Here a `.m16n16k16` /
//! `.m16n16k8` fragment is the `mma.sync` one of the matching `m16n8` shape: A is the `m16n8kK` A
//! fragment; B and C/D are two `m16n8` fragments side by side (columns 0–7, then 8–15). The `.f16`
//! A and B fragments are eight registers (the ISA's count) for eight elements: the second four
//! registers repeat the first four, and `wmma.mma` reads the first four.

use warpforge_ptx::isa::Modifier;
use warpforge_ptx::parse::DataType;

use super::inst_mem::{Addr, MemSpace};
use super::inst_types::R;

/// The element type of a matrix operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum El {
    F16,
    Bf16,
    /// An `f32` register whose low 13 mantissa bits the multiply ignores.
    Tf32,
    F32,
    F64,
    S8,
    U8,
    S32,
}

impl El {
    /// From a PTX type name.
    pub fn of(m: &Modifier) -> Option<El> {
        Some(match m {
            Modifier::Type(DataType::F16) => El::F16,
            Modifier::Type(DataType::Bf16) => El::Bf16,
            Modifier::Tf32 => El::Tf32,
            Modifier::Type(DataType::F32) => El::F32,
            Modifier::Type(DataType::F64) => El::F64,
            Modifier::Type(DataType::S8) => El::S8,
            Modifier::Type(DataType::U8) => El::U8,
            Modifier::Type(DataType::S32) => El::S32,
            _ => return None,
        })
    }

    /// Its width in bits (in memory and in a register).
    pub fn bits(self) -> u32 {
        match self {
            El::S8 | El::U8 => 8,
            El::F16 | El::Bf16 => 16,
            El::Tf32 | El::F32 | El::S32 => 32,
            El::F64 => 64,
        }
    }

    /// Elements per register (an `.f64` register holds one).
    pub fn per_reg(self) -> usize {
        (32 / self.bits()).max(1) as usize
    }
}

/// The shape of an `mma.sync` (`m16n8*`, `m8n8k4`) or `wmma` (`m16n16*`) instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    M16N8K4,
    M16N8K8,
    M16N8K16,
    M16N8K32,
    M8N8K4,
    M16N16K8,
    M16N16K16,
}

impl Shape {
    pub fn of(m: &Modifier) -> Option<Shape> {
        let Modifier::Shape { m, n, k: Some(k) } = *m else {
            return None;
        };
        Some(match (m, n, k) {
            (16, 8, 4) => Shape::M16N8K4,
            (16, 8, 8) => Shape::M16N8K8,
            (16, 8, 16) => Shape::M16N8K16,
            (16, 8, 32) => Shape::M16N8K32,
            (8, 8, 4) => Shape::M8N8K4,
            (16, 16, 8) => Shape::M16N16K8,
            (16, 16, 16) => Shape::M16N16K16,
            _ => return None,
        })
    }

    /// (M, N, K).
    pub fn mnk(self) -> (usize, usize, usize) {
        match self {
            Shape::M16N8K4 => (16, 8, 4),
            Shape::M16N8K8 => (16, 8, 8),
            Shape::M16N8K16 => (16, 8, 16),
            Shape::M16N8K32 => (16, 8, 32),
            Shape::M8N8K4 => (8, 8, 4),
            Shape::M16N16K8 => (16, 16, 8),
            Shape::M16N16K16 => (16, 16, 16),
        }
    }

    /// A `wmma` shape.
    pub fn is_wmma(self) -> bool {
        matches!(self, Shape::M16N16K8 | Shape::M16N16K16)
    }
}

/// Which operand a fragment holds: A (M×K), B (K×N), or C/D (M×N).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Frag {
    A,
    B,
    C,
}

impl Frag {
    /// The matrix's rows and columns.
    pub fn dims(self, shape: Shape) -> (usize, usize) {
        let (m, n, k) = shape.mnk();
        match self {
            Frag::A => (m, k),
            Frag::B => (k, n),
            Frag::C => (m, n),
        }
    }

    /// Elements each lane holds (the `.f16` `wmma` A and B fragments twice over).
    pub fn elems(self, shape: Shape, el: El) -> usize {
        let (r, c) = self.dims(shape);
        let dup = shape.is_wmma() && el == El::F16 && self != Frag::C;
        r * c / 32 * if dup { 2 } else { 1 }
    }

    /// Registers of the fragment.
    pub fn regs(self, shape: Shape, el: El) -> usize {
        self.elems(shape, el) / el.per_reg()
    }
}

/// (row, column) of element `e` of lane `lane`'s fragment `frag` (see the module's comment).
pub(crate) fn coords(shape: Shape, frag: Frag, el: El, lane: usize, e: usize) -> (usize, usize) {
    let (g, t) = (lane >> 2, lane & 3);
    let byte = el.bits() == 8;
    match (shape, frag) {
        (Shape::M8N8K4, Frag::A) => (g, t),
        (Shape::M8N8K4, Frag::B) => (t, g),
        (Shape::M8N8K4, Frag::C) => (g, 2 * t + e),
        (Shape::M16N16K8 | Shape::M16N16K16, Frag::C) => {
            let (r, c) = coords(Shape::M16N8K16, Frag::C, el, lane, e % 4);
            (r, c + 8 * (e / 4))
        }
        (_, Frag::C) => (g + 8 * (e / 2), 2 * t + e % 2),
        (Shape::M16N8K16, Frag::A) if byte => (g + 8 * (e / 4), 4 * t + e % 4),
        (Shape::M16N8K16, Frag::A) => (g + 8 * ((e / 2) % 2), 2 * t + e % 2 + 8 * (e / 4)),
        (Shape::M16N8K16, Frag::B) if byte => (4 * t + e, g),
        (Shape::M16N8K16, Frag::B) => (2 * t + e % 2 + 8 * (e / 2), g),
        (Shape::M16N8K8, Frag::A) if el == El::Tf32 => (g + 8 * (e % 2), t + 4 * (e / 2)),
        (Shape::M16N8K8, Frag::A) => (g + 8 * (e / 2), 2 * t + e % 2),
        (Shape::M16N8K8, Frag::B) if el == El::Tf32 => (t + 4 * e, g),
        (Shape::M16N8K8, Frag::B) => (2 * t + e, g),
        (Shape::M16N8K4, Frag::A) => (g + 8 * e, t),
        (Shape::M16N8K4, Frag::B) => (t, g),
        (Shape::M16N8K32, Frag::A) => (g + 8 * ((e / 4) % 2), 4 * t + e % 4 + 16 * (e / 8)),
        (Shape::M16N8K32, Frag::B) => (4 * t + e % 4 + 16 * (e / 4), g),
        (Shape::M16N16K16, Frag::A) => coords(Shape::M16N8K16, Frag::A, el, lane, e % 8),
        (Shape::M16N16K16, Frag::B) => {
            let (r, c) = coords(Shape::M16N8K16, Frag::B, el, lane, e % 4);
            (r, c + 8 * ((e % 8) / 4))
        }
        (Shape::M16N16K8, Frag::A) => coords(Shape::M16N8K8, Frag::A, el, lane, e),
        (Shape::M16N16K8, Frag::B) => {
            let (r, c) = coords(Shape::M16N8K8, Frag::B, el, lane, e % 2);
            (r, c + 8 * (e / 2))
        }
    }
}

/// The types of a multiply: D, A, B, C, and `.satfinite` (integer results clamped).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct MmaTypes {
    pub d: El,
    pub a: El,
    pub b: El,
    pub c: El,
    pub satfinite: bool,
}

/// A fragment's registers (an immediate source is a constant register).
pub(crate) type Regs = Box<[R]>;

/// The rounding of `cvt.{rna,rn,rz}.tf32.f32`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tf32Round {
    /// To nearest, ties away from zero.
    Rna,
    /// To nearest, ties to even.
    Rn,
    /// Toward zero.
    Rz,
}

/// One warp-level matrix instruction (or `cvt` to `.tf32`, a per-lane one that goes with them).
#[derive(Clone, Debug)]
pub(crate) enum MmaOp {
    /// `cvt.rna{.satfinite}.tf32.f32`, `cvt.{rn,rz}{.relu}{.satfinite}.tf32.f32`: `a` rounded to
    /// tf32 (10 mantissa bits), in a `.b32` with the low 13 bits zero; a NaN gives `0x7fffffff`.
    Tf32 {
        round: Tf32Round,
        relu: bool,
        satfinite: bool,
        d: R,
        a: R,
    },
    /// `ldmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}.b16`: `count` matrices; lanes `8m..8m+7` give
    /// the addresses of matrix `m`'s rows (16 bytes each); register `m` of lane `l` gets row `l/4`,
    /// columns `2(l%4)` and `+1` (`.trans`: column `l/4`, rows `2(l%4)` and `+1`).
    Ldmatrix {
        trans: bool,
        space: MemSpace,
        regs: Regs,
        addr: Addr,
    },
    /// `stmatrix`: the same with the data going the other way.
    Stmatrix {
        trans: bool,
        space: MemSpace,
        regs: Regs,
        addr: Addr,
    },
    /// `mma.sync.aligned` and `wmma.mma.sync.aligned`: D = A·B + C.
    Mma {
        shape: Shape,
        types: MmaTypes,
        d: Regs,
        a: Regs,
        b: Regs,
        c: Regs,
    },
    /// `wmma.load.{a,b,c}` (`store` false) and `wmma.store.d`: the fragment's elements from or to
    /// memory at `addr`, row `r` column `c` at element `r·stride + c` (`.col`: `c·stride + r`).
    Wmma {
        store: bool,
        frag: Frag,
        shape: Shape,
        el: El,
        col_major: bool,
        space: MemSpace,
        regs: Regs,
        addr: Addr,
        stride: R,
    },
}
