//! The value-defining half of the parser: `%N: ty = …` statements, expressions and literals.

use super::keywords as kw;
use super::lexer::Tok;
use super::parse::{Name, PResult, Parser};
use super::ParseError;
use crate::arena::Handle;
use crate::expr::{BinaryOp, CastKind, CmpOp, Expr, Special, UnaryOp};
use crate::kernel::Value;
use crate::stmt::{AtomicOp, ShuffleMode, Stmt, VoteMode, WarpOp};
use crate::types::{Literal, ScalarType};

impl Parser {
    pub(super) fn defining_stmt(&mut self) -> PResult<Stmt> {
        let mut defs = vec![self.definition()?];
        while self.eat_punct(',') {
            defs.push(self.definition()?);
        }
        self.expect_punct('=')?;
        let op = self.ident("an operation")?;
        if op == kw::LOAD {
            let byte = self.byte_suffix();
            let width = if byte { None } else { self.vector_suffix()? };
            let array = self.array_ref()?;
            self.expect_punct('[')?;
            let index = self.value()?;
            self.expect_punct(']')?;
            let values: Vec<Value> = defs.iter().map(|d| d.0).collect();
            return match width {
                None if byte && values.len() == 1 => Ok(Stmt::LoadByte {
                    value: values[0],
                    array,
                    index,
                }),
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
            kw::ATOMIC => {
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
            kw::SHUFFLE => {
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
            kw::BALLOT => {
                let pred = self.value()?;
                Stmt::Warp(WarpOp::Ballot {
                    value,
                    pred,
                    mask: self.mask()?,
                })
            }
            kw::VOTE => {
                let mode = self.keyword_of("vote mode", VoteMode::from_name)?;
                let pred = self.value()?;
                Stmt::Warp(WarpOp::Vote {
                    value,
                    mode,
                    pred,
                    mask: self.mask()?,
                })
            }
            kw::MATCH_ANY => {
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
        // Values are numbered densely from %0, one definition each: a number past the text's token
        // count can never be dense (and would size `defs` by the number, not by the text).
        if slot >= self.toks.len() {
            return Err(ParseError {
                line: t.line,
                col: t.col,
                message: format!(
                    "value %{n} is numbered past the kernel's values: the text has fewer than {n} \
                     definitions, and values are numbered densely from %0"
                ),
            });
        }
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
            kw::CONST => Expr::Literal(self.literal(ty)?),
            kw::PARAM => {
                let name = self.ident("a parameter name")?;
                match self.names.get(&name) {
                    Some(Name::Param(p)) => Expr::Param(*p),
                    _ => {
                        self.pos -= 1;
                        return self.err(format!("`{name}` is not a parameter"));
                    }
                }
            }
            kw::LOCAL => {
                let name = self.ident("a local name")?;
                match self.names.get(&name) {
                    Some(Name::Local(l)) => Expr::Local(*l),
                    _ => {
                        self.pos -= 1;
                        return self.err(format!("`{name}` is not a declared local"));
                    }
                }
            }
            kw::SPECIAL => Expr::Special(self.keyword_of("special value", Special::from_name)?),
            kw::CMP => {
                let cmp = self.keyword_of("comparison", CmpOp::from_name)?;
                let a = self.value()?;
                Expr::Compare(cmp, a, self.comma_value()?)
            }
            kw::SELECT => {
                let cond = self.value()?;
                let if_true = self.comma_value()?;
                let if_false = self.comma_value()?;
                Expr::Select {
                    cond,
                    if_true,
                    if_false,
                }
            }
            kw::MUL_WIDE => {
                let a = self.value()?;
                Expr::MulWide(a, self.comma_value()?)
            }
            kw::MUL_ADD => {
                let a = self.value()?;
                let b = self.comma_value()?;
                Expr::MulAdd(a, b, self.comma_value()?)
            }
            kw::FUNNEL_SHR => {
                let a = self.value()?;
                let b = self.comma_value()?;
                Expr::FunnelShr(a, b, self.comma_value()?)
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
            (ScalarType::Bool, Tok::Ident(word)) if word == kw::TRUE || word == kw::FALSE => {
                self.next();
                Ok(Literal::Bool(word == kw::TRUE))
            }
            (t, Tok::Ident(word)) if t.is_float() && word == kw::BITS => {
                self.next();
                self.expect_punct('(')?;
                let what = format!("{t} bits");
                let bits: u64 = self.number(&what)?;
                self.expect_punct(')')?;
                if t.bits() < 64 && bits >> t.bits() != 0 {
                    return self.err(format!(
                        "{bits:#x} does not fit in the {} bits of {t}",
                        t.bits()
                    ));
                }
                Ok(Literal::from_bits(t, bits))
            }
            (t, Tok::Number(text)) if t.is_float() => {
                // Finite values only (infinities and NaNs are written as their bits); halves round
                // from f64 to nearest even, as `Literal::f16` does.
                let lit = match t {
                    ScalarType::F32 => text
                        .parse::<f32>()
                        .ok()
                        .filter(|v| v.is_finite())
                        .map(Literal::f32),
                    _ => text
                        .parse::<f64>()
                        .ok()
                        .filter(|v| v.is_finite())
                        .map(|v| match t {
                            ScalarType::F16 => Literal::f16(v),
                            ScalarType::BF16 => Literal::bf16(v),
                            _ => Literal::f64(v),
                        }),
                };
                match lit {
                    Some(lit) if float_finite(lit) => {
                        self.next();
                        Ok(lit)
                    }
                    _ => bad(self, &text),
                }
            }
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
}

/// Whether a float literal is finite (a decimal past a half's range rounds to infinity).
fn float_finite(lit: Literal) -> bool {
    match lit {
        Literal::F16Bits(b) => b & 0x7c00 != 0x7c00,
        Literal::BF16Bits(b) => b & 0x7f80 != 0x7f80,
        _ => true,
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
pub(super) fn parse_int(text: &str) -> Option<i128> {
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
