//! The Rust builder for kernels: typed value handles, closures for control flow.
//!
//! Every call that returns a value is `#[must_use]`: a discarded result is almost always a bug (one
//! such discarded reduction once made another project report every page as a zero page).
//!
//! ```
//! use warpforge_ir::builder::{KernelBuilder, U32};
//! use warpforge_ir::Access;
//!
//! let mut b = KernelBuilder::new("add_one", 128);
//! let data = b.buffer::<U32>("data", Access::ReadWrite);
//! let n = b.scalar_param::<U32>("n");
//! let i = b.thread_index();
//! let n = b.param(n);
//! let in_range = b.lt(i, n);
//! b.if_(in_range, |b| {
//!     let x = b.load(data, i);
//!     let one = b.u32(1);
//!     let y = b.add(x, one);
//!     b.store(data, i, y);
//! });
//! let kernel = b.finish().expect("a well-formed kernel");
//! assert!(kernel.to_string().contains("store global data[%0], %5"));
//! ```

mod half;
mod math;
mod memory;
mod ops;
mod typed;

pub use typed::*;

use crate::expr::{Expr, Special};
use crate::kernel::{Kernel, LocalVar, Param, ParamKind, SharedArray, ValueInfo};
use crate::loc::SourceLoc;
use crate::path::StmtPath;
use crate::stmt::{Block, Mask, ShuffleMode, Stmt, VoteMode, WarpOp};
use crate::types::{Access, Literal, ScalarType};
use crate::verify::{verify, VerifyError};
use std::collections::HashMap;

/// Builds one [`Kernel`]. Statements are appended to the innermost open block.
pub struct KernelBuilder {
    kernel: Kernel,
    /// Open blocks; the last is where statements go. The first is the kernel body.
    blocks: Vec<Block>,
    /// The statement path of each open block (`body`, then `[i]`, `then`/`else`/`loop` per level).
    block_path: StmtPath,
    /// The position given to statements pushed from now on ([`KernelBuilder::set_loc`]).
    loc: Option<SourceLoc>,
    /// Open `loop` blocks around the statements pushed now.
    loops: usize,
    /// Constants asked for inside a loop, defined once in front of the body instead (see
    /// [`KernelBuilder::lit`]), and the value of each.
    hoisted: Vec<Stmt>,
    hoisted_values: HashMap<Literal, crate::Value>,
}

impl KernelBuilder {
    /// Starts a kernel with this entry name and threads per block (a multiple of 32, at most 1024).
    pub fn new(name: &str, block_size: u32) -> Self {
        KernelBuilder {
            kernel: Kernel {
                name: name.to_owned(),
                block_size,
                ..Kernel::default()
            },
            blocks: vec![Vec::new()],
            block_path: StmtPath::body(),
            loc: None,
            loops: 0,
            hoisted: Vec::new(),
            hoisted_values: HashMap::new(),
        }
    }

    /// Starts a kernel whose blocks are `shape` = `[x, y, z]` threads (their product a multiple of
    /// 32, at most 1024; z at most 64).
    pub fn with_shape(name: &str, shape: [u32; 3]) -> Self {
        let mut b = KernelBuilder::new(name, shape.iter().product());
        if shape[1] != 1 || shape[2] != 1 {
            b.kernel.block_shape = Some(shape);
        }
        b
    }

    // ---- source positions ---------------------------------------------------------------------

    /// Every statement pushed from now on carries this Rust source position (`file:line:column`,
    /// 1-based) until the next `set_loc` or [`KernelBuilder::clear_loc`]; the verifier, the linter, the
    /// sanitizer and the PTX `.loc` lines name it.
    ///
    /// An `if` or `loop` takes the position current when its builder call begins, and when its
    /// closures return that position is current again: statements after a control-flow call do not
    /// inherit the last position set inside its blocks.
    pub fn set_loc(&mut self, file: &str, line: u32, column: u32) {
        match &mut self.loc {
            // Reuse the file's allocation while it stays the same (the common case).
            Some(loc) if *loc.file == *file => {
                loc.line = line;
                loc.column = column;
            }
            _ => self.loc = Some(SourceLoc::new(file, line, column)),
        }
    }

    /// Statements pushed from now on carry no source position.
    pub fn clear_loc(&mut self) {
        self.loc = None;
    }

    /// The position statements pushed now would carry.
    pub fn loc(&self) -> Option<&SourceLoc> {
        self.loc.as_ref()
    }

