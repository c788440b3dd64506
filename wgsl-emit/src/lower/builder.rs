//! naga plumbing: types, globals, entry-point arguments, appending and emitting expressions, the block
//! stack, and the map from IR values to naga expressions.

use naga::{
    AddressSpace, ArraySize, BuiltIn, Expression, Handle, Literal, LocalVariable, Scalar,
    ShaderStage, Span, Statement, Type, TypeInner,
};
use warpforge_ir::{Kernel, LocalId, ScalarType, Value};

use super::{builtin, group0};

/// Builds one module with one compute entry point.
pub(crate) struct Builder {
    pub(super) module: naga::Module,
    func: naga::Function,
    blocks: Vec<naga::Block>,
    values: Vec<Option<Handle<Expression>>>,
    locals: Vec<Handle<LocalVariable>>,
    /// Entry-point arguments already declared: (builtin, expression).
    args: Vec<(BuiltIn, Handle<Expression>)>,
    uses_int64: bool,
}

/// The WGSL scalar that holds an IR type (8/16-bit integers and the bits of `f16`/`bf16` live in
/// `u32`; `f64` never reaches the lowering: `emit` refuses it first).
pub(crate) fn scalar_of(t: ScalarType) -> Scalar {
    match t {
        ScalarType::Bool => Scalar::BOOL,
        ScalarType::U8 | ScalarType::U16 | ScalarType::U32 | ScalarType::F16 | ScalarType::BF16 => {
            Scalar::U32
        }
        ScalarType::F64 => Scalar::F64,
        ScalarType::I32 => Scalar::I32,
        ScalarType::U64 => Scalar::U64,
        ScalarType::I64 => Scalar::I64,
        ScalarType::F32 => Scalar::F32,
    }
}

impl Builder {
    /// A builder with the kernel's locals declared (zero-initialized) and its value table sized.
    pub fn new(kernel: &Kernel) -> Builder {
        let mut b = Builder {
            module: naga::Module::default(),
            func: naga::Function::default(),
            blocks: vec![naga::Block::new()],
            values: vec![None; kernel.values.len()],
            locals: Vec::new(),
            args: Vec::new(),
            uses_int64: false,
        };
        for (_, local) in kernel.locals.iter() {
            let ty = b.value_type(local.ty);
            let zero = b
                .func
                .expressions
                .append(Expression::ZeroValue(ty), Span::UNDEFINED);
            let var = LocalVariable {
                name: Some(local.name.clone()),
                ty,
                init: Some(zero),
            };
            b.locals
                .push(b.func.local_variables.append(var, Span::UNDEFINED));
        }
        b
    }

    /// The naga expression of every IR value (by value index), for analyses of the emitted module.
    pub fn value_expressions(&self) -> Vec<Option<Handle<Expression>>> {
        self.values.clone()
    }

    /// The module with its entry point, and whether it uses 64-bit integers.
    pub fn finish(mut self, name: &str, workgroup_size: u32) -> (naga::Module, bool) {
        debug_assert_eq!(self.blocks.len(), 1, "a nested block was not closed");
        self.func.body = self.blocks.pop().unwrap_or_default();
        self.func.name = Some(name.to_owned());
        self.module.entry_points.push(naga::EntryPoint {
            name: name.to_owned(),
            stage: ShaderStage::Compute,
            early_depth_test: None,
            workgroup_size: [workgroup_size, 1, 1],
            workgroup_size_overrides: None,
            function: self.func,
            mesh_info: None,
            task_payload: None,
            incoming_ray_payload: None,
        });
        (self.module, self.uses_int64)
    }

    // ---- types and globals ----------------------------------------------------------------------

    pub fn scalar_type(&mut self, scalar: Scalar) -> Handle<Type> {
        if scalar.width == 8 {
            self.uses_int64 = true;
        }
        self.module.types.insert(
            Type {
                name: None,
                inner: TypeInner::Scalar(scalar),
            },
            Span::UNDEFINED,
        )
    }

    /// The type holding values of IR type `t`.
    pub fn value_type(&mut self, t: ScalarType) -> Handle<Type> {
        self.scalar_type(scalar_of(t))
    }

    pub fn atomic_u32_type(&mut self) -> Handle<Type> {
        self.module.types.insert(
            Type {
                name: None,
                inner: TypeInner::Atomic(Scalar::U32),
            },
            Span::UNDEFINED,
        )
    }

