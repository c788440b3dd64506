//! IR → `naga::Module`. `mod.rs` owns the module skeleton (globals, entry point, prologue) and the walk
//! over statements and structured control flow; `builder.rs` the naga plumbing (types, emitting
//! expressions, blocks); `expr.rs`, `memory.rs` and `warp.rs` lower what their names say.
//!
//! Every IR value becomes one naga expression, emitted where the IR statement stands and named `vN`
//! after the IR value, so the WGSL reads like the `.wfir` text. IR structured control flow maps one to
//! one onto naga's (`if`, `loop` with an empty continuing block, `break`, `continue`, `return`).

mod builder;
mod convert;
mod expr;
mod half;
mod memory;
mod subgroup;
mod warp;
mod zeroing;

use naga::{AddressSpace, Binding, BuiltIn, Expression, ResourceBinding, Span, Statement};
use warpforge_ir::{Access, Kernel, MemRef, ParamKind, ScalarType, Stmt, Verified};

use self::builder::Builder;
use self::memory::{ArrayVar, Repr};
use crate::layout::{BufferBinding, ParamMember, ParamsLayout, Requirements, WarpLowering, Wgsl};

/// The naga module of a kernel, with the launch layout (its `source` is filled in by the caller after
/// validation).
pub(crate) struct Lowered {
    pub module: naga::Module,
    pub layout: Wgsl,
    /// The naga expression of each IR value.
    pub values: Vec<Option<naga::Handle<Expression>>>,
}

/// Lowers a verified kernel (for WGSL, which zeroes workgroup memory itself).
pub(crate) fn lower(kernel: &Verified<'_>, warps: WarpLowering) -> Lowered {
    lower_with(kernel, false, warps)
}

/// Lowers a verified kernel whose code must zero its workgroup memory at entry (SPIR-V: see
/// [`zeroing`]).
pub(crate) fn lower_zeroing_workgroup(kernel: &Verified<'_>) -> Lowered {
    lower_with(kernel, true, WarpLowering::Emulated)
}

fn lower_with(kernel: &Verified<'_>, zero_workgroup: bool, warps: WarpLowering) -> Lowered {
    let kernel = kernel.kernel();
    let mut b = Builder::new(kernel);
    let buffers = declare_buffers(&mut b, kernel);
    let params = declare_params(&mut b, kernel);
    let shared = declare_shared(&mut b, kernel);
    let scratch = match warps {
        WarpLowering::Emulated => warp::Scratch::declare(&mut b, kernel),
        WarpLowering::Subgroups { .. } => warp::Scratch::none(),
    };
    let mut l = Lowerer {
        b,
        kernel,
        buffers,
        shared,
        params,
        scratch,
        warps,
        block_index: None,
    };
    if zero_workgroup {
        l.b.zero_workgroup_memory(kernel.block_size);
    }
    l.prologue();
    l.block(&kernel.body);
    let values = l.b.value_expressions();
    let (module, int64) = l.b.finish(&kernel.name, kernel.block_size);
    let layout = Wgsl {
        source: String::new(),
        entry_point: kernel.name.clone(),
        workgroup_size: kernel.block_size,
        buffers: l
            .buffers
            .iter()
            .flatten()
            .map(|(binding, _)| binding.clone())
            .collect(),
        params: l.params.layout.clone(),
        requirements: Requirements {
            workgroup_storage_bytes: workgroup_bytes(&module),
            invocations_per_workgroup: kernel.block_size,
            storage_buffers: l.buffers.iter().flatten().count() as u32,
            shader_int64: int64,
        },
        warps,
    };
    Lowered {
        module,
        layout,
        values,
    }
}

/// Bytes of workgroup memory the module declares (each variable at its alignment).
fn workgroup_bytes(module: &naga::Module) -> u32 {
    let mut layouter = naga::proc::Layouter::default();
    if layouter.update(module.to_ctx()).is_err() {
        return u32::MAX;
    }
    let mut offset = 0u32;
    for (_, var) in module.global_variables.iter() {
        if var.space == AddressSpace::WorkGroup {
            let layout = layouter[var.ty];
            offset = layout.alignment.round_up(offset) + layout.size;
        }
    }
    offset
}

/// The uniform parameter block: one member per scalar parameter, then the grid size.
pub(crate) struct Params {
    var: naga::Handle<naga::GlobalVariable>,
    /// Member index of each parameter (scalars only).
    member: Vec<Option<u32>>,
    grid_member: u32,
    layout: ParamsLayout,
}

