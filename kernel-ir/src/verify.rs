//! The verifier: every emitter and analysis runs it first, and takes its [`Verified`] proof.
//!
//! It checks the declarations (names, block size, shared arrays), then walks the body checking types,
//! that every value is defined once and used only where its definition is visible, that `break` and
//! `continue` sit inside loops, that memory statements respect address spaces and access modes, and that
//! warp masks are well formed. Errors name the statement by its path, such as `body[3].then[1]`, and say
//! what was expected; when the kernel records the statement's Rust source position, the error carries
//! it too (``kernel `k`, body[1].then[1] (src/saxpy.rs:12:9): …``). Malformed IR yields `Err`, never a
//! panic.

use std::collections::HashSet;
use std::fmt;

use crate::kernel::{Kernel, ParamKind, Value};
use crate::loc::SourceLoc;
use crate::path::StmtPath;
use crate::stmt::{AtomicOp, Block, Mask, MemRef, Stmt, WarpOp};
use crate::types::{Access, ScalarType};
use crate::typing::{expr_operands, expr_type};

/// Why a kernel was rejected, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyError {
    /// The kernel's name.
    pub kernel: String,
    /// Where: `kernel`, `params[1]`, `shared[0]`, `locals[2]` or a statement path such as
    /// `body[3].then[1]` (`then`, `else` and `loop` name nested blocks).
    pub path: String,
    /// The Rust source position of the statement at `path`, when the kernel records one.
    pub loc: Option<SourceLoc>,
    /// What was expected and what was found.
    pub message: String,
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "kernel `{}`, {}", self.kernel, self.path)?;
        if let Some(loc) = &self.loc {
            write!(f, " ({loc})")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for VerifyError {}

/// Proof that a kernel passed [`verify`]. Emitters and analyses take this instead of a bare [`Kernel`].
#[derive(Clone, Copy, Debug)]
pub struct Verified<'k> {
    kernel: &'k Kernel,
}

impl<'k> Verified<'k> {
    /// The verified kernel.
    pub fn kernel(&self) -> &'k Kernel {
        self.kernel
    }
}

impl std::ops::Deref for Verified<'_> {
    type Target = Kernel;
    fn deref(&self) -> &Kernel {
        self.kernel
    }
}

/// Checks `kernel`; see the module docs for what is checked.
pub fn verify(kernel: &Kernel) -> Result<Verified<'_>, VerifyError> {
    let mut v = Verifier {
        kernel,
        path: StmtPath::default(),
        defined: vec![false; kernel.values.len()],
        visible: vec![false; kernel.values.len()],
        loop_depth: 0,
    };
    v.declarations()?;
    v.path = StmtPath::body();
    v.block(&kernel.body)?;
    Ok(Verified { kernel })
}

/// Whether `name` is an identifier of the text form (`[A-Za-z_][A-Za-z0-9_]*`).
pub fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

struct Verifier<'k> {
    kernel: &'k Kernel,
    path: StmtPath,
    defined: Vec<bool>,
    visible: Vec<bool>,
    loop_depth: u32,
}

type VResult = Result<(), VerifyError>;

