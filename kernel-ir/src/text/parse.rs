//! Parser for the text form: the inverse of the printer in [`super::print`].
//!
//! Parsing checks syntax, names and value numbering (every `%N` used is defined exactly once, and the
//! numbers are dense from 0). Typing and scoping are left to the verifier, so a parsed kernel can still be
//! rejected by [`crate::verify`].

use std::collections::HashMap;

use super::lexer::{tokenize, Spanned, Tok};
use super::ParseError;
use crate::arena::Handle;
use crate::expr::{BinaryOp, CastKind, CmpOp, Expr, Special, UnaryOp};
use crate::kernel::{Kernel, LocalVar, Param, ParamKind, SharedArray, Value, ValueInfo};
use crate::stmt::{AtomicOp, Block, Mask, MemRef, ShuffleMode, Stmt, VoteMode, WarpOp};
use crate::types::{Access, Literal, ScalarType};

/// Parses one kernel in the text form.
pub fn parse_kernel(src: &str) -> Result<Kernel, ParseError> {
    let mut parser = Parser {
        toks: tokenize(src)?,
        pos: 0,
        kernel: Kernel::default(),
        names: HashMap::new(),
        defs: Vec::new(),
        uses: Vec::new(),
    };
    parser.kernel()?;
    parser.finish_values()?;
    Ok(parser.kernel)
}

#[derive(Clone, Copy)]
enum Name {
    Param(Handle<Param>),
    Shared(Handle<SharedArray>),
    Local(Handle<LocalVar>),
}

struct Parser {
    toks: Vec<Spanned>,
    pos: usize,
    kernel: Kernel,
    names: HashMap<String, Name>,
    /// Declared type of each value number, with where it was defined.
    defs: Vec<Option<(ScalarType, usize, usize)>>,
    /// Every value use, with its position, checked once all definitions are known.
    uses: Vec<(u32, usize, usize)>,
}

type PResult<T> = Result<T, ParseError>;

impl Parser {
    fn peek(&self) -> &Tok {
        &self.toks[self.pos].tok
    }

    fn err<T>(&self, message: impl Into<String>) -> PResult<T> {
        let t = &self.toks[self.pos];
        Err(ParseError {
            line: t.line,
            col: t.col,
            message: message.into(),
        })
    }

    fn next(&mut self) -> Tok {
        let tok = self.toks[self.pos].tok.clone();
        if tok != Tok::Eof {
            self.pos += 1;
        }
        tok
    }

    fn expect_punct(&mut self, c: char) -> PResult<()> {
        if *self.peek() == Tok::Punct(c) {
            self.next();
            Ok(())
        } else {
            self.err(format!("expected `{c}`, found {}", self.peek().describe()))
        }
    }

    fn eat_punct(&mut self, c: char) -> bool {
        let found = *self.peek() == Tok::Punct(c);
        if found {
            self.next();
        }
        found
    }

    fn ident(&mut self, what: &str) -> PResult<String> {
        match self.peek().clone() {
            Tok::Ident(s) => {
                self.next();
                Ok(s)
            }
            other => self.err(format!("expected {what}, found {}", other.describe())),
        }
    }

    fn keyword(&mut self, kw: &str) -> PResult<()> {
        match self.peek() {
            Tok::Ident(s) if s == kw => {
                self.next();
                Ok(())
            }
            other => self.err(format!("expected `{kw}`, found {}", other.describe())),
        }
    }

    fn keyword_of<T>(&mut self, what: &str, lookup: impl Fn(&str) -> Option<T>) -> PResult<T> {
        let at = self.pos;
        let word = self.ident(what)?;
        lookup(&word).ok_or_else(|| {
            let t = &self.toks[at];
            ParseError {
                line: t.line,
                col: t.col,
                message: format!("unknown {what} `{word}`"),
            }
        })
    }

