//! A small PTX AST, printed through `Display`. The lowering builds it; nothing else writes PTX text.
//!
//! Registers, labels and symbols are typed values, not strings: a label can only come from
//! [`Label`], a register only from the allocator in [`crate::regs`].

use std::fmt;

use crate::isa::{Modifier, Opcode};
use crate::parse::DataType;
use crate::regs::{Reg, RegClass};
use crate::Sm;

/// A whole PTX module with one entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Module {
    /// The target architecture (also fixes the PTX ISA version).
    pub target: Sm,
    /// The source files [`Line::Loc`] refers to, printed as `.file N "name"` with `N` the position
    /// here plus one. Names are printed as they are: [`ptx_file_name`] makes them fit PTX. Empty for
    /// kernels without source positions.
    pub files: Vec<String>,
    /// The kernel.
    pub entry: Entry,
}

/// A `.visible .entry`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Entry name.
    pub name: String,
    /// Parameters in launch order.
    pub params: Vec<ParamDecl>,
    /// The block size every launch must use (`.reqntid`): an IR kernel's block shape is fixed, and saying
    /// so lets ptxas allocate registers for exactly that many threads and the driver refuse any other
    /// launch shape (`CUDA_ERROR_INVALID_VALUE`) instead of running the kernel wrong.
    pub reqntid: [u32; 3],
    /// Register counts per class, declared in [`RegClass::ALL`] order.
    pub reg_counts: [u32; RegClass::ALL.len()],
    /// Shared arrays.
    pub shared: Vec<SharedDecl>,
    /// The body.
    pub body: Vec<Line>,
}

/// A `.param` declaration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamDecl {
    /// The symbol.
    pub symbol: Symbol,
    /// PTX type (`u64` for buffers).
    pub ty: DataType,
}

/// A `.shared` byte array (`.extern` and unsized when it is the dynamic shared memory).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SharedDecl {
    /// Whether this is the `.extern` dynamic shared array (its size comes from the launch).
    pub dynamic: bool,
    /// The symbol.
    pub symbol: Symbol,
    /// Alignment in bytes.
    pub align: u32,
    /// Size in bytes.
    pub bytes: u64,
}

/// A module-level name (parameter or shared array), printed as is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symbol(pub String);

impl fmt::Display for Symbol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// What a label marks, part of its printed name so the PTX reads like the structured source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LabelKind {
    /// Start of an `else` block.
    Else,
    /// After an `if`.
    EndIf,
    /// Top of a loop (target of `continue`).
    Loop,
    /// After a loop (target of `break`).
    EndLoop,
}

/// A branch target: `$L__<kind>_<n>`, numbered per kernel in creation order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Label {
    /// What it marks.
    pub kind: LabelKind,
    /// Its number.
    pub id: u32,
}

impl fmt::Display for Label {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.kind {
            LabelKind::Else => "else",
            LabelKind::EndIf => "end_if",
            LabelKind::Loop => "loop",
            LabelKind::EndLoop => "end_loop",
        };
        write!(f, "$L__{kind}_{}", self.id)
    }
}

/// An instruction operand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Operand {
    /// A register.
    Reg(Reg),
    /// An integer immediate, printed in decimal.
    Imm(i64),
    /// A bit pattern immediate, printed in hex (`0x…`).
    Bits(u64),
    /// An `f32` immediate, printed as PTX's exact `0fXXXXXXXX` form.
    F32(u32),
    /// An `f64` immediate, printed as PTX's exact `0dXXXXXXXXXXXXXXXX` form.
    F64(u64),
    /// A symbol's address or a special register (`%tid.x`).
    Sym(String),
    /// A memory address `[reg+offset]` or `[symbol]`.
    Addr(Box<Operand>, i64),
    /// A vector of registers `{%r1, %r2}`.
    Vector(Vec<Reg>),
    /// A branch target.
    Label(Label),
}

impl fmt::Display for Operand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Operand::Reg(r) => write!(f, "{r}"),
            Operand::Imm(v) => write!(f, "{v}"),
            Operand::Bits(v) => write!(f, "0x{v:x}"),
            Operand::F32(bits) => write!(f, "0f{bits:08X}"),
            Operand::F64(bits) => write!(f, "0d{bits:016X}"),
            Operand::Sym(s) => f.write_str(s),
            Operand::Addr(base, 0) => write!(f, "[{base}]"),
            Operand::Addr(base, off) => write!(f, "[{base}+{off}]"),
            Operand::Vector(regs) => {
                let names: Vec<String> = regs.iter().map(Reg::to_string).collect();
                write!(f, "{{{}}}", names.join(", "))
            }
            Operand::Label(l) => write!(f, "{l}"),
        }
    }
}

/// A guard predicate `@%p` / `@!%p`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Guard {
    /// The predicate register.
    pub pred: Reg,
    /// Whether the guard is negated.
    pub negated: bool,
}

