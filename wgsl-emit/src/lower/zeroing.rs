//! Zeroing workgroup memory at entry with a loop, for the targets that do not zero it themselves.
//!
//! WGSL zeroes workgroup memory before a workgroup starts, so a kernel's WGSL computes the same on
//! every device whether or not the kernel reads memory before writing it. Written to SPIR-V, that
//! guarantee has to be in the code. naga's own polyfill
//! (`ZeroInitializeWorkgroupMemoryMode::Polyfill`) stores one zero constant of each variable's whole
//! type from invocation 0; Mesa's lavapipe turns such a store of an `array<u32, 2048>` into 2048 stores
//! in straight-line code, and LLVM then took about 110 s to compile each LZ4 compress kernel (4 s with
//! this loop: `scripts/test-times.sh`, the SPIR-V tests). Here every invocation zeroes the elements
//! `local_index, local_index + workgroup_size, …` of each array (and invocation 0 a variable that is not
//! an array), then a workgroup barrier orders the zeros before anything the kernel does: what Mesa's
//! own lowering of `VK_KHR_zero_initialize_workgroup_memory` does.

use naga::{AddressSpace, ArraySize, BinaryOperator, BuiltIn, Expression, Statement, TypeInner};
use warpforge_ir::ScalarType;

use super::builder::Builder;

impl Builder {
    /// Zeroes every workgroup variable declared so far (see the [module docs](self)), then places a
    /// workgroup barrier. (The lowering declares arrays of scalars or atomics only; any other variable
    /// is stored whole by invocation 0, which naga's validation refuses if it holds an atomic.)
    pub fn zero_workgroup_memory(&mut self, workgroup_size: u32) {
        let vars: Vec<_> = self
            .module
            .global_variables
            .iter()
            .filter(|(_, var)| var.space == AddressSpace::WorkGroup)
            .map(|(h, var)| (h, var.ty))
            .collect();
        if vars.is_empty() {
            return;
        }
        let lid = self.builtin_arg("local_index", BuiltIn::LocalInvocationIndex, false);
        for (var, ty) in vars {
            let pointer = self.global_expr(var);
            let array = match self.module.types[ty].inner {
                TypeInner::Array {
                    base,
                    size: ArraySize::Constant(len),
                    ..
                } => Some((base, len)),
                _ => None,
            };
            match array.and_then(|(base, len)| Some((self.element_zero_type(base)?, len))) {
                Some((zero_ty, len)) => {
                    let zero = self.emit(Expression::ZeroValue(zero_ty));
                    let (len, step) = (self.u32(len.get()), self.u32(workgroup_size));
                    let index = self.temp("wf_zero_index", ScalarType::U32);
                    self.push(Statement::Store {
                        pointer: index,
                        value: lid,
                    });
                    self.open();
                    let at = self.load(index);
                    let done = self.binary(BinaryOperator::GreaterEqual, at, len);
                    self.if_then(done, |b| b.push(Statement::Break));
                    let element = self.index(pointer, at);
                    self.push(Statement::Store {
                        pointer: element,
                        value: zero,
                    });
                    let next = self.binary(BinaryOperator::Add, at, step);
                    self.push(Statement::Store {
                        pointer: index,
                        value: next,
                    });
                    let body = self.close();
                    self.push(Statement::Loop {
                        body,
                        continuing: naga::Block::new(),
                        break_if: None,
                    });
                }
                None => {
                    let zero_ty = self.element_zero_type(ty).unwrap_or(ty);
                    let zero = self.emit(Expression::ZeroValue(zero_ty));
                    let first = self.u32(0);
                    let is_first = self.binary(BinaryOperator::Equal, lid, first);
                    self.if_then(is_first, |b| {
                        b.push(Statement::Store {
                            pointer,
                            value: zero,
                        })
                    });
                }
            }
        }
        self.barrier();
    }

    /// The type of the zero to store into an element of type `ty`, when it is a scalar, a vector or an
    /// atomic (whose store takes its plain scalar).
    fn element_zero_type(
        &mut self,
        ty: naga::Handle<naga::Type>,
    ) -> Option<naga::Handle<naga::Type>> {
        match self.module.types[ty].inner {
            TypeInner::Scalar(_) | TypeInner::Vector { .. } => Some(ty),
            TypeInner::Atomic(scalar) => Some(self.scalar_type(scalar)),
            _ => None,
        }
    }
}