fn declare_buffers(b: &mut Builder, kernel: &Kernel) -> Vec<Option<(BufferBinding, ArrayVar)>> {
    let atomics = memory::arrays_with_atomics(kernel);
    let mut binding = 0;
    kernel
        .params
        .iter()
        .map(|(h, p)| {
            let ParamKind::Buffer { elem, access } = p.kind else {
                return None;
            };
            let repr = Repr::choose(
                elem,
                atomics.contains(&MemRef::Global(h)),
                access == Access::ReadWrite,
            );
            let base = repr.word_type(b, elem);
            let ty = b.array_type(base, None);
            let mut storage = naga::StorageAccess::LOAD;
            if access == Access::ReadWrite {
                storage |= naga::StorageAccess::STORE;
            }
            let var = b.global(
                &p.name,
                AddressSpace::Storage { access: storage },
                ty,
                Some(binding),
            );
            let bb = BufferBinding {
                binding,
                name: p.name.clone(),
                elem,
                access,
            };
            binding += 1;
            Some((
                bb,
                ArrayVar {
                    var,
                    elem,
                    repr,
                    slots: None,
                },
            ))
        })
        .collect()
}

fn declare_params(b: &mut Builder, kernel: &Kernel) -> Params {
    let mut members = Vec::new();
    let mut layout_members = Vec::new();
    let mut member = Vec::new();
    let mut offset = 0u32;
    for (_, p) in kernel.params.iter() {
        let ParamKind::Scalar(t) = p.kind else {
            member.push(None);
            continue;
        };
        let size = if matches!(t, ScalarType::U64 | ScalarType::I64) {
            8
        } else {
            4
        };
        offset = offset.div_ceil(size) * size;
        member.push(Some(members.len() as u32));
        let ty = b.value_type(if t == ScalarType::Bool {
            ScalarType::U32
        } else {
            t
        });
        members.push(naga::StructMember {
            name: Some(p.name.clone()),
            ty,
            binding: None,
            offset,
        });
        layout_members.push(ParamMember {
            name: p.name.clone(),
            ty: t,
            offset,
        });
        offset += size;
    }
    let grid_member = members.len() as u32;
    let grid_offset = offset.div_ceil(4) * 4;
    let u32_ty = b.value_type(ScalarType::U32);
    members.push(naga::StructMember {
        name: Some("grid_blocks".into()),
        ty: u32_ty,
        binding: None,
        offset: grid_offset,
    });
    // A kernel that reads the grid's shape also gets its x and y extents (z is the rest).
    let grid_dims_offset = kernel.uses_grid_dims().then(|| {
        for (k, name) in ["grid_x", "grid_y"].into_iter().enumerate() {
            members.push(naga::StructMember {
                name: Some(name.into()),
                ty: u32_ty,
                binding: None,
                offset: grid_offset + 4 + 4 * k as u32,
            });
        }
        grid_offset + 4
    });
    let end = grid_dims_offset.map_or(grid_offset + 4, |at| at + 8);
    let size = end.div_ceil(16) * 16;
    let ty = b.struct_type("Params", members, size);
    let binding = kernel
        .params
        .iter()
        .filter(|(_, p)| matches!(p.kind, ParamKind::Buffer { .. }))
        .count() as u32;
    let var = b.global("params", AddressSpace::Uniform, ty, Some(binding));
    Params {
        var,
        member,
        grid_member,
        layout: ParamsLayout {
            binding,
            size,
            members: layout_members,
            grid_blocks_offset: grid_offset,
            grid_dims_offset,
        },
    }
}

fn declare_shared(b: &mut Builder, kernel: &Kernel) -> Vec<ArrayVar> {
    let atomics = memory::arrays_with_atomics(kernel);
    kernel
        .shared
        .iter()
        .map(|(h, s)| {
            let repr = Repr::choose(s.elem, atomics.contains(&MemRef::Shared(h)), true);
            let base = repr.word_type(b, s.elem);
            let words = repr.words_for(s.len);
            let ty = b.array_type(base, Some(words));
            let var = b.global(&s.name, AddressSpace::WorkGroup, ty, None);
            ArrayVar {
                var,
                elem: s.elem,
                repr,
                slots: Some(words),
            }
        })
        .collect()
}

pub(crate) struct Lowerer<'k> {
    b: Builder,
    kernel: &'k Kernel,
    buffers: Vec<Option<(BufferBinding, ArrayVar)>>,
    shared: Vec<ArrayVar>,
    params: Params,
    scratch: warp::Scratch,
    warps: WarpLowering,
    /// The linear block index, computed in the prologue.
    block_index: Option<naga::Handle<Expression>>,
}