    fn number<T: TryFrom<i128>>(&mut self, what: &str) -> PResult<T> {
        match self.peek().clone() {
            Tok::Number(text) => match parse_int(&text).and_then(|n| T::try_from(n).ok()) {
                Some(v) => {
                    self.next();
                    Ok(v)
                }
                None => self.err(format!("{what} `{text}` is not a valid number here")),
            },
            other => self.err(format!("expected {what}, found {}", other.describe())),
        }
    }

    fn scalar_type(&mut self) -> PResult<ScalarType> {
        self.keyword_of("type", ScalarType::from_name)
    }

    fn declare(&mut self, name: String, entry: Name) -> PResult<()> {
        if self.names.contains_key(&name) {
            return self.err(format!("`{name}` is declared twice"));
        }
        self.names.insert(name, entry);
        Ok(())
    }

    fn kernel(&mut self) -> PResult<()> {
        self.keyword("kernel")?;
        self.kernel.name = self.ident("a kernel name")?;
        self.expect_punct('{')?;
        loop {
            let Tok::Ident(word) = self.peek().clone() else {
                break;
            };
            match word.as_str() {
                "block_size" => {
                    self.next();
                    self.kernel.block_size = self.number("a block size")?;
                }
                "param" => self.param()?,
                "shared" => {
                    self.next();
                    let name = self.ident("a shared array name")?;
                    self.expect_punct(':')?;
                    let elem = self.scalar_type()?;
                    self.expect_punct('[')?;
                    let len = self.number("an array length")?;
                    self.expect_punct(']')?;
                    self.keyword("align")?;
                    let align = self.number("an alignment")?;
                    let h = self.kernel.shared.append(SharedArray {
                        name: name.clone(),
                        elem,
                        len,
                        align,
                    });
                    self.declare(name, Name::Shared(h))?;
                }
                "local" => {
                    self.next();
                    let name = self.ident("a local name")?;
                    self.expect_punct(':')?;
                    let ty = self.scalar_type()?;
                    let h = self.kernel.locals.append(LocalVar {
                        name: name.clone(),
                        ty,
                    });
                    self.declare(name, Name::Local(h))?;
                }
                _ => break,
            }
        }
        self.kernel.body = self.block()?;
        self.expect_punct('}')?;
        if *self.peek() != Tok::Eof {
            return self.err(format!(
                "expected end of input after the kernel, found {}",
                self.peek().describe()
            ));
        }
        Ok(())
    }

    fn param(&mut self) -> PResult<()> {
        self.next();
        let name = self.ident("a parameter name")?;
        self.expect_punct(':')?;
        let kind = if *self.peek() == Tok::Ident("global".into()) {
            self.next();
            let elem = self.scalar_type()?;
            let access = self.keyword_of("access mode", |w| match w {
                "read" => Some(Access::ReadOnly),
                "read_write" => Some(Access::ReadWrite),
                _ => None,
            })?;
            ParamKind::Buffer { elem, access }
        } else {
            ParamKind::Scalar(self.scalar_type()?)
        };
        let h = self.kernel.params.append(Param {
            name: name.clone(),
            kind,
        });
        self.declare(name, Name::Param(h))
    }

    /// Statements up to (not including) the closing `}`.
    fn block(&mut self) -> PResult<Block> {
        let mut block = Vec::new();
        while !matches!(self.peek(), Tok::Punct('}') | Tok::Eof) {
            block.push(self.stmt()?);
        }
        Ok(block)
    }

    fn braced_block(&mut self) -> PResult<Block> {
        self.expect_punct('{')?;
        let block = self.block()?;
        self.expect_punct('}')?;
        Ok(block)
    }

    fn value(&mut self) -> PResult<Value> {
        let t = &self.toks[self.pos];
        match t.tok {
            Tok::Value(n) => {
                self.uses.push((n, t.line, t.col));
                self.next();
                Ok(Handle::from_index(n))
            }
            ref other => self.err(format!("expected a value `%N`, found {}", other.describe())),
        }
    }

    fn comma_value(&mut self) -> PResult<Value> {
        self.expect_punct(',')?;
        self.value()
    }

