//! A kernel: its signature (parameters, block size, shared arrays, locals), its values and its body.

use crate::arena::{Arena, Handle};
use crate::loc::SourceLocs;
use crate::stmt::Block;
use crate::types::{Access, ScalarType};

/// A kernel parameter: a global buffer or a scalar.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Param {
    /// Name (an identifier, unique among the kernel's names).
    pub name: String,
    /// What kind of parameter it is.
    pub kind: ParamKind,
}

/// The kind of a [`Param`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ParamKind {
    /// A pointer to an array in global memory.
    Buffer {
        /// Element type (any storable type: not `bool`).
        elem: ScalarType,
        /// Whether the kernel may write it.
        access: Access,
    },
    /// A scalar passed by value.
    Scalar(ScalarType),
}

/// An array in block-shared memory.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SharedArray {
    /// Name (an identifier, unique among the kernel's names).
    pub name: String,
    /// Element type (any storable type: not `bool`).
    pub elem: ScalarType,
    /// Number of elements (non-zero).
    pub len: u32,
    /// Alignment of the array's start in bytes: a power of two, at least the element size.
    pub align: u32,
}

impl SharedArray {
    /// Size in bytes (`None` for an ill-typed element type).
    pub fn size_bytes(&self) -> Option<u64> {
        Some(u64::from(self.elem.size_bytes()?) * u64::from(self.len))
    }
}

/// A mutable, thread-private local variable. Locals start as zero.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LocalVar {
    /// Name (an identifier, unique among the kernel's names).
    pub name: String,
    /// Type.
    pub ty: ScalarType,
}

/// The declared type of a value. The statement that defines the value must produce this type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ValueInfo {
    /// The value's type.
    pub ty: ScalarType,
}

/// A handle to a parameter.
pub type ParamId = Handle<Param>;
/// A handle to a shared array.
pub type SharedId = Handle<SharedArray>;
/// A handle to a mutable local.
pub type LocalId = Handle<LocalVar>;
/// A handle to an immutable value (an SSA-style register).
pub type Value = Handle<ValueInfo>;

/// A compute kernel: one-dimensional grid of blocks of `block_size` threads.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Kernel {
    /// Entry-point name (an identifier).
    pub name: String,
    /// Threads per block: a multiple of 32 in `32..=1024`, so that warps are always full.
    pub block_size: u32,
    /// The block's shape `[x, y, z]` when it has more than one dimension (their product is
    /// `block_size`); `None` for a one-dimensional block of `block_size` threads. See
    /// [`Kernel::block_dims`].
    pub block_shape: Option<[u32; 3]>,
    /// Parameters, in launch order.
    pub params: Arena<Param>,
    /// Shared arrays, in declaration order.
    pub shared: Arena<SharedArray>,
    /// Mutable locals.
    pub locals: Arena<LocalVar>,
    /// Every value's declared type; each is defined by exactly one statement of `body`.
    pub values: Arena<ValueInfo>,
    /// The statements.
    pub body: Block,
    /// Where statements came from in the Rust source, by statement path (empty when unknown).
    pub locs: SourceLocs,
}

impl Kernel {
    /// The block's dimensions `[x, y, z]`: [`Kernel::block_shape`], or `[block_size, 1, 1]`.
    pub fn block_dims(&self) -> [u32; 3] {
        self.block_shape.unwrap_or([self.block_size, 1, 1])
    }

    /// Whether any statement reads a special value for which `wanted` holds.
    pub fn uses_special(&self, wanted: impl Fn(crate::Special) -> bool) -> bool {
        use crate::stmt::Stmt;
        let mut stack: Vec<&crate::stmt::Block> = vec![&self.body];
        while let Some(block) = stack.pop() {
            for stmt in block {
                match stmt {
                    Stmt::Let {
                        expr: crate::Expr::Special(s),
                        ..
                    } if wanted(*s) => return true,
                    Stmt::If {
                        then_block,
                        else_block,
                        ..
                    } => {
                        stack.push(then_block);
                        stack.push(else_block);
                    }
                    Stmt::Loop { body } => stack.push(body),
                    _ => {}
                }
            }
        }
        false
    }

    /// Whether the kernel reads the grid's shape (a per-dimension block index or grid size): only
    /// then is a launch's grid more than its number of blocks, and the emitters compute the linear
    /// block index from the coordinates.
    pub fn uses_grid_dims(&self) -> bool {
        use crate::Special as S;
        self.uses_special(|s| {
            matches!(
                s,
                S::BlockIndexX
                    | S::BlockIndexY
                    | S::BlockIndexZ
                    | S::GridSizeX
                    | S::GridSizeY
                    | S::GridSizeZ
            )
        })
    }

    /// The byte offset of each shared array when they are laid out in declaration order, each at its
    /// alignment. `None` on overflow or an unstorable element type.
    pub fn shared_offsets(&self) -> Option<Vec<u64>> {
        let mut offset: u64 = 0;
        let mut offsets = Vec::with_capacity(self.shared.len());
        for (_, array) in self.shared.iter() {
            let align = u64::from(array.align.max(1));
            offset = offset.checked_add(align - 1)? / align * align;
            offsets.push(offset);
            offset = offset.checked_add(array.size_bytes()?)?;
        }
        Some(offsets)
    }

    /// Total bytes of shared memory the kernel declares, laid out as [`Kernel::shared_offsets`].
    pub fn shared_bytes(&self) -> Option<u64> {
        let offsets = self.shared_offsets()?;
        match self.shared.iter().last() {
            Some((_, last)) => offsets.last()?.checked_add(last.size_bytes()?),
            None => Some(0),
        }
    }

    /// The declared type of `value`, if the handle is in range.
    pub fn value_type(&self, value: Value) -> Option<ScalarType> {
        self.values.get(value).map(|info| info.ty)
    }
}