/// One instruction: optional guard, opcode with its modifiers (`add.u32`), operands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inst {
    /// Guard predicate.
    pub guard: Option<Guard>,
    /// The opcode.
    pub opcode: Opcode,
    /// Its modifiers, in order.
    pub modifiers: Vec<Modifier>,
    /// Operands, destination first.
    pub args: Vec<Operand>,
}

/// A line of an entry body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Line {
    /// A label.
    Label(Label),
    /// An instruction.
    Inst(Inst),
    /// A comment naming the IR statement the following lines lower.
    Comment(String),
    /// `.loc file line column`: the Rust source position of the following instructions (`file` is an
    /// index into [`Module::files`], from 1).
    Loc {
        /// The `.file` index.
        file: u32,
        /// Source line.
        line: u32,
        /// Source column.
        column: u32,
    },
}

/// `name` as ptxas reads a `.file` name: it takes the characters between the quotes as they are (no
/// escapes; a backslash separates directories) and refuses non-ASCII ones and `"`. Printable ASCII
/// but `"` is kept; every other character, and a backslash that would end the name (C-style readers
/// take `\"` for an escaped quote), becomes `%XX` for each byte of its UTF-8 form, so distinct names
/// stay distinct in practice and a plain path is unchanged.
pub fn ptx_file_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let last = name.chars().count().saturating_sub(1);
    for (i, c) in name.chars().enumerate() {
        let trailing_backslash = c == '\\' && i == last;
        if (' '..='~').contains(&c) && c != '"' && !trailing_backslash {
            out.push(c);
        } else {
            let mut utf8 = [0u8; 4];
            for b in c.encode_utf8(&mut utf8).bytes() {
                out.push_str(&format!("%{b:02X}"));
            }
        }
    }
    out
}

impl fmt::Display for Module {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (major, minor) = self.target.ptx_isa();
        writeln!(f, "//")?;
        writeln!(
            f,
            "// Generated by warpforge-ptx {}. Do not edit.",
            env!("CARGO_PKG_VERSION")
        )?;
        writeln!(f, "//")?;
        writeln!(f)?;
        writeln!(f, ".version {major}.{minor}")?;
        writeln!(f, ".target {}", self.target.name())?;
        writeln!(f, ".address_size 64")?;
        writeln!(f)?;
        for (i, name) in self.files.iter().enumerate() {
            writeln!(f, ".file {} \"{name}\"", i + 1)?;
        }
        if !self.files.is_empty() {
            writeln!(f)?;
        }
        // Dynamic shared memory is declared at module scope; its size comes from the launch.
        for s in self.entry.shared.iter().filter(|s| s.dynamic) {
            writeln!(f, ".extern .shared .align {} .b8 {}[];", s.align, s.symbol)?;
            writeln!(f)?;
        }
        write!(f, "{}", self.entry)
    }
}

impl fmt::Display for Entry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, ".visible .entry {}(", self.name)?;
        for (i, p) in self.params.iter().enumerate() {
            let sep = if i + 1 == self.params.len() { "" } else { "," };
            write!(f, "\n    .param .{} {}{sep}", p.ty.name(), p.symbol)?;
        }
        writeln!(f, "\n)")?;
        let [x, y, z] = self.reqntid;
        writeln!(f, ".reqntid {x}, {y}, {z}")?;
        writeln!(f, "{{")?;
        for (class, &count) in RegClass::ALL.iter().zip(&self.reg_counts) {
            if count > 0 {
                writeln!(
                    f,
                    "    .reg .{} {}<{count}>;",
                    class.ptx_type(),
                    class.prefix()
                )?;
            }
        }
        for s in self.shared.iter().filter(|s| !s.dynamic) {
            writeln!(
                f,
                "    .shared .align {} .b8 {}[{}];",
                s.align, s.symbol, s.bytes
            )?;
        }
        writeln!(f)?;
        for line in &self.body {
            match line {
                Line::Label(l) => writeln!(f, "{l}:")?,
                Line::Comment(c) => writeln!(f, "    // {c}")?,
                Line::Loc { file, line, column } => writeln!(f, "    .loc {file} {line} {column}")?,
                Line::Inst(inst) => writeln!(f, "    {inst}")?,
            }
        }
        writeln!(f, "}}")
    }
}

impl fmt::Display for Inst {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(g) = self.guard {
            write!(f, "@{}{} ", if g.negated { "!" } else { "" }, g.pred)?;
        }
        f.write_str(self.opcode.name())?;
        for m in &self.modifiers {
            write!(f, ".{m}")?;
        }
        for (i, arg) in self.args.iter().enumerate() {
            f.write_str(if i == 0 { " " } else { ", " })?;
            write!(f, "{arg}")?;
        }
        f.write_str(";")
    }
}
