//! The deterministic text form of a kernel (`.wfir`), written through `Display`.
//!
//! ```text
//! kernel add_one {
//!     block_size 128
//!     param data: global u32 read_write
//!     param n: u32
//!     %0: u32 = special thread_index
//!     %1: u32 = param n
//!     %2: bool = cmp lt %0, %1
//!     if %2 {
//!         %3: u32 = load global data[%0]
//!         %4: u32 = const 1
//!         %5: u32 = add %3, %4
//!         store global data[%0], %5
//!     }
//! }
//! ```
//!
//! Values print as `%N` with `N` their arena index, declarations in arena order, statements in tree
//! order. Nothing depends on hash order, so the same kernel always prints the same bytes. Printing never
//! panics, even on unverified IR (dangling handles print as `?N`).
//!
//! A statement with a source position ([`crate::SourceLocs`]) ends its first line with
//! `@ "file":line:column`, before the `{` of an `if` or a `loop`:
//! `store global data[%0], %5 @ "src/k.rs":12:9`, `if %2 @ "src/k.rs":10:5 {`.

use std::fmt;

use super::lexer::quote;
use crate::expr::Expr;
use crate::kernel::{Kernel, ParamKind, Value};
use crate::path::StmtPath;
use crate::stmt::{Block, Mask, MemRef, Stmt, WarpOp};

impl fmt::Display for Kernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "kernel {} {{", self.name)?;
        writeln!(f, "    block_size {}", self.block_size)?;
        if let Some([x, y, z]) = self.block_shape {
            writeln!(f, "    block_shape {x}, {y}, {z}")?;
        }
        for (_, p) in self.params.iter() {
            match p.kind {
                ParamKind::Buffer { elem, access } => {
                    writeln!(f, "    param {}: global {} {}", p.name, elem, access.name())?
                }
                ParamKind::Scalar(t) => writeln!(f, "    param {}: {}", p.name, t)?,
            }
        }
        for (_, s) in self.shared.iter() {
            writeln!(
                f,
                "    shared {}: {}[{}] align {}",
                s.name, s.elem, s.len, s.align
            )?;
        }
        for (_, l) in self.locals.iter() {
            writeln!(f, "    local {}: {}", l.name, l.ty)?;
        }
        let path = StmtPath::body();
        Printer {
            kernel: self,
            f,
            path,
        }
        .block(&self.body, 1)?;
        writeln!(f, "}}")
    }
}

struct Printer<'k, 'f, 'a> {
    kernel: &'k Kernel,
    f: &'f mut fmt::Formatter<'a>,
    /// The path of the block being printed (`body`, `[3]`, `then`, …), to find source positions.
    path: StmtPath,
}