    fn stmt(&mut self) -> PResult<Stmt> {
        if let Tok::Value(_) = self.peek() {
            return self.defining_stmt();
        }
        let word = self.ident("a statement")?;
        Ok(match word.as_str() {
            "if" => {
                let cond = self.value()?;
                let then_block = self.braced_block()?;
                let else_block = if *self.peek() == Tok::Ident("else".into()) {
                    self.next();
                    self.braced_block()?
                } else {
                    Vec::new()
                };
                Stmt::If {
                    cond,
                    then_block,
                    else_block,
                }
            }
            "loop" => Stmt::Loop {
                body: self.braced_block()?,
            },
            "break" => Stmt::Break,
            "continue" => Stmt::Continue,
            "return" => Stmt::Return,
            "barrier" => Stmt::Barrier,
            "set" => {
                let name = self.ident("a local name")?;
                let Some(Name::Local(local)) = self.names.get(&name).copied() else {
                    self.pos -= 1;
                    return self.err(format!("`{name}` is not a declared local"));
                };
                self.expect_punct('=')?;
                Stmt::Assign {
                    local,
                    value: self.value()?,
                }
            }
            "store" => {
                let width = self.vector_suffix()?;
                let array = self.array_ref()?;
                self.expect_punct('[')?;
                let index = self.value()?;
                self.expect_punct(']')?;
                let mut values = vec![self.comma_value()?];
                while self.eat_punct(',') {
                    values.push(self.value()?);
                }
                match width {
                    None if values.len() == 1 => Stmt::Store {
                        array,
                        index,
                        value: values[0],
                    },
                    Some(w) if values.len() == w => Stmt::StoreWide {
                        array,
                        index,
                        values,
                    },
                    _ => {
                        return self
                            .err("the number of stored values does not match the store width")
                    }
                }
            }
            "warp_sync" => Stmt::Warp(WarpOp::Sync { mask: self.mask()? }),
            other => {
                self.pos -= 1;
                return self.err(format!("unknown statement `{other}`"));
            }
        })
    }

    /// `.v2` / `.v4` after `load` or `store`.
    fn vector_suffix(&mut self) -> PResult<Option<usize>> {
        if !self.eat_punct('.') {
            return Ok(None);
        }
        match self.ident("`v2` or `v4`")?.as_str() {
            "v2" => Ok(Some(2)),
            "v4" => Ok(Some(4)),
            other => {
                self.pos -= 1;
                self.err(format!("expected `v2` or `v4`, found `{other}`"))
            }
        }
    }

    fn array_ref(&mut self) -> PResult<MemRef> {
        let space = self.ident("`global` or `shared`")?;
        let name = self.ident("an array name")?;
        match (space.as_str(), self.names.get(&name).copied()) {
            ("global", Some(Name::Param(p))) => Ok(MemRef::Global(p)),
            ("shared", Some(Name::Shared(s))) => Ok(MemRef::Shared(s)),
            ("global" | "shared", _) => {
                self.pos -= 1;
                self.err(format!("`{name}` is not a {space} array"))
            }
            _ => {
                self.pos -= 2;
                self.err(format!("expected `global` or `shared`, found `{space}`"))
            }
        }
    }

    fn mask(&mut self) -> PResult<Mask> {
        self.keyword("mask")?;
        if let Tok::Value(_) = self.peek() {
            Ok(Mask::Dynamic(self.value()?))
        } else {
            Ok(Mask::Const(self.number("a lane mask")?))
        }
    }