impl Verifier<'_> {
    fn fail<T>(&self, message: impl Into<String>) -> Result<T, VerifyError> {
        let path = self.path_text();
        Err(VerifyError {
            kernel: self.kernel.name.clone(),
            loc: self.kernel.locs.get(&path).cloned(),
            path,
            message: message.into(),
        })
    }

    fn path_text(&self) -> String {
        let text = self.path.to_string();
        if text.is_empty() {
            "kernel".into()
        } else {
            text
        }
    }

    /// Checks declaration `index` of the list `list` (`params[1]`).
    fn at<T>(
        &mut self,
        list: &str,
        index: usize,
        check: impl FnOnce(&mut Self) -> Result<T, VerifyError>,
    ) -> Result<T, VerifyError> {
        self.path.push_block(list);
        self.path.push_index(index);
        let result = check(self);
        self.path.pop();
        self.path.pop();
        result
    }

    fn declarations(&mut self) -> VResult {
        let k = self.kernel;
        if !is_identifier(&k.name) {
            return self.fail(format!("kernel name `{}` is not an identifier", k.name));
        }
        if k.block_size == 0 || k.block_size > 1024 || k.block_size % 32 != 0 {
            return self.fail(format!(
                "block size must be a multiple of 32 between 32 and 1024 (full warps), found {}",
                k.block_size
            ));
        }
        if let Some(shape) = k.block_shape {
            let product = shape.iter().map(|&d| u64::from(d)).product::<u64>();
            if shape.contains(&0) || product != u64::from(k.block_size) || shape[2] > 64 {
                return self.fail(format!(
                    "block shape {}×{}×{} must have dimensions of at least 1 (z at most 64) whose \
                     product is the block size {}",
                    shape[0], shape[1], shape[2], k.block_size
                ));
            }
        }
        let mut names = HashSet::new();
        let mut check_name = |v: &mut Self, name: &str| -> VResult {
            if !is_identifier(name) {
                return v.fail(format!("`{name}` is not an identifier"));
            }
            if !names.insert(name.to_owned()) {
                return v.fail(format!("`{name}` is declared twice"));
            }
            Ok(())
        };
        for (h, p) in k.params.iter() {
            self.at("params", h.index(), |v| {
                check_name(v, &p.name)?;
                match p.kind {
                    ParamKind::Buffer {
                        elem: ScalarType::Bool,
                        ..
                    } => v.fail("a buffer cannot hold bool elements"),
                    _ => Ok(()),
                }
            })?;
        }
        for (h, s) in k.shared.iter() {
            self.at("shared", h.index(), |v| {
                check_name(v, &s.name)?;
                let Some(size) = s.elem.size_bytes() else {
                    return v.fail("a shared array cannot hold bool elements");
                };
                if s.len == 0 {
                    return v.fail("a shared array needs at least one element");
                }
                if !s.align.is_power_of_two() || s.align < size {
                    return v.fail(format!(
                        "alignment must be a power of two of at least the element size ({size}), found {}",
                        s.align
                    ));
                }
                Ok(())
            })?;
        }
        if k.shared_bytes().is_none_or(|b| b > u64::from(u32::MAX)) {
            return self.fail("the shared arrays do not fit in a 32-bit address space");
        }
        for (h, l) in k.locals.iter() {
            self.at("locals", h.index(), |v| check_name(v, &l.name))?;
        }
        Ok(())
    }

    /// Checks the statements of one block; values defined inside stop being visible at its end.
    fn block(&mut self, block: &Block) -> VResult {
        let mut defined_here = Vec::new();
        let mut result = Ok(());
        for (i, stmt) in block.iter().enumerate() {
            self.path.push_index(i);
            result = self.stmt(stmt, &mut defined_here);
            self.path.pop();
            if result.is_err() {
                break;
            }
        }
        for v in defined_here {
            self.visible[v] = false;
        }
        result
    }

    fn nested(&mut self, name: &str, block: &Block) -> VResult {
        self.path.push_block(name);
        let result = self.block(block);
        self.path.pop();
        result
    }

    /// The type of a value used by the current statement.
    fn use_value(&self, value: Value) -> Result<ScalarType, VerifyError> {
        let i = value.index();
        let Some(ty) = self.kernel.value_type(value) else {
            return self.fail(format!("uses %{i}, which does not exist (dangling handle)"));
        };
        if !self.defined[i] {
            return self.fail(format!("uses %{i} before its definition"));
        }
        if !self.visible[i] {
            return self.fail(format!("uses %{i} outside the block that defines it"));
        }
        Ok(ty)
    }

    fn expect_type(&self, value: Value, ty: ScalarType, role: &str) -> VResult {
        let found = self.use_value(value)?;
        if found != ty {
            return self.fail(format!(
                "{role} must be {ty}, found %{} of type {found}",
                value.index()
            ));
        }
        Ok(())
    }

    /// Defines `value` with the type the statement produces.
    fn define(&mut self, value: Value, produced: ScalarType, here: &mut Vec<usize>) -> VResult {
        let i = value.index();
        let Some(declared) = self.kernel.value_type(value) else {
            return self.fail(format!(
                "defines %{i}, which does not exist (dangling handle)"
            ));
        };
        if self.defined[i] {
            return self.fail(format!("defines %{i} a second time"));
        }
        if declared != produced {
            return self.fail(format!(
                "%{i} is declared {declared} but its definition produces {produced}"
            ));
        }
        self.defined[i] = true;
        self.visible[i] = true;
        here.push(i);
        Ok(())
    }

    /// Element type of `array`, checking that it exists and (if `write`) may be written.
    fn array(&self, array: MemRef, write: bool) -> Result<ScalarType, VerifyError> {
        match array {
            MemRef::Global(p) => match self.kernel.params.get(p) {
                Some(param) => match param.kind {
                    ParamKind::Buffer {
                        access: Access::ReadOnly,
                        ..
                    } if write => self.fail(format!(
                        "buffer `{}` is read-only and cannot be written",
                        param.name
                    )),
                    ParamKind::Buffer { elem, .. } => Ok(elem),
                    ParamKind::Scalar(_) => self.fail(format!(
                        "`{}` is a scalar parameter, not a global buffer",
                        param.name
                    )),
                },
                None => self.fail(format!("global buffer #{} does not exist", p.index())),
            },
            MemRef::Shared(s) => match self.kernel.shared.get(s) {
                Some(array) => Ok(array.elem),
                None => self.fail(format!("shared array #{} does not exist", s.index())),
            },
        }
    }

    fn index(&self, index: Value) -> VResult {
        let t = self.use_value(index)?;
        if t != ScalarType::U32 && t != ScalarType::U64 {
            return self.fail(format!("an element index must be u32 or u64, found {t}"));
        }
        Ok(())
    }

    fn stmt(&mut self, stmt: &Stmt, here: &mut Vec<usize>) -> VResult {
        match stmt {
            Stmt::Let { value, expr } => {
                for operand in expr_operands(expr) {
                    self.use_value(operand)?;
                }
                let produced = match expr_type(self.kernel, expr) {
                    Ok(t) => t,
                    Err(message) => return self.fail(message),
                };
                self.define(*value, produced, here)
            }
            Stmt::Assign { local, value } => {
                let Some(l) = self.kernel.locals.get(*local) else {
                    return self.fail(format!("local #{} does not exist", local.index()));
                };
                self.expect_type(*value, l.ty, &format!("the value assigned to `{}`", l.name))
            }
            Stmt::Load {
                value,
                array,
                index,
            } => {
                let elem = self.array(*array, false)?;
                self.index(*index)?;
                self.define(*value, elem, here)
            }
            Stmt::Store {
                array,
                index,
                value,
            } => {
                let elem = self.array(*array, true)?;
                self.index(*index)?;
                self.expect_type(*value, elem, "the stored value")
            }
            Stmt::LoadByte {
                value,
                array,
                index,
            } => {
                self.byte_array(*array, false)?;
                self.index(*index)?;
                self.define(*value, ScalarType::U32, here)
            }
            Stmt::StoreByte {
                array,
                index,
                value,
            } => {
                self.byte_array(*array, true)?;
                self.index(*index)?;
                self.expect_type(*value, ScalarType::U32, "the stored byte")
            }
            Stmt::LoadWide {
                values,
                array,
                index,
            } => {
                let elem = self.wide(values, *array, false)?;
                self.index(*index)?;
                for &v in values {
                    self.define(v, elem, here)?;
                }
                Ok(())
            }
            Stmt::StoreWide {
                array,
                index,
                values,
            } => {
                let elem = self.wide(values, *array, true)?;
                self.index(*index)?;
                for &v in values {
                    self.expect_type(v, elem, "a stored value")?;
                }
                Ok(())
            }
            Stmt::Atomic {
                value,
                op,
                array,
                index,
                operand,
                compare,
            } => {
                let elem = self.array(*array, true)?;
                let float_add =
                    matches!(elem, ScalarType::F32 | ScalarType::F64) && *op == AtomicOp::Add;
                if elem != ScalarType::U32 && !float_add {
                    return self.fail(format!(
                        "atomics work on u32 elements (and `add` on f32 and f64 elements), this array holds {elem}"
                    ));
                }
                self.index(*index)?;
                self.expect_type(*operand, elem, "the atomic operand")?;
                match (op, compare) {
                    (AtomicOp::CompareExchange, Some(c)) => {
                        self.expect_type(*c, ScalarType::U32, "the compared value")?
                    }
                    (AtomicOp::CompareExchange, None) => {
                        return self.fail("compare-and-swap needs a compared value")
                    }
                    (_, Some(_)) => {
                        return self.fail("only compare-and-swap takes a compared value")
                    }
                    (_, None) => {}
                }
                self.define(*value, elem, here)
            }
            Stmt::If {
                cond,
                then_block,
                else_block,
            } => {
                self.expect_type(*cond, ScalarType::Bool, "an if condition")?;
                self.nested("then", then_block)?;
                self.nested("else", else_block)
            }
            Stmt::Loop { body } => {
                self.loop_depth += 1;
                let result = self.nested("loop", body);
                self.loop_depth -= 1;
                result
            }
            Stmt::Break | Stmt::Continue if self.loop_depth == 0 => {
                let word = if *stmt == Stmt::Break {
                    "break"
                } else {
                    "continue"
                };
                self.fail(format!("`{word}` outside of a loop"))
            }
            Stmt::Break | Stmt::Continue | Stmt::Return | Stmt::Barrier => Ok(()),
            Stmt::Warp(op) => self.warp(op, here),
        }
    }

    /// Checks a wide access; the element type.
    /// The array of a byte access (`load.u8`, `store.u8` when `write`): a `u32` one.
    fn byte_array(&self, array: MemRef, write: bool) -> Result<(), VerifyError> {
        let elem = self.array(array, write)?;
        if elem == ScalarType::U32 {
            return Ok(());
        }
        let what = if write {
            "a byte store writes"
        } else {
            "a byte load reads"
        };
        self.fail(format!("{what} a u32 array, not one of {}", elem.name()))
    }

    fn wide(
        &self,
        values: &[Value],
        array: MemRef,
        write: bool,
    ) -> Result<ScalarType, VerifyError> {
        if values.len() != 2 && values.len() != 4 {
            return self.fail(format!(
                "wide accesses move 2 or 4 elements, not {}",
                values.len()
            ));
        }
        let elem = self.array(array, write)?;
        if !matches!(elem, ScalarType::U32 | ScalarType::I32 | ScalarType::F32) {
            return self.fail(format!(
                "wide accesses need an array of u32, i32 or f32, this one holds {elem}"
            ));
        }
        Ok(elem)
    }

    fn warp(&mut self, op: &WarpOp, here: &mut Vec<usize>) -> VResult {
        match op.mask() {
            Mask::Const(0) => return self.fail("a warp mask must name at least one lane, found 0"),
            Mask::Const(_) => {}
            Mask::Dynamic(m) => self.expect_type(m, ScalarType::U32, "a warp mask")?,
        }
        match *op {
            WarpOp::Shuffle {
                value, src, lane, ..
            } => {
                let t = self.use_value(src)?;
                if !matches!(t, ScalarType::U32 | ScalarType::I32 | ScalarType::F32) {
                    return self.fail(format!("shuffle moves u32, i32 or f32 values, found {t}"));
                }
                self.expect_type(lane, ScalarType::U32, "the shuffle lane operand")?;
                self.define(value, t, here)
            }
            WarpOp::Ballot { value, pred, .. } => {
                self.expect_type(pred, ScalarType::Bool, "a ballot predicate")?;
                self.define(value, ScalarType::U32, here)
            }
            WarpOp::Vote { value, pred, .. } => {
                self.expect_type(pred, ScalarType::Bool, "a vote predicate")?;
                self.define(value, ScalarType::Bool, here)
            }
            WarpOp::MatchAny { value, src, .. } => {
                let t = self.use_value(src)?;
                if t != ScalarType::U32 && t != ScalarType::U64 {
                    return self.fail(format!("match_any compares u32 or u64 values, found {t}"));
                }
                self.define(value, ScalarType::U32, here)
            }
            WarpOp::Sync { .. } => Ok(()),
        }
    }
}