    /// Verifies and returns the kernel.
    pub fn finish(mut self) -> Result<Kernel, VerifyError> {
        debug_assert_eq!(self.blocks.len(), 1, "a control-flow closure did not close");
        let body = self.blocks.pop().unwrap_or_default();
        self.kernel.locs.shift_body(self.hoisted.len());
        self.kernel.body = std::mem::take(&mut self.hoisted);
        self.kernel.body.extend(body);
        verify(&self.kernel)?;
        Ok(self.kernel)
    }

    // ---- declarations -------------------------------------------------------------------------

    /// Declares a global buffer parameter of `T` elements.
    #[must_use]
    pub fn buffer<T: Storable>(&mut self, name: &str, access: Access) -> GlobalBuf<T> {
        let kind = ParamKind::Buffer {
            elem: T::TYPE,
            access,
        };
        GlobalBuf::new(self.kernel.params.append(Param {
            name: name.to_owned(),
            kind,
        }))
    }

    /// Declares a scalar parameter.
    #[must_use]
    pub fn scalar_param<T: ScalarKind>(&mut self, name: &str) -> ScalarParam<T> {
        ScalarParam::new(self.kernel.params.append(Param {
            name: name.to_owned(),
            kind: ParamKind::Scalar(T::TYPE),
        }))
    }

    /// Declares a shared array of `len` elements whose start is aligned to `align` bytes.
    ///
    /// A name the kernel already uses gets a suffix ([`Self::unique_name`]: `tile`, `tile_1`, …): the
    /// emitted PTX names each array by its name, and device functions declare their own arrays
    /// wherever they are called.
    #[must_use]
    pub fn shared<T: Storable>(&mut self, name: &str, len: u32, align: u32) -> SharedArr<T> {
        let unique = self.unique_name(name);
        SharedArr::new(self.kernel.shared.append(SharedArray {
            name: unique,
            elem: T::TYPE,
            len,
            align,
        }))
    }

    /// Declares a mutable local (initially zero). A name the kernel already uses gets a suffix
    /// ([`Self::unique_name`]), as for shared arrays.
    #[must_use]
    pub fn local<T: ScalarKind>(&mut self, name: &str) -> Local<T> {
        let unique = self.unique_name(name);
        Local::new(self.kernel.locals.append(LocalVar {
            name: unique,
            ty: T::TYPE,
        }))
    }

    /// `base` if no parameter, shared array or local of the kernel has that name yet, else the first
    /// free `base_1`, `base_2`, … (for generated code, where one Rust name may be declared twice).
    pub fn unique_name(&self, base: &str) -> String {
        let k = &self.kernel;
        let taken = |name: &str| {
            k.params.iter().any(|(_, p)| p.name == name)
                || k.shared.iter().any(|(_, s)| s.name == name)
                || k.locals.iter().any(|(_, l)| l.name == name)
        };
        let mut name = base.to_owned();
        let mut n = 0;
        while taken(&name) {
            n += 1;
            name = format!("{base}_{n}");
        }
        name
    }

    // ---- plumbing -----------------------------------------------------------------------------

    fn push(&mut self, stmt: Stmt) {
        let loc = self.loc.clone();
        self.push_at(stmt, loc);
    }

    /// Appends `stmt` to the innermost open block, recording `loc` under its path.
    fn push_at(&mut self, stmt: Stmt, loc: Option<SourceLoc>) {
        let block = self
            .blocks
            .last_mut()
            .expect("the body block is always open");
        if let Some(loc) = loc {
            self.block_path.push_index(block.len());
            self.kernel.locs.insert(self.block_path.to_string(), loc);
            self.block_path.pop();
        }
        block.push(stmt);
    }

    fn fresh<T: ScalarKind>(&mut self) -> Val<T> {
        Val::new(self.kernel.values.append(ValueInfo { ty: T::TYPE }))
    }

    fn fresh_of(&mut self, ty: ScalarType) -> crate::Value {
        self.kernel.values.append(ValueInfo { ty })
    }

    /// Binds an expression to a fresh value of kind `T`.
    pub(crate) fn bind<T: ScalarKind>(&mut self, expr: Expr) -> Val<T> {
        let value = self.fresh::<T>();
        self.push(Stmt::Let {
            value: value.value(),
            expr,
        });
        value
    }

    /// Builds the block `name` (`then`, `else`, `loop`) of the statement that will be pushed next
    /// into the current block.
    fn nested(&mut self, name: &str, f: impl FnOnce(&mut Self)) -> Block {
        let index = self.blocks.last().map_or(0, Vec::len);
        self.block_path.push_index(index);
        self.block_path.push_block(name);
        self.blocks.push(Vec::new());
        let in_loop = name == "loop";
        self.loops += usize::from(in_loop);
        f(self);
        self.loops -= usize::from(in_loop);
        self.block_path.pop();
        self.block_path.pop();
        self.blocks.pop().unwrap_or_default()
    }

