//! The PTX ISA's `.approx` `f32` functions — `ex2`, `lg2`, `sin`, `cos`, `rsqrt`, `tanh`, and the
//! `.approx` forms of `sqrt` and `rcp` — with one documented, deterministic result per input: the
//! `f32` nearest to the function's value computed in `f64` (Rust's `f64` functions, whose error is far
//! below an `f32` ulp), with the ISA's special cases, `.ftz` on input and output, and NaN results as
//! CUDA's canonical NaN. Every such result is within the ISA's stated bound of the exact value, so a
//! kernel correct on hardware is correct here; the reverse holds within the same bound:
//!
//! | instruction | ISA error bound (sm_70+) |
//! |---|---|
//! | `ex2.approx.f32` | relative 2^-22 (2 ulp) |
//! | `lg2.approx.f32` | absolute 2^-22 for x in [0.5, 2], relative 2^-22 elsewhere |
//! | `sin`, `cos.approx.f32` | absolute 2^-20.5 in [-100π, 100π] (grows outside; exact here) |
//! | `rsqrt.approx.f32` | relative 2^-22.9 |
//! | `tanh.approx.f32` | relative 2^-11 (sm_75+) |
//! | `sqrt.approx.f32`, `rcp.approx.f32` | relative 2^-23 (1 ulp): here the IEEE result |

use warpforge_ptx::isa::Modifier as M;
use warpforge_ptx::isa::Opcode as O;
use warpforge_ptx::parse::{DataType, Instruction};

use super::decode::{operands, Decoder, Imm, Mods};
use super::inst::{FMods, FTy, FUn, Op};

impl Decoder<'_> {
    /// `ex2`, `lg2`, `sin`, `cos`, `rsqrt`, `tanh` (`.approx` required) and `sqrt.approx`,
    /// `rcp.approx`: `f32` only.
    pub(crate) fn approx(&mut self, inst: &Instruction, mods: &mut Mods) -> Result<Op, String> {
        let name = &inst.opcode;
        if !mods.take(M::Approx) {
            return Err(format!(
                "`{name}` needs `.approx` (the only form the ISA has for .f32)"
            ));
        }
        let ftz = mods.take(M::Ftz);
        let types = mods.types();
        if types != [DataType::F32] {
            let given: Vec<&str> = types.iter().map(|t| t.name()).collect();
            return Err(format!(
                "`{name}.approx` is supported on `.f32` only, not `.{}`",
                given.join(".")
            ));
        }
        let op = match name {
            O::Ex2 => FUn::Ex2,
            O::Lg2 => FUn::Lg2,
            O::Sin => FUn::Sin,
            O::Cos => FUn::Cos,
            O::Rsqrt => FUn::Rsqrt,
            O::Tanh => FUn::Tanh,
            O::Sqrt => FUn::Sqrt,
            _ => FUn::Rcp,
        };
        let [d, a] = operands::<2>(inst)?;
        Ok(Op::FUn {
            op,
            ty: FTy::F32,
            mods: FMods {
                ftz,
                ..FMods::default()
            },
            d: self.dst(d, 32)?,
            a: self.src(a, Imm::F32)?,
        })
    }
}

/// The value of an `.approx` function (`x` already flushed under `.ftz`), before the output's
/// `.ftz` and NaN canonicalization.
pub(crate) fn approx(op: FUn, x: f32) -> f32 {
    let v = f64::from(x);
    let exact = match op {
        FUn::Ex2 => v.exp2(),
        FUn::Lg2 => v.log2(),
        FUn::Sin => v.sin(),
        FUn::Cos => v.cos(),
        // ±0 gives ±Inf, a negative number NaN, +Inf +0: as 1/sqrt in IEEE.
        FUn::Rsqrt => 1.0 / v.sqrt(),
        FUn::Tanh => v.tanh(),
        _ => unreachable!("not an .approx function"),
    };
    exact as f32
}
