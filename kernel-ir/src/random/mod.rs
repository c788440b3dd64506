//! Random well-typed kernels for property tests and fuzzing.
//!
//! [`random_kernel`] turns a byte string into a kernel that always verifies: the bytes are read as a
//! sequence of choices (an exhausted string reads as zeros), so proptest can shrink a failing case by
//! shrinking its bytes. Operators and types are drawn by asking [`crate::typing`] which combinations are
//! legal, so the generator and the verifier cannot drift apart. The kernels are not meant to compute
//! anything useful, nor to be free of divergence hazards; they cover the whole statement language.
//!
//! [`random_defined_kernel`] draws from the same generator with the choices that make a result
//! well-defined far more likely, for differential testing against the simulator: every index is masked
//! into its array; stores mostly and atomics always go to the thread's own slot (atomics only where
//! every thread has one: contended atomics return order-dependent values); loops count their
//! iterations and break after a few; collective masks are full (as a constant or computed at run
//! time); blocks are small enough that the threads of a launch have distinct slots; and every value is
//! folded into a per-thread digest stored to `out`. Whether a given kernel's result *is* defined is the
//! simulator sanitizer's call, not the generator's.

mod declarations;
mod defined;
mod finite;
mod forms;

pub use finite::{finite_bits, finite_f32};
pub use forms::{statement_forms, ALL_FORMS};

use crate::expr::{BinaryOp, CastKind, CmpOp, Expr, Special, UnaryOp};
use crate::kernel::{Kernel, ParamKind, Value, ValueInfo};
use crate::stmt::{AtomicOp, Block, Mask, MemRef, ShuffleMode, Stmt, VoteMode, WarpOp};
use crate::types::{Access, Literal, ScalarType};
use crate::typing::{binary_type, cast_type, unary_type};

/// A kernel built from `choices`; it always passes [`crate::verify()`].
pub fn random_kernel(choices: &[u8]) -> Kernel {
    generate(choices, None, &[])
}

/// [`random_kernel`] drawing its types from every scalar type but `excluded` (the WGSL-side tests
/// exclude `f64`, which WGSL lacks).
pub fn random_kernel_without(choices: &[u8], excluded: &[ScalarType]) -> Kernel {
    generate(choices, None, excluded)
}

/// A kernel built from `choices` whose result is likely well-defined when every global buffer holds
/// `buffer_elements` elements and the grid has at most 3 blocks (see the module docs); it always passes
/// [`crate::verify()`].
pub fn random_defined_kernel(choices: &[u8], buffer_elements: u32) -> Kernel {
    generate(choices, Some(buffer_elements.max(1)), &[])
}

/// [`random_defined_kernel`] drawing its types from every scalar type but `excluded` (the WebGPU
/// differential test excludes `f64`, which WGSL lacks).
pub fn random_defined_kernel_without(
    choices: &[u8],
    buffer_elements: u32,
    excluded: &[ScalarType],
) -> Kernel {
    generate(choices, Some(buffer_elements.max(1)), excluded)
}

fn generate(choices: &[u8], defined: Option<u32>, excluded: &[ScalarType]) -> Kernel {
    let types: Vec<ScalarType> = ScalarType::ALL
        .into_iter()
        .filter(|t| !excluded.contains(t))
        .collect();
    let storable: Vec<ScalarType> = types
        .iter()
        .copied()
        .filter(|t| t.size_bytes().is_some())
        .collect();
    let mut g = Gen {
        choices,
        pos: 0,
        kernel: Kernel::default(),
        scopes: vec![Vec::new()],
        loop_depth: 0,
        budget: 48,
        defined,
        // Every type memory holds, and of those the ones comparisons take (the halves are compared
        // by the builder in f32), in `ScalarType::ALL`'s order.
        comparable: storable.iter().copied().filter(|t| !t.is_half()).collect(),
        storable,
        types,
    };
    g.declarations();
    g.kernel.body = g.block(0);
    if defined.is_some() {
        let mut body = std::mem::take(&mut g.kernel.body);
        g.store_digest(&mut body);
        g.kernel.body = body;
    }
    g.kernel
}