    /// `array<base, len>`, or a runtime-sized `array<base>` when `len` is `None`.
    pub fn array_type(&mut self, base: Handle<Type>, len: Option<u32>) -> Handle<Type> {
        let stride = match self.module.types[base].inner {
            TypeInner::Scalar(s) | TypeInner::Atomic(s) => u32::from(s.width),
            _ => 4,
        };
        let size = match len.and_then(std::num::NonZeroU32::new) {
            Some(n) => ArraySize::Constant(n),
            None => ArraySize::Dynamic,
        };
        self.module.types.insert(
            Type {
                name: None,
                inner: TypeInner::Array { base, size, stride },
            },
            Span::UNDEFINED,
        )
    }

    pub fn struct_type(
        &mut self,
        name: &str,
        members: Vec<naga::StructMember>,
        span: u32,
    ) -> Handle<Type> {
        let inner = TypeInner::Struct { members, span };
        self.module.types.insert(
            Type {
                name: Some(name.to_owned()),
                inner,
            },
            Span::UNDEFINED,
        )
    }

    /// A module-scope variable; `binding` puts it in group 0.
    pub fn global(
        &mut self,
        name: &str,
        space: AddressSpace,
        ty: Handle<Type>,
        binding: Option<u32>,
    ) -> Handle<naga::GlobalVariable> {
        let var = naga::GlobalVariable {
            name: Some(name.to_owned()),
            space,
            binding: binding.map(group0),
            ty,
            init: None,
            memory_decorations: Default::default(),
        };
        self.module.global_variables.append(var, Span::UNDEFINED)
    }

    pub fn global_expr(&mut self, var: Handle<naga::GlobalVariable>) -> Handle<Expression> {
        self.emit(Expression::GlobalVariable(var))
    }

    /// The entry-point argument for a builtin, declared on first use.
    pub fn builtin_arg(&mut self, name: &str, which: BuiltIn, vec3: bool) -> Handle<Expression> {
        if let Some(&(_, h)) = self.args.iter().find(|(b, _)| *b == which) {
            return h;
        }
        let inner = if vec3 {
            TypeInner::Vector {
                size: naga::VectorSize::Tri,
                scalar: Scalar::U32,
            }
        } else {
            TypeInner::Scalar(Scalar::U32)
        };
        let ty = self
            .module
            .types
            .insert(Type { name: None, inner }, Span::UNDEFINED);
        let index = self.func.arguments.len() as u32;
        self.func.arguments.push(naga::FunctionArgument {
            name: Some(name.to_owned()),
            ty,
            binding: builtin(which),
        });
        let h = self
            .func
            .expressions
            .append(Expression::FunctionArgument(index), Span::UNDEFINED);
        self.args.push((which, h));
        h
    }

    // ---- expressions --------------------------------------------------------------------------

    /// Appends an expression and emits it in the current block when naga requires it.
    pub fn emit(&mut self, expr: Expression) -> Handle<Expression> {
        let pre = expr.needs_pre_emit();
        let h = self.func.expressions.append(expr, Span::UNDEFINED);
        if !pre {
            self.push(Statement::Emit(naga::Range::new_from_bounds(h, h)));
        }
        h
    }

    pub fn literal(&mut self, lit: Literal) -> Handle<Expression> {
        if matches!(lit, Literal::U64(_) | Literal::I64(_)) {
            self.uses_int64 = true;
        }
        self.emit(Expression::Literal(lit))
    }

    pub fn u32(&mut self, v: u32) -> Handle<Expression> {
        self.literal(Literal::U32(v))
    }

    pub fn binary(
        &mut self,
        op: naga::BinaryOperator,
        left: Handle<Expression>,
        right: Handle<Expression>,
    ) -> Handle<Expression> {
        self.emit(Expression::Binary { op, left, right })
    }

    pub fn load(&mut self, pointer: Handle<Expression>) -> Handle<Expression> {
        self.emit(Expression::Load { pointer })
    }

    pub fn select(
        &mut self,
        condition: Handle<Expression>,
        accept: Handle<Expression>,
        reject: Handle<Expression>,
    ) -> Handle<Expression> {
        self.emit(Expression::Select {
            condition,
            accept,
            reject,
        })
    }

    /// Converts (`bits == false`) or reinterprets (`bits == true`) to `to`.
    pub fn cast(&mut self, expr: Handle<Expression>, to: Scalar, bits: bool) -> Handle<Expression> {
        if to.width == 8 {
            self.uses_int64 = true;
        }
        self.emit(Expression::As {
            expr,
            kind: to.kind,
            convert: if bits { None } else { Some(to.width) },
        })
    }

    pub fn math(
        &mut self,
        fun: naga::MathFunction,
        arg: Handle<Expression>,
        arg1: Option<Handle<Expression>>,
    ) -> Handle<Expression> {
        self.emit(Expression::Math {
            fun,
            arg,
            arg1,
            arg2: None,
            arg3: None,
        })
    }