    // ---- values -------------------------------------------------------------------------------

    /// A constant of kind `T`.
    #[must_use]
    pub fn lit<T: ScalarKind>(&mut self, value: T::Rust) -> Val<T> {
        self.constant(T::literal(value))
    }

    /// A constant: where it is asked for, or — inside a loop — once in front of the body, shared by
    /// every use of the same constant inside loops. A constant costs nothing on a GPU (ptxas and the
    /// WGSL compilers fold it into the instructions that use it), but a statement inside a loop
    /// would be emitted and counted by the simulator on every iteration.
    fn constant<T: ScalarKind>(&mut self, literal: Literal) -> Val<T> {
        if self.loops == 0 {
            return self.bind(Expr::Literal(literal));
        }
        if let Some(&value) = self.hoisted_values.get(&literal) {
            return Val::new(value);
        }
        let value = self.fresh::<T>();
        self.hoisted.push(Stmt::Let {
            value: value.value(),
            expr: Expr::Literal(literal),
        });
        self.hoisted_values.insert(literal, value.value());
        value
    }

    /// A float constant of any float type from a Rust literal's digits (what `#[kernel]` emits for an
    /// unsuffixed float literal, so that it also works in a kernel generic over `F: Float`).
    #[must_use]
    pub fn float_lit<T: Float>(&mut self, text: &str) -> Val<T> {
        self.constant(T::literal_from_text(text))
    }

    /// A `u32` constant.
    #[must_use]
    pub fn u32(&mut self, value: u32) -> Val<U32> {
        self.lit::<U32>(value)
    }

    /// A `bool` constant.
    #[must_use]
    pub fn bool(&mut self, value: bool) -> Val<Bool> {
        self.lit::<Bool>(value)
    }

    /// An `f32` constant.
    #[must_use]
    pub fn f32(&mut self, value: f32) -> Val<F32> {
        self.lit::<F32>(value)
    }

    /// The value of a scalar parameter.
    #[must_use]
    pub fn param<T: ScalarKind>(&mut self, param: ScalarParam<T>) -> Val<T> {
        self.bind(Expr::Param(param.id))
    }

    /// The current contents of a local.
    #[must_use]
    pub fn read<T: ScalarKind>(&mut self, local: Local<T>) -> Val<T> {
        self.bind(Expr::Local(local.id))
    }

    /// Overwrites a local.
    pub fn assign<T: ScalarKind>(&mut self, local: Local<T>, value: Val<T>) {
        self.push(Stmt::Assign {
            local: local.id,
            value: value.value(),
        });
    }

    fn special(&mut self, s: Special) -> Val<U32> {
        self.bind(Expr::Special(s))
    }

    /// The thread's index in its block.
    #[must_use]
    pub fn thread_index(&mut self) -> Val<U32> {
        self.special(Special::ThreadIndex)
    }
    /// The thread's lane in its warp (0..32).
    #[must_use]
    pub fn lane_id(&mut self) -> Val<U32> {
        self.special(Special::LaneId)
    }
    /// The warp's index in its block.
    #[must_use]
    pub fn warp_index(&mut self) -> Val<U32> {
        self.special(Special::WarpIndex)
    }
    /// The block's index in the grid.
    #[must_use]
    pub fn block_index(&mut self) -> Val<U32> {
        self.special(Special::BlockIndex)
    }
    /// Threads per block, as the constant the kernel was started with (what [`Self::block_size`]
    /// reads at run time): device functions written with the builder size their shared arrays by it.
    pub fn threads_per_block(&self) -> u32 {
        self.kernel.block_size
    }
    /// Threads per block.
    #[must_use]
    pub fn block_size(&mut self) -> Val<U32> {
        self.special(Special::BlockSize)
    }
    /// Blocks in the grid.
    #[must_use]
    pub fn grid_size(&mut self) -> Val<U32> {
        self.special(Special::GridSize)
    }
    /// Lanes per warp (32).
    #[must_use]
    pub fn warp_size(&mut self) -> Val<U32> {
        self.special(Special::WarpSize)
    }
    /// The thread's x, y, z index in its block (`dim` 0, 1, 2; the others are a compile error in
    /// `#[kernel]`).
    #[must_use]
    pub fn thread_index_dim(&mut self, dim: usize) -> Val<U32> {
        self.special(
            [
                Special::ThreadIndexX,
                Special::ThreadIndexY,
                Special::ThreadIndexZ,
            ][dim.min(2)],
        )
    }
    /// The block's x, y, z index in the grid.
    #[must_use]
    pub fn block_index_dim(&mut self, dim: usize) -> Val<U32> {
        self.special(
            [
                Special::BlockIndexX,
                Special::BlockIndexY,
                Special::BlockIndexZ,
            ][dim.min(2)],
        )
    }
    /// Blocks in the grid along x, y, z.
    #[must_use]
    pub fn grid_size_dim(&mut self, dim: usize) -> Val<U32> {
        self.special([Special::GridSizeX, Special::GridSizeY, Special::GridSizeZ][dim.min(2)])
    }
    /// The block's extent along x, y, z: a constant of the kernel.
    #[must_use]
    pub fn block_size_dim(&mut self, dim: usize) -> Val<U32> {
        let d = self.kernel.block_dims()[dim.min(2)];
        self.u32(d)
    }