/// Loop counters of defined kernels: one local per nesting level, never assigned by random statements.
const LOOP_COUNTERS: [&str; 3] = ["loop0", "loop1", "loop2"];

struct Gen<'c> {
    choices: &'c [u8],
    pos: usize,
    kernel: Kernel,
    /// Values visible in each open block, innermost last.
    scopes: Vec<Vec<Value>>,
    loop_depth: u32,
    budget: u32,
    /// `Some(buffer elements)` for [`random_defined_kernel`].
    defined: Option<u32>,
    /// The scalar types drawn from (all of them, or all but some), and those of them that memory
    /// holds and that comparisons take.
    types: Vec<ScalarType>,
    storable: Vec<ScalarType>,
    comparable: Vec<ScalarType>,
}

impl Gen<'_> {
    fn byte(&mut self) -> u8 {
        let b = self.choices.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        b
    }

    fn below(&mut self, n: usize) -> usize {
        let wide = u16::from_le_bytes([self.byte(), self.byte()]);
        usize::from(wide) % n.max(1)
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }

    fn u64(&mut self) -> u64 {
        let mut bytes = [0u8; 8];
        for b in &mut bytes {
            *b = self.byte();
        }
        u64::from_le_bytes(bytes)
    }

    fn block(&mut self, depth: u32) -> Block {
        self.scopes.push(Vec::new());
        let mut block = Vec::new();
        let len = 1 + self.below(if depth == 0 { 24 } else { 6 });
        for _ in 0..len {
            if self.budget == 0 {
                break;
            }
            self.budget -= 1;
            self.stmt(depth, &mut block);
            if self.defined.is_some() {
                self.fold_last(&mut block);
            }
        }
        self.scopes.pop();
        block
    }

    fn visible_of(&self, ty: ScalarType) -> Vec<Value> {
        self.scopes
            .iter()
            .flatten()
            .copied()
            .filter(|&v| self.kernel.values[v].ty == ty)
            .collect()
    }

    fn define(&mut self, ty: ScalarType) -> Value {
        let v = self.kernel.values.append(ValueInfo { ty });
        self.scopes.last_mut().expect("a scope is open").push(v);
        v
    }

    /// A visible value of `ty`, or a fresh constant of it appended to `out`.
    fn operand(&mut self, ty: ScalarType, out: &mut Block) -> Value {
        let visible = self.visible_of(ty);
        if !visible.is_empty() && self.below(4) != 0 {
            return self.pick(&visible);
        }
        let bits = self.u64();
        let small = self.below(2) == 0;
        let lit = match ty {
            // Small finite floats, or any bit pattern at all (NaN payloads and infinities included).
            ScalarType::F32 if small => Literal::f32(f32::from_bits(bits as u32).clamp(-1e6, 1e6)),
            ScalarType::F64 if small => Literal::f64(f64::from_bits(bits).clamp(-1e6, 1e6)),
            _ if small => Literal::from_bits(ty, bits % 1000),
            // Defined kernels: finite floats only (WGSL lets an implementation assume no NaN or
            // infinity occurs; lavapipe answers `x != x` with false for a NaN).
            t if t.is_float() && self.defined.is_some() => {
                Literal::from_bits(t, finite_bits(t, bits))
            }
            _ => Literal::from_bits(ty, bits),
        };
        let value = self.define(ty);
        out.push(Stmt::Let {
            value,
            expr: Expr::Literal(lit),
        });
        value
    }

    fn let_stmt(&mut self, ty: ScalarType, expr: Expr, out: &mut Block) {
        let value = self.define(ty);
        out.push(Stmt::Let { value, expr });
    }

    /// Arrays matching a filter: (reference, element type).
    fn arrays(&self, writable: bool, elem: Option<ScalarType>) -> Vec<(MemRef, ScalarType)> {
        let mut found = Vec::new();
        for (h, p) in self.kernel.params.iter() {
            if let ParamKind::Buffer { elem: e, access } = p.kind {
                if !writable || access == Access::ReadWrite {
                    found.push((MemRef::Global(h), e));
                }
            }
        }
        for (h, s) in self.kernel.shared.iter() {
            found.push((MemRef::Shared(h), s.elem));
        }
        found.retain(|&(_, e)| elem.is_none_or(|want| want == e));
        found
    }

    fn mask(&mut self, out: &mut Block) -> Mask {
        if self.defined.is_some() {
            if self.below(4) != 0 {
                return Mask::FULL;
            }
            let full = self.define(ScalarType::U32);
            out.push(Stmt::Let {
                value: full,
                expr: Expr::Literal(Literal::U32(u32::MAX)),
            });
            return Mask::Dynamic(full);
        }
        match self.below(4) {
            0 => Mask::Dynamic(self.operand(ScalarType::U32, out)),
            1 => Mask::Const((self.u64() as u32).max(1)),
            _ => Mask::FULL,
        }
    }

    fn stmt(&mut self, depth: u32, out: &mut Block) {
        match self.below(24) {
            0 => {
                let ty = self.pick(&self.types.clone());
                self.operand(ty, out);
            }
            1 => {
                let s = self.pick(Special::ALL);
                self.let_stmt(ScalarType::U32, Expr::Special(s), out);
            }
            2 => {
                let scalars: Vec<_> = self
                    .kernel
                    .params
                    .iter()
                    .filter_map(|(h, p)| match p.kind {
                        ParamKind::Scalar(t) => Some((h, t)),
                        _ => None,
                    })
                    .collect();
                let (h, t) = self.pick(&scalars);
                self.let_stmt(t, Expr::Param(h), out);
            }
            3 => {
                let locals: Vec<_> = self.kernel.locals.iter().map(|(h, l)| (h, l.ty)).collect();
                let (h, t) = self.pick(&locals);
                self.let_stmt(t, Expr::Local(h), out);
            }
            4 | 5 => self.arith(out),
            6 if self.below(3) == 0 => {
                let floats: Vec<_> = [ScalarType::F32, ScalarType::F64]
                    .into_iter()
                    .filter(|t| self.types.contains(t))
                    .collect();
                let t = self.pick(&floats);
                let (a, b, c) = (
                    self.operand(t, out),
                    self.operand(t, out),
                    self.operand(t, out),
                );
                self.let_stmt(t, Expr::MulAdd(a, b, c), out);
            }
            6 if self.below(2) == 0 => {
                let u = ScalarType::U32;
                let (a, b, c) = (
                    self.operand(u, out),
                    self.operand(u, out),
                    self.operand(u, out),
                );
                self.let_stmt(u, Expr::FunnelShr(a, b, c), out);
            }
            6 => {
                let (from, to) = self.pick(&[
                    (ScalarType::U32, ScalarType::U64),
                    (ScalarType::I32, ScalarType::I64),
                ]);
                let (a, b) = (self.operand(from, out), self.operand(from, out));
                self.let_stmt(to, Expr::MulWide(a, b), out);
            }
            7 => {
                let t = self.pick(&self.comparable.clone());
                let op = self.pick(CmpOp::ALL);
                let (a, b) = (self.operand(t, out), self.operand(t, out));
                self.let_stmt(ScalarType::Bool, Expr::Compare(op, a, b), out);
            }
            8 => {
                let t = self.pick(&self.types.clone());
                let cond = self.operand(ScalarType::Bool, out);
                let (a, b) = (self.operand(t, out), self.operand(t, out));
                self.let_stmt(
                    t,
                    Expr::Select {
                        cond,
                        if_true: a,
                        if_false: b,
                    },
                    out,
                );
            }
            9 => self.cast(out),
            10 => {
                let locals: Vec<_> = self
                    .kernel
                    .locals
                    .iter()
                    .filter(|(_, l)| !LOOP_COUNTERS.contains(&l.name.as_str()))
                    .map(|(h, l)| (h, l.ty))
                    .collect();
                let (local, t) = self.pick(&locals);
                let value = self.operand(t, out);
                out.push(Stmt::Assign { local, value });
            }
            11 | 12 => self.memory(out),
            13 if depth < 3 => {
                let cond = self.operand(ScalarType::Bool, out);
                let then_block = self.block(depth + 1);
                let else_block = if self.below(2) == 0 {
                    self.block(depth + 1)
                } else {
                    Vec::new()
                };
                out.push(Stmt::If {
                    cond,
                    then_block,
                    else_block,
                });
            }
            14 if depth < 3 => {
                let mut body = Vec::new();
                self.scopes.push(Vec::new());
                if self.defined.is_some() {
                    self.count_iterations(out, &mut body);
                }
                self.loop_depth += 1;
                body.extend(self.block(depth + 1));
                self.loop_depth -= 1;
                self.scopes.pop();
                out.push(Stmt::Loop { body });
            }
            15 if self.loop_depth > 0 => out.push(if self.below(2) == 0 {
                Stmt::Break
            } else {
                Stmt::Continue
            }),
            16 if self.below(4) == 0 => {
                if self.defined.is_some() {
                    self.store_digest(out);
                }
                out.push(Stmt::Return)
            }
            17 => out.push(Stmt::Barrier),
            18..=21 => self.warp(out),
            _ => self.arith(out),
        }
    }

    fn arith(&mut self, out: &mut Block) {
        for _ in 0..16 {
            let t = self.pick(&self.types.clone());
            if self.below(3) == 0 {
                let op = self.pick(UnaryOp::ALL);
                if let Ok(result) = unary_type(op, t) {
                    let a = self.operand(t, out);
                    return self.let_stmt(result, Expr::Unary(op, a), out);
                }
            } else {
                let op = self.pick(BinaryOp::ALL);
                let rhs_t = if matches!(op, BinaryOp::Shl | BinaryOp::Shr) {
                    ScalarType::U32
                } else {
                    t
                };
                if let Ok(result) = binary_type(op, t, rhs_t) {
                    let (a, b) = (self.operand(t, out), self.operand(rhs_t, out));
                    return self.let_stmt(result, Expr::Binary(op, a, b), out);
                }
            }
        }
    }

    fn cast(&mut self, out: &mut Block) {
        for _ in 0..16 {
            let kind = self.pick(CastKind::ALL);
            let (from, to) = (
                self.pick(&self.types.clone()),
                self.pick(&self.types.clone()),
            );
            if cast_type(kind, from, to).is_ok() {
                let a = self.operand(from, out);
                return self.let_stmt(to, Expr::Cast(kind, a, to), out);
            }
        }
    }

    /// Byte `k` (drawn, 0–3) of element `index` (`u32` or `u64`): `index * 4 + k`.
    fn byte_index(&mut self, index: Value, out: &mut Block) -> Value {
        let ty = self.kernel.values[index].ty;
        let k = self.below(4) as u64;
        let (four, k) = if ty == ScalarType::U64 {
            (Literal::U64(4), Literal::U64(k))
        } else {
            (Literal::U32(4), Literal::U32(k as u32))
        };
        let four = self.value(ty, Expr::Literal(four), out);
        let scaled = self.value(ty, Expr::Binary(BinaryOp::Mul, index, four), out);
        let k = self.value(ty, Expr::Literal(k), out);
        self.value(ty, Expr::Binary(BinaryOp::Add, scaled, k), out)
    }

    fn memory(&mut self, out: &mut Block) {
        match self.below(5) {
            0 => {
                let (array, elem) = self.pick(&self.arrays(false, None));
                let Some(index) = self.index(out, array, 1, 0) else {
                    return;
                };
                if elem == ScalarType::U32 && self.below(3) == 0 {
                    // A byte of the element: `index * 4 + k`, k in 0..4.
                    let index = self.byte_index(index, out);
                    let value = self.define(ScalarType::U32);
                    out.push(Stmt::LoadByte {
                        value,
                        array,
                        index,
                    });
                    return;
                }
                let value = self.define(elem);
                out.push(Stmt::Load {
                    value,
                    array,
                    index,
                });
            }
            1 => {
                let (array, elem) = self.pick(&self.arrays(true, None));
                let Some(index) = self.index(out, array, 1, 3) else {
                    return;
                };
                if elem == ScalarType::U32 && self.below(3) == 0 {
                    let index = self.byte_index(index, out);
                    let value = self.operand(ScalarType::U32, out);
                    out.push(Stmt::StoreByte {
                        array,
                        index,
                        value,
                    });
                    return;
                }
                let value = self.operand(elem, out);
                out.push(Stmt::Store {
                    array,
                    index,
                    value,
                });
            }
            2 => {
                let (array, _) = self.pick(&self.arrays(false, Some(ScalarType::U32)));
                let width = self.pick(&[2, 4]);
                let Some(index) = self.index(out, array, width, 0) else {
                    return;
                };
                let values = (0..width).map(|_| self.define(ScalarType::U32)).collect();
                out.push(Stmt::LoadWide {
                    values,
                    array,
                    index,
                });
            }
            3 => {
                let (array, _) = self.pick(&self.arrays(true, Some(ScalarType::U32)));
                let width = self.pick(&[2, 4]);
                let Some(index) = self.index(out, array, width as u32, 3) else {
                    return;
                };
                let values = (0..width)
                    .map(|_| self.operand(ScalarType::U32, out))
                    .collect();
                out.push(Stmt::StoreWide {
                    array,
                    index,
                    values,
                });
            }
            _ => {
                let (array, _) = self.pick(&self.arrays(true, Some(ScalarType::U32)));
                let op = self.pick(AtomicOp::ALL);
                let Some(index) = self.index(out, array, 1, 4) else {
                    return;
                };
                let operand = self.operand(ScalarType::U32, out);
                let compare =
                    (op == AtomicOp::CompareExchange).then(|| self.operand(ScalarType::U32, out));
                let value = self.define(ScalarType::U32);
                out.push(Stmt::Atomic {
                    value,
                    op,
                    array,
                    index,
                    operand,
                    compare,
                });
            }
        }
    }

    fn warp(&mut self, out: &mut Block) {
        let mask = self.mask(out);
        let op = match self.below(5) {
            0 => {
                let t = self.pick(&[ScalarType::U32, ScalarType::I32, ScalarType::F32]);
                let src = self.operand(t, out);
                let lane = self.operand(ScalarType::U32, out);
                let mode = self.pick(ShuffleMode::ALL);
                WarpOp::Shuffle {
                    value: self.define(t),
                    mode,
                    src,
                    lane,
                    mask,
                }
            }
            1 => {
                let pred = self.operand(ScalarType::Bool, out);
                WarpOp::Ballot {
                    value: self.define(ScalarType::U32),
                    pred,
                    mask,
                }
            }
            2 => {
                let pred = self.operand(ScalarType::Bool, out);
                let mode = self.pick(VoteMode::ALL);
                WarpOp::Vote {
                    value: self.define(ScalarType::Bool),
                    mode,
                    pred,
                    mask,
                }
            }
            3 => {
                let t = self.pick(&[ScalarType::U32, ScalarType::U64]);
                let src = self.operand(t, out);
                WarpOp::MatchAny {
                    value: self.define(ScalarType::U32),
                    src,
                    mask,
                }
            }
            _ => WarpOp::Sync { mask },
        };
        out.push(Stmt::Warp(op));
    }
}
