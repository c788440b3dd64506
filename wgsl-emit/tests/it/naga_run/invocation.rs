//! One invocation of the entry point: statements and expressions of a naga function, executed on
//! [`Val`]s. Barriers, subgroup operations and `workgroupUniformLoad` go through the workgroup's
//! [`Shared`] state, where every invocation of the workgroup meets.

use naga::{Expression as E, Function, GatherMode, Handle, Module, Statement as S};

use super::value::{self, unsupported, Root, Val, R};
use super::Shared;

/// How a block ended.
enum Flow {
    Next,
    Break,
    Continue,
    Return(Option<Val>),
}

struct Frame<'m> {
    func: &'m Function,
    args: Vec<Val>,
    values: Vec<Option<Val>>,
}

pub struct Invocation<'s, 'm> {
    pub shared: &'s Shared<'m>,
    /// `local_invocation_index`.
    pub local: u32,
    frames: Vec<Frame<'m>>,
    /// Locals of every frame (indexed like `frames`).
    locals: Vec<Vec<Val>>,
}

impl<'s, 'm> Invocation<'s, 'm> {
    pub fn new(shared: &'s Shared<'m>, local: u32) -> Self {
        Invocation {
            shared,
            local,
            frames: Vec::new(),
            locals: Vec::new(),
        }
    }

