//! Instruction operands: their types and their grammar.
//!
//! `%` names are registers by their spelling. A plain name (`foo`, `$L__BB0_3`, `r0` in inline asm)
//! is read as a [`OperandKind::Symbol`] here; once a whole body is read, names declared by a `.reg` in
//! scope become registers and names of the body's labels become [`OperandKind::Label`]s.

use std::fmt;

use super::cursor::{describe, Cursor};
use super::error::{ParseError, Pos};
use super::lexer::Tok;
use super::literals::{FloatImm, IntImm, Radix};

/// An operand and where it starts.
#[derive(Clone, Debug, PartialEq)]
pub struct Operand {
    /// Where the operand starts.
    pub pos: Pos,
    /// What it is.
    pub kind: OperandKind,
}

/// What an operand is.
#[derive(Clone, Debug, PartialEq)]
pub enum OperandKind {
    /// A register, special registers included (`%r1`, `%tid.x`, `r0` declared by `.reg`).
    Register(Register),
    /// An integer immediate.
    Int(IntImm),
    /// A float immediate.
    Float(FloatImm),
    /// A memory address `[…]`.
    Address(Address),
    /// A name that is neither a register in scope nor a label of the body: a variable, a parameter,
    /// a function.
    Symbol(String),
    /// A label of the enclosing body (a branch target).
    Label(String),
    /// A brace list `{%r1, %r2}` (vector loads and stores, `mma` fragments).
    Vector(Vec<Operand>),
    /// The sink `_`: a result that is discarded.
    Sink,
    /// A result and its predicate `%r1|%p1` (`shfl.sync`, `match.all.sync`, `lop3`); either may be
    /// the sink, a register named `_` (`_|%p1`).
    PredPair(Register, Register),
    /// A negated predicate `!%p`.
    Not(Register),
    /// A call's parenthesised list `(param0, param1)` (return values or arguments).
    CallArgs(Vec<Operand>),
}

/// A register name (`%` included when spelled so) and an optional vector component.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Register {
    /// The name: `%r1`, `%tid`, `r0`.
    pub name: String,
    /// `.x` in `%tid.x`.
    pub component: Option<Component>,
}

impl Register {
    /// A register without component.
    pub fn named(name: impl Into<String>) -> Register {
        Register {
            name: name.into(),
            component: None,
        }
    }
}

/// A vector component selector.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Component {
    /// `.x`
    X,
    /// `.y`
    Y,
    /// `.z`
    Z,
    /// `.w`
    W,
    /// `.r`
    R,
    /// `.g`
    G,
    /// `.b`
    B,
    /// `.a`
    A,
}

impl Component {
    /// The selector for a modifier name (`x` → [`Component::X`]).
    pub fn from_name(name: &str) -> Option<Component> {
        Some(match name {
            "x" => Component::X,
            "y" => Component::Y,
            "z" => Component::Z,
            "w" => Component::W,
            "r" => Component::R,
            "g" => Component::G,
            "b" => Component::B,
            "a" => Component::A,
            _ => return None,
        })
    }

    /// Its name without the dot.
    pub fn name(self) -> &'static str {
        match self {
            Component::X => "x",
            Component::Y => "y",
            Component::Z => "z",
            Component::W => "w",
            Component::R => "r",
            Component::G => "g",
            Component::B => "b",
            Component::A => "a",
        }
    }
}

/// A memory address `[base+offset]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Address {
    /// What the offset is added to.
    pub base: AddressBase,
    /// The byte offset (0 when none is written).
    pub offset: i64,
}

/// The base of an address.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AddressBase {
    /// `[%rd1+8]`
    Register(Register),
    /// `[param0+8]`, `[shared_array]`
    Symbol(String),
    /// `[1024]`: the offset is the address.
    Absolute,
}

/// Reads one operand.
pub(crate) fn operand(c: &mut Cursor) -> Result<Operand, ParseError> {
    let pos = c.peek().pos;
    let kind = match c.peek().tok {
        Tok::Punct('[') => OperandKind::Address(address(c)?),
        Tok::Punct('{') => {
            c.bump();
            OperandKind::Vector(list(c, '}', "to close the vector operand")?)
        }
        Tok::Punct('(') => {
            c.bump();
            OperandKind::CallArgs(list(c, ')', "to close the argument list")?)
        }
        Tok::Punct('!') => {
            c.bump();
            OperandKind::Not(register(c, "a predicate register after `!`")?)
        }
        _ => return simple_operand(c),
    };
    Ok(Operand { pos, kind })
}