    fn defining_stmt(&mut self) -> PResult<Stmt> {
        let mut defs = vec![self.definition()?];
        while self.eat_punct(',') {
            defs.push(self.definition()?);
        }
        self.expect_punct('=')?;
        let op = self.ident("an operation")?;
        if op == "load" {
            let width = self.vector_suffix()?;
            let array = self.array_ref()?;
            self.expect_punct('[')?;
            let index = self.value()?;
            self.expect_punct(']')?;
            let values: Vec<Value> = defs.iter().map(|d| d.0).collect();
            return match width {
                None if values.len() == 1 => Ok(Stmt::Load {
                    value: values[0],
                    array,
                    index,
                }),
                Some(w) if values.len() == w => Ok(Stmt::LoadWide {
                    values,
                    array,
                    index,
                }),
                _ => self.err("the number of loaded values does not match the load width"),
            };
        }
        if defs.len() != 1 {
            return self.err(format!("`{op}` defines exactly one value"));
        }
        let (value, ty) = defs[0];
        let stmt = match op.as_str() {
            "atomic" => {
                let op = self.keyword_of("atomic operation", AtomicOp::from_name)?;
                let array = self.array_ref()?;
                self.expect_punct('[')?;
                let index = self.value()?;
                self.expect_punct(']')?;
                let first = self.comma_value()?;
                let (operand, compare) = if op == AtomicOp::CompareExchange {
                    (self.comma_value()?, Some(first))
                } else {
                    (first, None)
                };
                Stmt::Atomic {
                    value,
                    op,
                    array,
                    index,
                    operand,
                    compare,
                }
            }
            "shuffle" => {
                let mode = self.keyword_of("shuffle mode", ShuffleMode::from_name)?;
                let src = self.value()?;
                let lane = self.comma_value()?;
                let mask = self.mask()?;
                Stmt::Warp(WarpOp::Shuffle {
                    value,
                    mode,
                    src,
                    lane,
                    mask,
                })
            }
            "ballot" => {
                let pred = self.value()?;
                Stmt::Warp(WarpOp::Ballot {
                    value,
                    pred,
                    mask: self.mask()?,
                })
            }
            "vote" => {
                let mode = self.keyword_of("vote mode", VoteMode::from_name)?;
                let pred = self.value()?;
                Stmt::Warp(WarpOp::Vote {
                    value,
                    mode,
                    pred,
                    mask: self.mask()?,
                })
            }
            "match_any" => {
                let src = self.value()?;
                Stmt::Warp(WarpOp::MatchAny {
                    value,
                    src,
                    mask: self.mask()?,
                })
            }
            _ => Stmt::Let {
                value,
                expr: self.expr(&op, ty)?,
            },
        };
        Ok(stmt)
    }

    /// `%N: ty`, recorded as the definition of value N.
    fn definition(&mut self) -> PResult<(Value, ScalarType)> {
        let t = self.toks[self.pos].clone();
        let Tok::Value(n) = t.tok else {
            return self.err(format!("expected a value `%N`, found {}", t.tok.describe()));
        };
        self.next();
        self.expect_punct(':')?;
        let ty = self.scalar_type()?;
        let slot = n as usize;
        if slot >= self.defs.len() {
            self.defs.resize(slot + 1, None);
        }
        if self.defs[slot].is_some() {
            return Err(ParseError {
                line: t.line,
                col: t.col,
                message: format!("value %{n} is defined twice"),
            });
        }
        self.defs[slot] = Some((ty, t.line, t.col));
        Ok((Handle::from_index(n), ty))
    }

    fn expr(&mut self, op: &str, ty: ScalarType) -> PResult<Expr> {
        Ok(match op {
            "const" => Expr::Literal(self.literal(ty)?),
            "param" => {
                let name = self.ident("a parameter name")?;
                match self.names.get(&name) {
                    Some(Name::Param(p)) => Expr::Param(*p),
                    _ => {
                        self.pos -= 1;
                        return self.err(format!("`{name}` is not a parameter"));
                    }
                }
            }
            "local" => {
                let name = self.ident("a local name")?;
                match self.names.get(&name) {
                    Some(Name::Local(l)) => Expr::Local(*l),
                    _ => {
                        self.pos -= 1;
                        return self.err(format!("`{name}` is not a declared local"));
                    }
                }
            }
            "special" => Expr::Special(self.keyword_of("special value", Special::from_name)?),
            "cmp" => {
                let cmp = self.keyword_of("comparison", CmpOp::from_name)?;
                let a = self.value()?;
                Expr::Compare(cmp, a, self.comma_value()?)
            }
            "select" => {
                let cond = self.value()?;
                let if_true = self.comma_value()?;
                let if_false = self.comma_value()?;
                Expr::Select {
                    cond,
                    if_true,
                    if_false,
                }
            }
            "mul_wide" => {
                let a = self.value()?;
                Expr::MulWide(a, self.comma_value()?)
            }
            _ => {
                if let Some(kind) = CastKind::from_name(op) {
                    Expr::Cast(kind, self.value()?, ty)
                } else if let Some(unary) = UnaryOp::from_name(op) {
                    Expr::Unary(unary, self.value()?)
                } else if let Some(binary) = BinaryOp::from_name(op) {
                    let a = self.value()?;
                    Expr::Binary(binary, a, self.comma_value()?)
                } else {
                    self.pos -= 1;
                    return self.err(format!("unknown operation `{op}`"));
                }
            }
        })
    }