    fn module(&self) -> &'m Module {
        self.shared.module
    }

    /// Runs `func` with `args` to its end.
    pub fn call(&mut self, func: &'m Function, args: Vec<Val>) -> R<Option<Val>> {
        self.frames.push(Frame {
            func,
            args,
            values: vec![None; func.expressions.len()],
        });
        let mut locals = Vec::new();
        for (_, var) in func.local_variables.iter() {
            locals.push(match var.init {
                Some(init) => self.eval(init)?,
                None => value::zero(self.module(), var.ty, 0)?,
            });
        }
        self.locals.push(locals);
        let flow = self.block(&func.body)?;
        self.frames.pop();
        self.locals.pop();
        Ok(match flow {
            Flow::Return(v) => v,
            _ => None,
        })
    }

    fn frame(&mut self) -> &mut Frame<'m> {
        self.frames.last_mut().expect("in a call")
    }

    fn set(&mut self, h: Handle<E>, v: Val) {
        self.frame().values[h.index()] = Some(v);
    }

    fn block(&mut self, block: &'m naga::Block) -> R<Flow> {
        for stmt in block.iter() {
            match self.statement(stmt)? {
                Flow::Next => {}
                other => return Ok(other),
            }
        }
        Ok(Flow::Next)
    }

    fn statement(&mut self, stmt: &'m S) -> R<Flow> {
        match *stmt {
            S::Emit(ref range) => {
                for h in range.clone() {
                    let v = self.compute(h)?;
                    self.set(h, v);
                }
            }
            S::Block(ref b) => return self.block(b),
            S::If {
                condition,
                ref accept,
                ref reject,
            } => {
                let taken = if self.eval(condition)?.bool()? {
                    accept
                } else {
                    reject
                };
                return self.block(taken);
            }
            S::Switch {
                selector,
                ref cases,
            } => {
                let x = self.eval(selector)?.u32()?;
                let start = cases
                    .iter()
                    .position(|c| match c.value {
                        naga::SwitchValue::I32(v) => v as u32 == x,
                        naga::SwitchValue::U32(v) => v == x,
                        naga::SwitchValue::Default => false,
                    })
                    .or_else(|| {
                        cases
                            .iter()
                            .position(|c| c.value == naga::SwitchValue::Default)
                    });
                if let Some(start) = start {
                    for case in &cases[start..] {
                        match self.block(&case.body)? {
                            Flow::Break => break,
                            Flow::Next if case.fall_through => continue,
                            Flow::Next => break,
                            other => return Ok(other),
                        }
                    }
                }
            }
            S::Loop {
                ref body,
                ref continuing,
                break_if,
            } => loop {
                match self.block(body)? {
                    Flow::Break => break,
                    Flow::Return(v) => return Ok(Flow::Return(v)),
                    Flow::Next | Flow::Continue => {}
                }
                match self.block(continuing)? {
                    Flow::Next => {}
                    _ => return unsupported("control flow out of a continuing block"),
                }
                if let Some(c) = break_if {
                    if self.eval(c)?.bool()? {
                        break;
                    }
                }
            },
            S::Break => return Ok(Flow::Break),
            S::Continue => return Ok(Flow::Continue),
            S::Return { value } => {
                let v = value.map(|v| self.eval(v)).transpose()?;
                return Ok(Flow::Return(v));
            }
            S::ControlBarrier(_) => self.shared.meet(self.local, "workgroupBarrier", None)?,
            // Memory is sequentially consistent here: a memory barrier orders nothing more.
            S::MemoryBarrier(_) => {}
            S::Store { pointer, value } => {
                let (root, path) = self.pointer(pointer)?;
                let v = self.eval(value)?;
                self.write(&root, &path, v)?;
            }
            S::Atomic {
                pointer,
                ref fun,
                value,
                result,
            } => {
                let (root, path) = self.pointer(pointer)?;
                let operand = self.eval(value)?;
                let compare = match *fun {
                    naga::AtomicFunction::Exchange { compare: Some(c) } => Some(self.eval(c)?),
                    _ => None,
                };
                let old = self.shared.atomic(&root, &path, fun, operand, compare)?;
                if let Some(r) = result {
                    self.set(r, old);
                }
            }
            S::WorkGroupUniformLoad { pointer, result } => {
                self.shared.meet(self.local, "workgroupUniformLoad", None)?;
                let (root, path) = self.pointer(pointer)?;
                let v = self.read(&root, &path)?;
                self.shared.meet(self.local, "workgroupUniformLoad", None)?;
                self.set(result, v);
            }
            S::Call {
                function,
                ref arguments,
                result,
            } => {
                let args = arguments
                    .iter()
                    .map(|&a| self.eval(a))
                    .collect::<R<Vec<_>>>()?;
                let func = &self.module().functions[function];
                let v = self.call(func, args)?;
                if let (Some(r), Some(v)) = (result, v) {
                    self.set(r, v);
                }
            }
            S::SubgroupBallot { result, predicate } => {
                let p = match predicate {
                    Some(p) => self.eval(p)?,
                    None => Val::Bool(true),
                };
                let v = self
                    .shared
                    .subgroup(self.local, "subgroupBallot", p, None)?;
                self.set(result, v);
            }
            S::SubgroupGather {
                mode,
                argument,
                result,
            } => {
                let source = match mode {
                    GatherMode::Shuffle(i) => self.eval(i)?.u32()?,
                    GatherMode::Broadcast(i) => self.eval(i)?.u32()?,
                    other => return unsupported(other),
                };
                let x = self.eval(argument)?;
                let v = self
                    .shared
                    .subgroup(self.local, "subgroupShuffle", x, Some(source))?;
                self.set(result, v);
            }
            ref other => return unsupported(other),
        }
        Ok(Flow::Next)
    }

    /// The value of `h`: computed by its `Emit`, by the statement that defines it, or (for
    /// expressions never emitted) now.
    fn eval(&mut self, h: Handle<E>) -> R<Val> {
        if let Some(v) = &self.frame().values[h.index()] {
            return Ok(v.clone());
        }
        let v = self.compute(h)?;
        self.set(h, v.clone());
        Ok(v)
    }

    fn pointer(&mut self, h: Handle<E>) -> R<(Root, Vec<usize>)> {
        match self.eval(h)? {
            Val::Ptr(root, path) => Ok((root, path)),
            other => unsupported(("not a pointer", other)),
        }
    }

    fn read(&self, root: &Root, path: &[usize]) -> R<Val> {
        let walk = |mut v: &Val| -> R<Val> {
            for &i in path {
                v = match v {
                    Val::Vector(x) | Val::Composite(x) => x.get(i).ok_or_else(|| {
                        value::Stop::Fault(format!("index {i} out of bounds ({})", x.len()))
                    })?,
                    other => return unsupported(("not indexable", other)),
                };
            }
            Ok(v.clone())
        };
        match *root {
            Root::Global(g) => walk(&self.shared.globals[g].lock().unwrap()),
            Root::Local { frame, var } => walk(&self.locals[frame][var]),
        }
    }

    fn write(&mut self, root: &Root, path: &[usize], v: Val) -> R<()> {
        fn walk(mut at: &mut Val, path: &[usize], v: Val) -> R<()> {
            for &i in path {
                at = at.element_mut(i)?;
            }
            *at = v;
            Ok(())
        }
        match *root {
            Root::Global(g) => walk(&mut self.shared.globals[g].lock().unwrap(), path, v),
            Root::Local { frame, var } => walk(&mut self.locals[frame][var], path, v),
        }
    }

    fn compute(&mut self, h: Handle<E>) -> R<Val> {
        let module = self.module();
        let func = self.frame().func;
        Ok(match func.expressions[h] {
            E::Literal(ref l) => value::literal(l)?,
            E::Constant(c) => self.shared.constant(module.constants[c].init)?,
            E::ZeroValue(ty) => value::zero(module, ty, 0)?,
            E::Compose { ty, ref components } => {
                let parts = components
                    .iter()
                    .map(|&c| self.eval(c))
                    .collect::<R<Vec<_>>>()?;
                compose(module, ty, parts)
            }
            E::Splat { size, value } => Val::Vector(vec![self.eval(value)?; size as usize]),
            E::Swizzle {
                size,
                vector,
                pattern,
            } => {
                let v = self.eval(vector)?;
                Val::Vector(
                    pattern[..size as usize]
                        .iter()
                        .map(|&c| v.element(c as usize))
                        .collect::<R<_>>()?,
                )
            }
            E::Access { base, index } => {
                let i = self.eval(index)?.index()?;
                self.access(base, i)?
            }
            E::AccessIndex { base, index } => self.access(base, index as usize)?,
            E::FunctionArgument(i) => self.frame().args[i as usize].clone(),
            E::GlobalVariable(g) => Val::Ptr(Root::Global(g.index()), Vec::new()),
            E::LocalVariable(l) => Val::Ptr(
                Root::Local {
                    frame: self.frames.len() - 1,
                    var: l.index(),
                },
                Vec::new(),
            ),
            E::Load { pointer } => {
                let (root, path) = self.pointer(pointer)?;
                self.read(&root, &path)?
            }
            E::Unary { op, expr } => value::unary(op, &self.eval(expr)?)?,
            E::Binary { op, left, right } => {
                value::binary(op, &self.eval(left)?, &self.eval(right)?)?
            }
            E::Select {
                condition,
                accept,
                reject,
            } => {
                let (c, a, r) = (
                    self.eval(condition)?,
                    self.eval(accept)?,
                    self.eval(reject)?,
                );
                match c {
                    Val::Bool(c) => {
                        if c {
                            a
                        } else {
                            r
                        }
                    }
                    Val::Vector(c) => Val::Vector(
                        c.iter()
                            .enumerate()
                            .map(|(i, c)| {
                                Ok(if c.bool()? {
                                    a.element(i)?
                                } else {
                                    r.element(i)?
                                })
                            })
                            .collect::<R<_>>()?,
                    ),
                    other => return unsupported(("select on", other)),
                }
            }
            E::Relational { fun, argument } => {
                let v = self.eval(argument)?;
                let parts = match &v {
                    Val::Vector(x) => x.clone(),
                    x => vec![x.clone()],
                };
                let bools = parts.iter().map(Val::bool).collect::<R<Vec<_>>>()?;
                match fun {
                    naga::RelationalFunction::All => Val::Bool(bools.iter().all(|&b| b)),
                    naga::RelationalFunction::Any => Val::Bool(bools.iter().any(|&b| b)),
                    other => return unsupported(other),
                }
            }
            E::Math {
                fun,
                arg,
                arg1,
                arg2,
                arg3,
            } => {
                let mut args = vec![self.eval(arg)?];
                for a in [arg1, arg2, arg3].into_iter().flatten() {
                    args.push(self.eval(a)?);
                }
                value::math(fun, &args)?
            }
            E::As {
                expr,
                kind,
                convert,
            } => value::cast(&self.eval(expr)?, kind, convert)?,
            E::ArrayLength(pointer) => {
                let (root, path) = self.pointer(pointer)?;
                match self.read(&root, &path)? {
                    Val::Composite(x) => Val::U32(x.len() as u32),
                    other => return unsupported(("arrayLength of", other)),
                }
            }
            ref other => {
                return unsupported((
                    "expression with no value yet (a statement should define it)",
                    other,
                ))
            }
        })
    }

    fn access(&mut self, base: Handle<E>, i: usize) -> R<Val> {
        match self.eval(base)? {
            Val::Ptr(root, mut path) => {
                path.push(i);
                // Bounds are checked here, where the index is taken: naga indexes with no clamp.
                self.read(&root, &path)?;
                Ok(Val::Ptr(root, path))
            }
            v => v.element(i),
        }
    }
}

/// A vector (its components flattened) or a composite of `parts`.
pub fn compose(module: &Module, ty: naga::Handle<naga::Type>, parts: Vec<Val>) -> Val {
    if let naga::TypeInner::Vector { .. } = module.types[ty].inner {
        let mut flat = Vec::new();
        for p in parts {
            match p {
                Val::Vector(x) => flat.extend(x),
                x => flat.push(x),
            }
        }
        Val::Vector(flat)
    } else {
        Val::Composite(parts)
    }
}
