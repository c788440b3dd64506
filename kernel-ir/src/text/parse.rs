//! Parser for the text form: the inverse of the printer in [`super::print`].
//!
//! Parsing checks syntax, names and value numbering (every `%N` used is defined exactly once, and the
//! numbers are dense from 0). Typing and scoping are left to the verifier, so a parsed kernel can still be
//! rejected by [`crate::verify`].

use std::collections::HashMap;

use super::keywords as kw;
use super::lexer::{tokenize, Spanned, Tok};
use super::parse_values::parse_int;
use super::{ParseError, MAX_NESTING};
use crate::arena::Handle;
use crate::kernel::{Kernel, LocalVar, Param, ParamKind, SharedArray, Value, ValueInfo};
use crate::loc::SourceLoc;
use crate::path::StmtPath;
use crate::stmt::{Block, Mask, MemRef, Stmt, WarpOp};
use crate::types::{Access, ScalarType};

/// Parses one kernel in the text form.
pub fn parse_kernel(src: &str) -> Result<Kernel, ParseError> {
    let mut parser = Parser {
        toks: tokenize(src)?,
        pos: 0,
        kernel: Kernel::default(),
        names: HashMap::new(),
        defs: Vec::new(),
        uses: Vec::new(),
        depth: 0,
        path: StmtPath::body(),
    };
    parser.kernel()?;
    parser.finish_values()?;
    Ok(parser.kernel)
}

#[derive(Clone, Copy)]
pub(super) enum Name {
    Param(Handle<Param>),
    Shared(Handle<SharedArray>),
    Local(Handle<LocalVar>),
}

pub(super) struct Parser {
    pub(super) toks: Vec<Spanned>,
    pub(super) pos: usize,
    pub(super) kernel: Kernel,
    pub(super) names: HashMap<String, Name>,
    /// Declared type of each value number, with where it was defined.
    pub(super) defs: Vec<Option<(ScalarType, usize, usize)>>,
    /// Every value use, with its position, checked once all definitions are known.
    pub(super) uses: Vec<(u32, usize, usize)>,
    /// How many `{ … }` blocks enclose the current statement.
    depth: usize,
    /// The statement path of the current block (`body`, `[3]`, `then`, …), for source positions.
    path: StmtPath,
}

pub(super) type PResult<T> = Result<T, ParseError>;

impl Parser {
    pub(super) fn peek(&self) -> &Tok {
        &self.toks[self.pos].tok
    }

    pub(super) fn err<T>(&self, message: impl Into<String>) -> PResult<T> {
        let t = &self.toks[self.pos];
        Err(ParseError {
            line: t.line,
            col: t.col,
            message: message.into(),
        })
    }

    pub(super) fn next(&mut self) -> Tok {
        let tok = self.toks[self.pos].tok.clone();
        if tok != Tok::Eof {
            self.pos += 1;
        }
        tok
    }

    pub(super) fn expect_punct(&mut self, c: char) -> PResult<()> {
        if *self.peek() == Tok::Punct(c) {
            self.next();
            Ok(())
        } else {
            self.err(format!("expected `{c}`, found {}", self.peek().describe()))
        }
    }

    pub(super) fn eat_punct(&mut self, c: char) -> bool {
        let found = *self.peek() == Tok::Punct(c);
        if found {
            self.next();
        }
        found
    }

    pub(super) fn ident(&mut self, what: &str) -> PResult<String> {
        match self.peek().clone() {
            Tok::Ident(s) => {
                self.next();
                Ok(s)
            }
            other => self.err(format!("expected {what}, found {}", other.describe())),
        }
    }

    pub(super) fn keyword(&mut self, kw: &str) -> PResult<()> {
        match self.peek() {
            Tok::Ident(s) if s == kw => {
                self.next();
                Ok(())
            }
            other => self.err(format!("expected `{kw}`, found {}", other.describe())),
        }
    }

