//! PTX as data: the instruction names ([`Opcode`]), their modifiers ([`Modifier`]), the special
//! registers ([`SpecialReg`]) and the predefined constant [`WARP_SZ`]. The parser
//! ([`crate::parse`]) reads text into these, its printer writes them back, the emitter builds
//! instructions from them ([`crate::ast`]), the simulator decodes them and the linter analyses
//! them; nowhere else is an opcode or modifier spelled as a string.

mod modifier;
mod opcode;
mod special;

pub use modifier::Modifier;
pub use opcode::Opcode;
pub use special::{predefined_constant, Dim, SpecialReg, Variation, WARP_SZ};
