//! The decoded form of the less common integer instructions (`decode_int.rs`): the 24-bit
//! multiplies, the extended-precision carry chains, the bit-mask and extension instructions, the
//! byte dot products, `prmt`'s special modes, funnel shifts, `lop3` and `sad`. Each reads up to three
//! source registers `a`, `b`, `c` (an unused one is the constant 0) and writes `d`; executed per
//! lane by `exec_bits.rs` and, for the carry chains, `exec_ext.rs`.

use super::inst_types::{BoolOp, Int, R};

/// One of these instructions with its registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct IntX {
    pub op: XOp,
    pub d: R,
    pub a: R,
    pub b: R,
    pub c: R,
}

/// What the instruction computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum XOp {
    /// `mul24.{lo,hi}` (`add` false, `c` unused) and `mad24.{lo,hi}`; `sat` is `mad24.hi.sat.s32`.
    Mul24 {
        hi: bool,
        signed: bool,
        add: bool,
        sat: bool,
    },
    /// `mad.hi.sat.s32`.
    MadHiSat,
    /// `add.cc`, `addc`, `sub.cc`, `subc`, `mad.cc`, `madc`.
    Carry(Carry),
    /// `bmsk.{clamp,wrap}.b32`.
    Bmsk { clamp: bool },
    /// `szext.{clamp,wrap}.{u32,s32}`.
    Szext { clamp: bool, signed: bool },
    /// `fns.b32`.
    Fns,
    /// `dp4a.atype.btype`.
    Dp4a { a_signed: bool, b_signed: bool },
    /// `dp2a.{lo,hi}.atype.btype`.
    Dp2a {
        hi: bool,
        a_signed: bool,
        b_signed: bool,
    },
    /// `prmt.b32` with a mode (the generic form is `Op::Prmt`).
    Prmt(PrmtMode),
    /// `shf.{l,r}.{clamp,wrap}.b32`.
    Shf { left: bool, clamp: bool },
    /// `lop3.b32` (and `lop3.{and,or}.b32 d|p, …, q`).
    Lop3 { lut: u8, pred: Option<Lop3Pred> },
    /// `sad.type`.
    Sad(Int),
}

/// An extended-precision instruction: its operation, type, and whether it reads and writes the
/// condition code `CC.CF` (register `cc`: one bit per lane, 0 when the warp starts).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Carry {
    pub kind: CarryKind,
    pub ty: Int,
    /// `addc`, `subc`, `madc`: `CC.CF` is added (subtracted, for `subc`).
    pub carry_in: bool,
    /// `.cc`: the carry (borrow) out is written to `CC.CF`.
    pub carry_out: bool,
    pub cc: R,
}

/// The operation of a carry chain instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CarryKind {
    /// `d = a + b (+ CF)`.
    Add,
    /// `d = a − (b (+ CF))`; `CF` is the borrow.
    Sub,
    /// `d = (a·b)<n−1..0> + c (+ CF)`.
    MadLo,
    /// `d = (a·b)<2n−1..n> + c (+ CF)`.
    MadHi,
}

/// `prmt`'s special modes (PTX ISA, "prmt", the second table).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PrmtMode {
    F4e,
    B4e,
    Rc8,
    Ecl,
    Ecr,
    Rc16,
}

/// `lop3.BoolOp`'s predicate: `p = (d != 0) BoolOp q` (`q` maybe negated).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Lop3Pred {
    pub op: BoolOp,
    pub p: R,
    pub q: R,
    pub negated: bool,
}