    // ---- control flow -------------------------------------------------------------------------

    /// `if cond { then }`.
    pub fn if_(&mut self, cond: Val<Bool>, then: impl FnOnce(&mut Self)) {
        self.if_else(cond, then, |_| {});
    }

    /// `if cond { then } else { otherwise }`.
    pub fn if_else(
        &mut self,
        cond: Val<Bool>,
        then: impl FnOnce(&mut Self),
        otherwise: impl FnOnce(&mut Self),
    ) {
        let loc = self.loc.clone();
        let then_block = self.nested("then", then);
        self.loc.clone_from(&loc);
        let else_block = self.nested("else", otherwise);
        self.loc.clone_from(&loc);
        let stmt = Stmt::If {
            cond: cond.value(),
            then_block,
            else_block,
        };
        self.push_at(stmt, loc);
    }

    /// `loop { body }`; leave it with [`KernelBuilder::break_`] or [`KernelBuilder::return_`].
    pub fn loop_(&mut self, body: impl FnOnce(&mut Self)) {
        let loc = self.loc.clone();
        let body = self.nested("loop", body);
        self.loc.clone_from(&loc);
        self.push_at(Stmt::Loop { body }, loc);
    }

    /// Leaves the innermost loop.
    pub fn break_(&mut self) {
        self.push(Stmt::Break);
    }

    /// Continues with the next iteration of the innermost loop.
    pub fn continue_(&mut self) {
        self.push(Stmt::Continue);
    }

    /// Ends the thread.
    pub fn return_(&mut self) {
        self.push(Stmt::Return);
    }

    /// Block-wide barrier.
    pub fn barrier(&mut self) {
        self.push(Stmt::Barrier);
    }

    // ---- warp collectives ---------------------------------------------------------------------

    /// Reads `src` from another lane of `mask` (see [`ShuffleMode`]).
    #[must_use]
    pub fn shuffle<T: Shufflable>(
        &mut self,
        mode: ShuffleMode,
        src: Val<T>,
        lane: Val<U32>,
        mask: Mask,
    ) -> Val<T> {
        let value = self.fresh::<T>();
        self.push(Stmt::Warp(WarpOp::Shuffle {
            value: value.value(),
            mode,
            src: src.value(),
            lane: lane.value(),
            mask,
        }));
        value
    }

    /// The lanes of `mask` whose `pred` is true, as a bit mask.
    #[must_use]
    pub fn ballot(&mut self, pred: Val<Bool>, mask: Mask) -> Val<U32> {
        let value = self.fresh::<U32>();
        self.push(Stmt::Warp(WarpOp::Ballot {
            value: value.value(),
            pred: pred.value(),
            mask,
        }));
        value
    }

    /// Whether `pred` holds on any (`VoteMode::Any`) or all (`VoteMode::All`) lanes of `mask`.
    #[must_use]
    pub fn vote(&mut self, mode: VoteMode, pred: Val<Bool>, mask: Mask) -> Val<Bool> {
        let value = self.fresh::<Bool>();
        self.push(Stmt::Warp(WarpOp::Vote {
            value: value.value(),
            mode,
            pred: pred.value(),
            mask,
        }));
        value
    }

    /// The lanes of `mask` holding the same `src` as this lane.
    #[must_use]
    pub fn match_any<T: Matchable>(&mut self, src: Val<T>, mask: Mask) -> Val<U32> {
        let value = self.fresh_of(ScalarType::U32);
        self.push(Stmt::Warp(WarpOp::MatchAny {
            value,
            src: src.value(),
            mask,
        }));
        Val::new(value)
    }

    /// Synchronizes the lanes of `mask`.
    pub fn warp_sync(&mut self, mask: Mask) {
        self.push(Stmt::Warp(WarpOp::Sync { mask }));
    }
}