    /// A pointer to element `index` of the array behind `base`.
    pub fn index(
        &mut self,
        base: Handle<Expression>,
        index: Handle<Expression>,
    ) -> Handle<Expression> {
        self.emit(Expression::Access { base, index })
    }

    /// Names an expression in the output (`let name = …`).
    pub fn name(&mut self, h: Handle<Expression>, name: &str) {
        self.func.named_expressions.insert(h, name.to_owned());
    }

    /// Records the expression of an IR value, naming it `vN` when it is a computed expression.
    pub fn set_value(&mut self, v: Value, h: Handle<Expression>) {
        if !self.func.expressions[h].needs_pre_emit()
            && !self.func.named_expressions.contains_key(&h)
        {
            self.name(h, &format!("v{}", v.index()));
        }
        self.values[v.index()] = Some(h);
    }

    /// The expression of a defined IR value (the verifier guarantees definition before use).
    pub fn value(&self, v: Value) -> Handle<Expression> {
        self.values[v.index()].expect("verified IR defines every value before its uses")
    }

    pub fn local_ptr(&mut self, l: LocalId) -> Handle<Expression> {
        let var = self.locals[l.index()];
        self.emit(Expression::LocalVariable(var))
    }

    /// A fresh function-scope variable holding `value`, set at this point of the program (a variable's
    /// initializer runs once, at function entry, and this may be inside a loop).
    pub fn temp_with(&mut self, name: &str, value: Literal) -> Handle<Expression> {
        let ty = self.scalar_type(value.scalar());
        let init = self
            .func
            .expressions
            .append(Expression::ZeroValue(ty), Span::UNDEFINED);
        let var = self.func.local_variables.append(
            LocalVariable {
                name: Some(name.to_owned()),
                ty,
                init: Some(init),
            },
            Span::UNDEFINED,
        );
        let ptr = self.emit(Expression::LocalVariable(var));
        let v = self.literal(value);
        self.push(Statement::Store {
            pointer: ptr,
            value: v,
        });
        ptr
    }

    /// A fresh function-scope variable of IR type `t`, set to zero at this point of the program.
    pub fn temp(&mut self, name: &str, t: ScalarType) -> Handle<Expression> {
        self.temp_with(name, super::expr::literal_of(t, 0))
    }

    /// The result expression of an atomic statement (defined by the statement, so never emitted).
    pub fn atomic_result(&mut self, ty: Handle<Type>, comparison: bool) -> Handle<Expression> {
        self.func
            .expressions
            .append(Expression::AtomicResult { ty, comparison }, Span::UNDEFINED)
    }

    pub fn compare_exchange_type(&mut self) -> Handle<Type> {
        self.module.generate_predeclared_type(
            naga::PredeclaredType::AtomicCompareExchangeWeakResult(Scalar::U32),
        )
    }

    /// The result expression of a `workgroupUniformLoad` (defined by the statement, never emitted).
    pub fn uniform_load_result(&mut self, ty: Handle<Type>) -> Handle<Expression> {
        self.func.expressions.append(
            Expression::WorkGroupUniformLoadResult { ty },
            Span::UNDEFINED,
        )
    }

    /// The result expression of a subgroup gather of a `ty` (defined by the statement, never
    /// emitted).
    pub fn subgroup_result(&mut self, ty: Handle<Type>) -> Handle<Expression> {
        self.func
            .expressions
            .append(Expression::SubgroupOperationResult { ty }, Span::UNDEFINED)
    }

    /// The result expression of a subgroup ballot, a `vec4<u32>` (defined by the statement).
    pub fn ballot_result(&mut self) -> Handle<Expression> {
        self.func
            .expressions
            .append(Expression::SubgroupBallotResult, Span::UNDEFINED)
    }

    // ---- statements and blocks ----------------------------------------------------------------

    pub fn push(&mut self, stmt: Statement) {
        self.blocks
            .last_mut()
            .expect("the body block is always open")
            .push(stmt, Span::UNDEFINED);
    }

    /// Opens a nested block; statements go there until [`Builder::close`].
    pub fn open(&mut self) {
        self.blocks.push(naga::Block::new());
    }

    pub fn close(&mut self) -> naga::Block {
        self.blocks.pop().unwrap_or_default()
    }

    /// `if cond { f }`.
    pub fn if_then(&mut self, condition: Handle<Expression>, f: impl FnOnce(&mut Self)) {
        self.open();
        f(self);
        let accept = self.close();
        self.push(Statement::If {
            condition,
            accept,
            reject: naga::Block::new(),
        });
    }

    pub fn barrier(&mut self) {
        self.push(Statement::ControlBarrier(naga::Barrier::WORK_GROUP));
    }
}