/// Reads an operand that may stand in a brace or call list: a register (or result|predicate pair),
/// a name, `_`, or a number.
fn simple_operand(c: &mut Cursor) -> Result<Operand, ParseError> {
    let pos = c.peek().pos;
    let kind = match c.peek().tok.clone() {
        Tok::Reg(_) => {
            let r = register(c, "a register")?;
            pred_pair(c, r, OperandKind::Register)?
        }
        Tok::Ident(name) if name == "_" => {
            c.bump();
            pred_pair(c, Register::named(name), |_| OperandKind::Sink)?
        }
        Tok::Ident(name) => {
            c.bump();
            pred_pair(c, Register::named(name.clone()), |_| {
                OperandKind::Symbol(name)
            })?
        }
        Tok::Int(v) => {
            c.bump();
            OperandKind::Int(v)
        }
        Tok::Float(v) => {
            c.bump();
            OperandKind::Float(v)
        }
        Tok::Punct('-') => {
            c.bump();
            match c.peek().tok.clone() {
                Tok::Int(v) => {
                    c.bump();
                    OperandKind::Int(IntImm {
                        negative: true,
                        ..v
                    })
                }
                Tok::Float(FloatImm::Decimal(text)) => {
                    c.bump();
                    OperandKind::Float(FloatImm::Decimal(format!("-{text}")))
                }
                _ => return Err(c.error("a number after `-`")),
            }
        }
        _ => return Err(c.error("an operand")),
    };
    Ok(Operand { pos, kind })
}

/// After a register-like operand: `|%p` makes a result-predicate pair. Either half may be the sink
/// `_` (`lop3.or.b32 _|%p, …`), kept as a register named `_` that readers treat as discarded.
fn pred_pair(
    c: &mut Cursor,
    first: Register,
    alone: impl FnOnce(Register) -> OperandKind,
) -> Result<OperandKind, ParseError> {
    if c.eat_punct('|') {
        let second = match &c.peek().tok {
            Tok::Ident(name) if name == "_" => {
                c.bump();
                Register::named("_".to_owned())
            }
            _ => register(c, "a predicate register or `_` after `|`")?,
        };
        if first.name == "_" && second.name == "_" {
            return Err(c.error("a register beside `_` (`_|_` would discard both results)"));
        }
        Ok(OperandKind::PredPair(first, second))
    } else {
        Ok(alone(first))
    }
}

/// Reads a register: a `%` name or a plain name, and a touching component (`%tid.x`).
pub(crate) fn register(c: &mut Cursor, what: &str) -> Result<Register, ParseError> {
    let name = match &c.peek().tok {
        Tok::Reg(name) | Tok::Ident(name) if name != "_" => name.clone(),
        _ => return Err(c.error(what)),
    };
    c.bump();
    let mut component = None;
    if c.touches_previous() {
        if let Some(sel) = c.peek_dot() {
            let pos = c.peek().pos;
            component = Some(Component::from_name(sel).ok_or_else(|| {
                ParseError::new(
                    pos,
                    format!("expected a vector component (`.x`, `.y`, `.z`, `.w`) after `{name}`, found `.{sel}`"),
                )
            })?);
            c.bump();
        }
    }
    Ok(Register { name, component })
}

/// Reads `elem, elem, …` and the closing `close` (the opening one is consumed).
fn list(c: &mut Cursor, close: char, context: &str) -> Result<Vec<Operand>, ParseError> {
    let mut items = Vec::new();
    if c.eat_punct(close) {
        return Ok(items);
    }
    loop {
        items.push(simple_operand(c)?);
        if c.eat_punct(close) {
            return Ok(items);
        }
        if !c.eat_punct(',') {
            return Err(c.error(&format!("`,` or `{close}` {context}")));
        }
    }
}

/// Reads `[base]`, `[base+off]`, `[base+-off]`, `[base-off]` or `[off]`.
fn address(c: &mut Cursor) -> Result<Address, ParseError> {
    c.expect_punct('[', "")?;
    let base = match &c.peek().tok {
        Tok::Reg(_) => AddressBase::Register(register(c, "a register")?),
        Tok::Ident(name) => {
            let name = name.clone();
            c.bump();
            AddressBase::Symbol(name)
        }
        Tok::Int(_) | Tok::Punct('-') => AddressBase::Absolute,
        other => {
            let found = describe(other);
            return Err(ParseError::new(
                c.peek().pos,
                format!("expected a register, a name or an offset in the address, found {found}"),
            ));
        }
    };
    let offset = if base == AddressBase::Absolute || c.eat_punct('+') {
        signed_offset(c, false)?
    } else if c.eat_punct('-') {
        signed_offset(c, true)?
    } else {
        0
    };
    c.expect_punct(']', "to close the address")?;
    Ok(Address { base, offset })
}

fn signed_offset(c: &mut Cursor, negated: bool) -> Result<i64, ParseError> {
    let negated = negated ^ c.eat_punct('-');
    match c.peek().tok {
        Tok::Int(v) => {
            c.bump();
            let value = v.value();
            Ok(if negated { value.wrapping_neg() } else { value })
        }
        _ => Err(c.error("an integer offset in the address")),
    }
}

impl fmt::Display for IntImm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.negative {
            f.write_str("-")?;
        }
        match self.radix {
            Radix::Decimal => write!(f, "{}", self.magnitude)?,
            Radix::Hex => write!(f, "0x{:x}", self.magnitude)?,
            Radix::Octal => write!(f, "0{:o}", self.magnitude)?,
            Radix::Binary => write!(f, "0b{:b}", self.magnitude)?,
        }
        if self.unsigned {
            f.write_str("U")?;
        }
        Ok(())
    }
}

impl fmt::Display for FloatImm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FloatImm::F32Bits(bits) => write!(f, "0f{bits:08X}"),
            FloatImm::F64Bits(bits) => write!(f, "0d{bits:016X}"),
            FloatImm::Decimal(text) => f.write_str(text),
        }
    }
}