    fn literal(&mut self, ty: ScalarType) -> PResult<Literal> {
        let bad = |p: &Self, text: &str| p.err(format!("`{text}` is not a valid {ty} constant"));
        match (ty, self.peek().clone()) {
            (ScalarType::Bool, Tok::Ident(word)) if word == "true" || word == "false" => {
                self.next();
                Ok(Literal::Bool(word == "true"))
            }
            (ScalarType::F32, Tok::Ident(word)) if word == "bits" => {
                self.next();
                self.expect_punct('(')?;
                let bits: u32 = self.number("f32 bits")?;
                self.expect_punct(')')?;
                Ok(Literal::F32Bits(bits))
            }
            (ScalarType::F32, Tok::Number(text)) => match text.parse::<f32>() {
                Ok(v) if v.is_finite() => {
                    self.next();
                    Ok(Literal::f32(v))
                }
                _ => bad(self, &text),
            },
            (t, Tok::Number(text)) if t.is_integer() => {
                let fits = parse_int(&text).and_then(|n| {
                    let (lo, hi) = int_range(t);
                    (lo..=hi).contains(&n).then_some(n)
                });
                match fits {
                    Some(n) => {
                        self.next();
                        Ok(Literal::from_bits(t, n as u64))
                    }
                    None => bad(self, &text),
                }
            }
            (_, other) => self.err(format!(
                "expected a {ty} constant, found {}",
                other.describe()
            )),
        }
    }

    /// Checks the value numbering and fills the value arena.
    fn finish_values(&mut self) -> PResult<()> {
        for &(n, line, col) in &self.uses {
            if self.defs.get(n as usize).copied().flatten().is_none() {
                return Err(ParseError {
                    line,
                    col,
                    message: format!("value %{n} is used but never defined"),
                });
            }
        }
        if let Some(gap) = self.defs.iter().position(Option::is_none) {
            // Report at the first definition after the gap: that is the number that skipped ahead.
            let (next, (_, line, col)) = self.defs[gap..]
                .iter()
                .enumerate()
                .find_map(|(i, d)| d.map(|d| (gap + i, d)))
                .expect("the last slot of `defs` is always a definition");
            return Err(ParseError {
                line,
                col,
                message: format!(
                    "value %{gap} is never defined before %{next}: values are numbered densely from %0"
                ),
            });
        }
        for def in self.defs.iter().flatten() {
            self.kernel.values.append(ValueInfo { ty: def.0 });
        }
        Ok(())
    }
}

fn int_range(t: ScalarType) -> (i128, i128) {
    match t {
        ScalarType::I32 => (i32::MIN.into(), i32::MAX.into()),
        ScalarType::I64 => (i64::MIN.into(), i64::MAX.into()),
        other => (0, (1i128 << other.bits()) - 1),
    }
}

/// Parses a decimal or `0x` hexadecimal integer with an optional leading `-`.
fn parse_int(text: &str) -> Option<i128> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let magnitude = match digits.strip_prefix("0x") {
        Some(hex) => i128::from_str_radix(hex, 16).ok()?,
        None if digits.chars().all(|c| c.is_ascii_digit()) => digits.parse::<i128>().ok()?,
        None => return None,
    };
    Some(if negative { -magnitude } else { magnitude })
}