    /// Whether the next token is the word `kw`.
    pub(super) fn at_word(&self, kw: &str) -> bool {
        matches!(self.peek(), Tok::Ident(s) if s == kw)
    }

    pub(super) fn keyword_of<T>(
        &mut self,
        what: &str,
        lookup: impl Fn(&str) -> Option<T>,
    ) -> PResult<T> {
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

    pub(super) fn number<T: TryFrom<i128>>(&mut self, what: &str) -> PResult<T> {
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

    pub(super) fn scalar_type(&mut self) -> PResult<ScalarType> {
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
        self.keyword(kw::KERNEL)?;
        self.kernel.name = self.ident("a kernel name")?;
        self.expect_punct('{')?;
        while let Tok::Ident(word) = self.peek().clone() {
            match word.as_str() {
                kw::BLOCK_SIZE => {
                    self.next();
                    self.kernel.block_size = self.number("a block size")?;
                }
                kw::BLOCK_SHAPE => {
                    self.next();
                    let x = self.number("the block's x dimension")?;
                    self.expect_punct(',')?;
                    let y = self.number("the block's y dimension")?;
                    self.expect_punct(',')?;
                    let z = self.number("the block's z dimension")?;
                    self.kernel.block_shape = Some([x, y, z]);
                }
                kw::PARAM => self.param()?,
                kw::SHARED => {
                    self.next();
                    let name = self.ident("a shared array name")?;
                    self.expect_punct(':')?;
                    let elem = self.scalar_type()?;
                    self.expect_punct('[')?;
                    let len = self.number("an array length")?;
                    self.expect_punct(']')?;
                    self.keyword(kw::ALIGN)?;
                    let align = self.number("an alignment")?;
                    let h = self.kernel.shared.append(SharedArray {
                        name: name.clone(),
                        elem,
                        len,
                        align,
                    });
                    self.declare(name, Name::Shared(h))?;
                }
                kw::LOCAL => {
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
        let kind = if self.at_word(kw::GLOBAL) {
            self.next();
            let elem = self.scalar_type()?;
            let access = self.keyword_of("access mode", Access::from_name)?;
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
            self.path.push_index(block.len());
            // An `if` or `loop` takes its position before its `{` (in `stmt`), the others at the end.
            let compound = self.at_word(kw::IF) || self.at_word(kw::LOOP);
            let stmt = self.stmt();
            let stmt = match stmt {
                Ok(stmt) if !compound => self.source_loc().map(|()| stmt),
                other => other,
            };
            self.path.pop();
            block.push(stmt?);
        }
        Ok(block)
    }

    /// An optional `@ "file":line:column` after a statement: its source position.
    fn source_loc(&mut self) -> PResult<()> {
        if !self.eat_punct('@') {
            return Ok(());
        }
        let Tok::Str(file) = self.peek().clone() else {
            return self.err(format!(
                "expected a quoted file name after `@`, found {}",
                self.peek().describe()
            ));
        };
        self.next();
        self.expect_punct(':')?;
        let line = self.number("a line number")?;
        self.expect_punct(':')?;
        let column = self.number("a column number")?;
        let path = self.path.to_string();
        self.kernel
            .locs
            .insert(path, SourceLoc::new(&file, line, column));
        Ok(())
    }

    /// The block `name` (`then`, `else`, `loop`) of the current statement.
    fn named_block(&mut self, name: &str) -> PResult<Block> {
        self.path.push_block(name);
        let block = self.braced_block();
        self.path.pop();
        block
    }

    fn braced_block(&mut self) -> PResult<Block> {
        if self.depth >= MAX_NESTING {
            return self.err(format!(
                "blocks (`if`, `loop`) nested deeper than {MAX_NESTING} (warpforge_ir::text::MAX_NESTING)"
            ));
        }
        self.expect_punct('{')?;
        self.depth += 1;
        let block = self.block();
        self.depth -= 1;
        let block = block?;
        self.expect_punct('}')?;
        Ok(block)
    }

    pub(super) fn value(&mut self) -> PResult<Value> {
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

    pub(super) fn comma_value(&mut self) -> PResult<Value> {
        self.expect_punct(',')?;
        self.value()
    }

    fn stmt(&mut self) -> PResult<Stmt> {
        if let Tok::Value(_) = self.peek() {
            return self.defining_stmt();
        }
        let word = self.ident("a statement")?;
        Ok(match word.as_str() {
            kw::IF => {
                let cond = self.value()?;
                self.source_loc()?;
                let then_block = self.named_block("then")?;
                let else_block = if self.at_word(kw::ELSE) {
                    self.next();
                    self.named_block("else")?
                } else {
                    Vec::new()
                };
                Stmt::If {
                    cond,
                    then_block,
                    else_block,
                }
            }
            kw::LOOP => {
                self.source_loc()?;
                Stmt::Loop {
                    body: self.named_block("loop")?,
                }
            }
            kw::BREAK => Stmt::Break,
            kw::CONTINUE => Stmt::Continue,
            kw::RETURN => Stmt::Return,
            kw::BARRIER => Stmt::Barrier,
            kw::SET => {
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
            kw::STORE => {
                let byte = self.byte_suffix();
                let width = if byte { None } else { self.vector_suffix()? };
                let array = self.array_ref()?;
                self.expect_punct('[')?;
                let index = self.value()?;
                self.expect_punct(']')?;
                let mut values = vec![self.comma_value()?];
                while self.eat_punct(',') {
                    values.push(self.value()?);
                }
                match width {
                    None if byte && values.len() == 1 => Stmt::StoreByte {
                        array,
                        index,
                        value: values[0],
                    },
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
            kw::WARP_SYNC => Stmt::Warp(WarpOp::Sync { mask: self.mask()? }),
            other => {
                self.pos -= 1;
                return self.err(format!("unknown statement `{other}`"));
            }
        })
    }

    /// `.u8` after `load` or `store` (a byte access): consumed when present.
    pub(super) fn byte_suffix(&mut self) -> bool {
        let found = self.toks.get(self.pos).map(|t| &t.tok) == Some(&Tok::Punct('.'))
            && self.toks.get(self.pos + 1).map(|t| &t.tok) == Some(&Tok::Ident(kw::BYTE.into()));
        if found {
            self.pos += 2;
        }
        found
    }

    /// `.v2` / `.v4` after `load` or `store`.
    pub(super) fn vector_suffix(&mut self) -> PResult<Option<usize>> {
        if !self.eat_punct('.') {
            return Ok(None);
        }
        match self.ident("`v2` or `v4`")?.as_str() {
            kw::V2 => Ok(Some(2)),
            kw::V4 => Ok(Some(4)),
            other => {
                self.pos -= 1;
                self.err(format!("expected `v2` or `v4`, found `{other}`"))
            }
        }
    }

    pub(super) fn array_ref(&mut self) -> PResult<MemRef> {
        let space = self.ident("`global` or `shared`")?;
        let name = self.ident("an array name")?;
        match (space.as_str(), self.names.get(&name).copied()) {
            (kw::GLOBAL, Some(Name::Param(p))) => Ok(MemRef::Global(p)),
            (kw::SHARED, Some(Name::Shared(s))) => Ok(MemRef::Shared(s)),
            (kw::GLOBAL | kw::SHARED, _) => {
                self.pos -= 1;
                self.err(format!("`{name}` is not a {space} array"))
            }
            _ => {
                self.pos -= 2;
                self.err(format!("expected `global` or `shared`, found `{space}`"))
            }
        }
    }

    pub(super) fn mask(&mut self) -> PResult<Mask> {
        self.keyword(kw::MASK)?;
        if let Tok::Value(_) = self.peek() {
            Ok(Mask::Dynamic(self.value()?))
        } else {
            Ok(Mask::Const(self.number("a lane mask")?))
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