impl Lowerer<'_> {
    /// Computes the linear block index from the (possibly two-dimensional) workgroup id and returns
    /// from workgroups past the grid (a workgroup-uniform condition).
    fn prologue(&mut self) {
        let b = &mut self.b;
        let wid = b.builtin_arg("workgroup_id", BuiltIn::WorkGroupId, true);
        let nwg = b.builtin_arg("num_workgroups", BuiltIn::NumWorkGroups, true);
        let (wx, wy) = (
            b.emit(Expression::AccessIndex {
                base: wid,
                index: 0,
            }),
            b.emit(Expression::AccessIndex {
                base: wid,
                index: 1,
            }),
        );
        let nx = b.emit(Expression::AccessIndex {
            base: nwg,
            index: 0,
        });
        let row = b.binary(naga::BinaryOperator::Multiply, wy, nx);
        let index = b.binary(naga::BinaryOperator::Add, row, wx);
        b.name(index, "block_index");
        let grid = self.param_member(self.params.grid_member);
        let past = self
            .b
            .binary(naga::BinaryOperator::GreaterEqual, index, grid);
        let mut exit = naga::Block::new();
        exit.push(Statement::Return { value: None }, Span::UNDEFINED);
        self.b.push(Statement::If {
            condition: past,
            accept: exit,
            reject: naga::Block::new(),
        });
        self.block_index = Some(index);
    }

    /// Loads member `member` of the uniform parameter block.
    fn param_member(&mut self, member: u32) -> naga::Handle<Expression> {
        let var = self.b.global_expr(self.params.var);
        let ptr = self.b.emit(Expression::AccessIndex {
            base: var,
            index: member,
        });
        self.b.emit(Expression::Load { pointer: ptr })
    }

    fn block(&mut self, block: &[Stmt]) {
        for stmt in block {
            self.stmt(stmt);
        }
    }

    fn nested(&mut self, block: &[Stmt]) -> naga::Block {
        self.b.open();
        self.block(block);
        self.b.close()
    }

    fn stmt(&mut self, stmt: &Stmt) {
        match stmt {
            Stmt::Let { value, expr } => self.let_expr(*value, expr),
            Stmt::Assign { local, value } => {
                let ptr = self.b.local_ptr(*local);
                let v = self.b.value(*value);
                self.b.push(Statement::Store {
                    pointer: ptr,
                    value: v,
                });
            }
            Stmt::Load {
                value,
                array,
                index,
            } => self.load(*value, *array, *index),
            Stmt::Store {
                array,
                index,
                value,
            } => self.store(*array, *index, *value),
            Stmt::LoadByte {
                value,
                array,
                index,
            } => self.load_byte(*value, *array, *index),
            Stmt::StoreByte {
                array,
                index,
                value,
            } => self.store_byte(*array, *index, *value),
            Stmt::LoadWide {
                values,
                array,
                index,
            } => self.load_wide(values, *array, *index),
            Stmt::StoreWide {
                array,
                index,
                values,
            } => self.store_wide(*array, *index, values),
            Stmt::Atomic {
                value,
                op,
                array,
                index,
                operand,
                compare,
            } => self.atomic(*value, *op, *array, *index, *operand, *compare),
            Stmt::If {
                cond,
                then_block,
                else_block,
            } => {
                let condition = self.b.value(*cond);
                let accept = self.nested(then_block);
                let reject = self.nested(else_block);
                self.b.push(Statement::If {
                    condition,
                    accept,
                    reject,
                });
            }
            Stmt::Loop { body } => {
                let body = self.nested(body);
                self.b.push(Statement::Loop {
                    body,
                    continuing: naga::Block::new(),
                    break_if: None,
                });
            }
            Stmt::Break => self.b.push(Statement::Break),
            Stmt::Continue => self.b.push(Statement::Continue),
            Stmt::Return => self.b.push(Statement::Return { value: None }),
            Stmt::Barrier => {
                let both = naga::Barrier::STORAGE | naga::Barrier::WORK_GROUP;
                self.b.push(Statement::ControlBarrier(both));
            }
            Stmt::Warp(op) => self.warp(op),
        }
    }
}

/// The builtin binding of an entry-point argument.
pub(crate) fn builtin(b: BuiltIn) -> Option<Binding> {
    Some(Binding::BuiltIn(b))
}

/// Group 0 binding `n`.
pub(crate) fn group0(n: u32) -> ResourceBinding {
    ResourceBinding {
        group: 0,
        binding: n,
    }
}