impl Printer<'_, '_, '_> {
    fn block(&mut self, block: &Block, depth: usize) -> fmt::Result {
        for (i, stmt) in block.iter().enumerate() {
            self.path.push_index(i);
            self.stmt(stmt, depth)?;
            self.path.pop();
        }
        Ok(())
    }

    /// The block `name` (`then`, `else`, `loop`) of the statement being printed.
    fn nested(&mut self, name: &str, block: &Block, depth: usize) -> fmt::Result {
        self.path.push_block(name);
        let result = self.block(block, depth);
        self.path.pop();
        result
    }

    /// ` @ "file":line:column` when the statement being printed has a source position.
    fn loc(&self) -> String {
        if self.kernel.locs.is_empty() {
            return String::new();
        }
        match self.kernel.locs.get(&self.path.to_string()) {
            Some(loc) => format!(" @ {}:{}:{}", quote(&loc.file), loc.line, loc.column),
            None => String::new(),
        }
    }

    fn indent(&mut self, depth: usize) -> fmt::Result {
        for _ in 0..depth {
            self.f.write_str("    ")?;
        }
        Ok(())
    }

    fn val(&self, v: Value) -> String {
        if self.kernel.values.get(v).is_some() {
            format!("%{}", v.index())
        } else {
            format!("?{}", v.index())
        }
    }

    /// `%N: ty` for a value being defined.
    fn def(&self, v: Value) -> String {
        match self.kernel.value_type(v) {
            Some(t) => format!("%{}: {t}", v.index()),
            None => format!("?{}: ?", v.index()),
        }
    }

    fn array(&self, array: MemRef) -> String {
        match array {
            MemRef::Global(p) => match self.kernel.params.get(p) {
                Some(param) => format!("global {}", param.name),
                None => format!("global ?{}", p.index()),
            },
            MemRef::Shared(s) => match self.kernel.shared.get(s) {
                Some(array) => format!("shared {}", array.name),
                None => format!("shared ?{}", s.index()),
            },
        }
    }

    fn mask(&self, mask: Mask) -> String {
        match mask {
            Mask::Const(m) => format!("mask 0x{m:08x}"),
            Mask::Dynamic(v) => format!("mask {}", self.val(v)),
        }
    }

    fn list(&self, values: &[Value]) -> String {
        let names: Vec<String> = values.iter().map(|&v| self.val(v)).collect();
        names.join(", ")
    }

    fn expr(&self, expr: &Expr) -> String {
        match *expr {
            Expr::Literal(lit) => format!("const {lit}"),
            Expr::Param(p) => match self.kernel.params.get(p) {
                Some(param) => format!("param {}", param.name),
                None => format!("param ?{}", p.index()),
            },
            Expr::Special(s) => format!("special {}", s.name()),
            Expr::Local(l) => match self.kernel.locals.get(l) {
                Some(local) => format!("local {}", local.name),
                None => format!("local ?{}", l.index()),
            },
            Expr::Unary(op, a) => format!("{} {}", op.name(), self.val(a)),
            Expr::Binary(op, a, b) => format!("{} {}, {}", op.name(), self.val(a), self.val(b)),
            Expr::MulWide(a, b) => format!("mul_wide {}, {}", self.val(a), self.val(b)),
            Expr::MulAdd(a, b, c) => {
                format!("mul_add {}, {}, {}", self.val(a), self.val(b), self.val(c))
            }
            Expr::FunnelShr(a, b, c) => {
                format!(
                    "funnel_shr {}, {}, {}",
                    self.val(a),
                    self.val(b),
                    self.val(c)
                )
            }
            Expr::Compare(op, a, b) => {
                format!("cmp {} {}, {}", op.name(), self.val(a), self.val(b))
            }
            Expr::Select {
                cond,
                if_true,
                if_false,
            } => format!("select {}", self.list(&[cond, if_true, if_false])),
            Expr::Cast(kind, a, _) => format!("{} {}", kind.name(), self.val(a)),
        }
    }

    fn stmt(&mut self, stmt: &Stmt, depth: usize) -> fmt::Result {
        self.indent(depth)?;
        let line = match stmt {
            Stmt::Let { value, expr } => format!("{} = {}", self.def(*value), self.expr(expr)),
            Stmt::Assign { local, value } => {
                let name = match self.kernel.locals.get(*local) {
                    Some(l) => l.name.clone(),
                    None => format!("?{}", local.index()),
                };
                format!("set {name} = {}", self.val(*value))
            }
            Stmt::Load {
                value,
                array,
                index,
            } => format!(
                "{} = load {}[{}]",
                self.def(*value),
                self.array(*array),
                self.val(*index)
            ),
            Stmt::Store {
                array,
                index,
                value,
            } => format!(
                "store {}[{}], {}",
                self.array(*array),
                self.val(*index),
                self.val(*value)
            ),
            Stmt::LoadByte {
                value,
                array,
                index,
            } => format!(
                "{} = load.u8 {}[{}]",
                self.def(*value),
                self.array(*array),
                self.val(*index)
            ),
            Stmt::StoreByte {
                array,
                index,
                value,
            } => format!(
                "store.u8 {}[{}], {}",
                self.array(*array),
                self.val(*index),
                self.val(*value)
            ),
            Stmt::LoadWide {
                values,
                array,
                index,
            } => {
                let defs: Vec<String> = values.iter().map(|&v| self.def(v)).collect();
                format!(
                    "{} = load.v{} {}[{}]",
                    defs.join(", "),
                    values.len(),
                    self.array(*array),
                    self.val(*index)
                )
            }
            Stmt::StoreWide {
                array,
                index,
                values,
            } => format!(
                "store.v{} {}[{}], {}",
                values.len(),
                self.array(*array),
                self.val(*index),
                self.list(values)
            ),
            Stmt::Atomic {
                value,
                op,
                array,
                index,
                operand,
                compare,
            } => {
                let operands = match compare {
                    Some(c) => self.list(&[*c, *operand]),
                    None => self.val(*operand),
                };
                format!(
                    "{} = atomic {} {}[{}], {operands}",
                    self.def(*value),
                    op.name(),
                    self.array(*array),
                    self.val(*index)
                )
            }
            Stmt::If {
                cond,
                then_block,
                else_block,
            } => {
                writeln!(self.f, "if {}{} {{", self.val(*cond), self.loc())?;
                self.nested("then", then_block, depth + 1)?;
                if !else_block.is_empty() {
                    self.indent(depth)?;
                    writeln!(self.f, "}} else {{")?;
                    self.nested("else", else_block, depth + 1)?;
                }
                self.indent(depth)?;
                return writeln!(self.f, "}}");
            }
            Stmt::Loop { body } => {
                writeln!(self.f, "loop{} {{", self.loc())?;
                self.nested("loop", body, depth + 1)?;
                self.indent(depth)?;
                return writeln!(self.f, "}}");
            }
            Stmt::Break => "break".into(),
            Stmt::Continue => "continue".into(),
            Stmt::Return => "return".into(),
            Stmt::Barrier => "barrier".into(),
            Stmt::Warp(op) => self.warp(op),
        };
        writeln!(self.f, "{line}{}", self.loc())
    }

    fn warp(&self, op: &WarpOp) -> String {
        let mask = self.mask(op.mask());
        match *op {
            WarpOp::Shuffle {
                value,
                mode,
                src,
                lane,
                ..
            } => format!(
                "{} = shuffle {} {}, {} {mask}",
                self.def(value),
                mode.name(),
                self.val(src),
                self.val(lane)
            ),
            WarpOp::Ballot { value, pred, .. } => {
                format!("{} = ballot {} {mask}", self.def(value), self.val(pred))
            }
            WarpOp::Vote {
                value, mode, pred, ..
            } => format!(
                "{} = vote {} {} {mask}",
                self.def(value),
                mode.name(),
                self.val(pred)
            ),
            WarpOp::MatchAny { value, src, .. } => {
                format!("{} = match_any {} {mask}", self.def(value), self.val(src))
            }
            WarpOp::Sync { .. } => format!("warp_sync {mask}"),
        }
    }
}
