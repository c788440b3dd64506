//! Decoding calls (PTX ISA, "Control Flow Instructions: call, ret, brx.idx" and "Function
//! declarations and definitions"): every `.func` a kernel calls, directly or through other
//! functions, is decoded once after the entry, as a region of the same instruction list; `call`
//! names it by index. Each activation of a function has a frame in the thread's local memory: its
//! parameters and return parameters (in the order of its signature), then its `.local` variables
//! and the `.param` variables of the calls it makes, in the order they are declared. A frame
//! variable is addressed relative to the frame register (each lane's frame base); the entry's frame
//! starts at 0, so its variables have fixed addresses. A call copies its arguments by value into the
//! callee's parameters; `ret` copies the return parameters back. `brx.idx` indexes a
//! `.branchtargets` list of the function.
//!
//! Refused, with the instruction's line: indirect calls (a function pointer, with `.callprototype`
//! or a call table), calls of a function the module only declares, argument counts or sizes that do
//! not match the callee's signature, `.reg` parameters.

use std::collections::HashMap;

use warpforge_ptx::isa::Modifier as M;
use warpforge_ptx::parse::{
    FunctionKind, Instruction, Operand, OperandKind, Param, StateSpace, VarDecl,
};

use super::calls::{FrameVar, Func, ParamSlot};
use super::decode::{operands, Decoder, Imm, Mods};
use super::error::PtxError;
use super::inst::{CallArg, Int, IntBin, Op, Slot};

/// The CUDA runtime's function a failed device `assert()` calls (declared `.extern`; the simulator
/// provides it).
const ASSERT_FAIL: &str = "__assertfail";

/// The CUDA runtime's function a device `printf` calls (declared `.extern`; the simulator provides
/// it).
const VPRINTF: &str = "vprintf";

/// The most bytes of one function's frame (or of the entry's `.local` and call variables).
pub(crate) const MAX_FRAME: u64 = 64 << 10;

/// The largest alignment of a frame variable.
const MAX_FRAME_ALIGN: u64 = 256;

fn align_up(n: u64, align: u64) -> u64 {
    n.div_ceil(align.max(1)) * align.max(1)
}

/// Lays out `params` from `offset` on: (name, offset, bytes) each, and the end.
fn lay_out(
    params: &[Param],
    mut offset: u64,
    align: &mut u64,
) -> Result<(Vec<ParamSlot>, u64), String> {
    let mut out = Vec::new();
    for p in params {
        if p.space != StateSpace::Param {
            return Err(format!(
                "`.reg` parameter `{}`: only `.param` parameters of a `.func` are supported",
                p.name
            ));
        }
        let elem = u64::from(p.ty.size_bytes()) * u64::from(p.vector.unwrap_or(1));
        let elements = p
            .dims
            .iter()
            .try_fold(1u64, |n, d| n.checked_mul(d.unwrap_or(0)));
        let size = elements
            .and_then(|n| n.checked_mul(elem))
            .filter(|&n| n <= MAX_FRAME)
            .ok_or_else(|| format!("parameter `{}` is larger than 64 KiB", p.name))?;
        let a = p.align.map_or(elem, u64::from).max(1);
        if a > MAX_FRAME_ALIGN {
            return Err(format!(
                "parameter `{}` aligned to {a} bytes (at most {MAX_FRAME_ALIGN})",
                p.name
            ));
        }
        *align = (*align).max(a);
        offset = align_up(offset, a);
        out.push((p.name.clone(), offset as u32, size as u32));
        offset += size;
        if offset > MAX_FRAME {
            return Err("parameters larger than 64 KiB in all".into());
        }
    }
    Ok((out, offset))
}

impl Decoder<'_> {
    /// The frame variable `name` in scope, innermost first.
    pub(crate) fn frame_var(&self, name: &str) -> Option<FrameVar> {
        self.frame_vars
            .iter()
            .rev()
            .find_map(|scope| scope.get(name).copied())
    }

    /// A `.param` declaration of a body (a call's argument or return variable), or a `.local` one of
    /// a `.func`: a place in the frame.
    pub(crate) fn frame_decl(&mut self, v: &VarDecl) -> Result<(), PtxError> {
        let elem = u64::from(v.ty.size_bytes()) * u64::from(v.vector.unwrap_or(1));
        let align = v.align.map_or(elem, u64::from).max(1);
        for d in &v.declarators {
            let text = format!(".{} .{} {}", v.space.name(), v.ty.name(), d.name);
            let bad = |message: String| PtxError::Unsupported {
                line: d.pos.line,
                text: text.clone(),
                message,
            };
            if align > MAX_FRAME_ALIGN {
                return Err(bad(format!(
                    "aligned to {align} bytes (frame variables: at most {MAX_FRAME_ALIGN})"
                )));
            }
            let size = d
                .elements()
                .and_then(|n| n.checked_mul(elem))
                .ok_or_else(|| bad("an array without a size".into()))?;
            let at = align_up(u64::from(self.frame_bytes), align);
            let end = at.saturating_add(size);
            if end > MAX_FRAME {
                return Err(bad(format!(
                    "more than {} KiB of `.local` and call variables in one function (MAX_FRAME \
                     in sim/src/ptx/decode_call.rs)",
                    MAX_FRAME >> 10
                )));
            }
            let var = FrameVar {
                offset: at as u32,
                size: size as u32,
                param: v.space == StateSpace::Param,
            };
            if let Some(scope) = self.frame_vars.last_mut() {
                scope.insert(d.name.clone(), var);
            }
            self.frame_bytes = end as u32;
            self.frame_align = self.frame_align.max(align as u32);
        }
        Ok(())
    }

    /// The index of the `.func` `name`, decoded later (its signature laid out now).
    fn function_id(&mut self, name: &str) -> Result<u32, String> {
        if let Some(&id) = self.func_ids.get(name) {
            return Ok(id);
        }
        let module = self.module;
        let declared = module.functions().any(|f| f.name == name);
        let f = match module
            .functions()
            .find(|f| f.name == name && f.body.is_some())
        {
            Some(f) if f.kind == FunctionKind::Entry => {
                return Err(format!(
                    "`{name}` is an `.entry`: only a `.func` can be called"
                ))
            }
            Some(f) => f,
            None if declared => {
                return Err(format!(
                    "`{name}` is declared but not defined in the module (an `.extern` function \
                     from another module cannot be called)"
                ))
            }
            None => return Err(format!("no function `{name}` in the module")),
        };
        let mut align = 16u64;
        let (returns, end) = lay_out(&f.returns, 0, &mut align)?;
        let (params, end) = lay_out(&f.params, end, &mut align)?;
        let id = self.funcs.len() as u32;
        self.funcs.push(Func {
            name: name.to_owned(),
            frame_bytes: end as u32,
            align: align as u32,
            params,
            returns,
            ..Func::default()
        });
        self.func_ids.insert(name.to_owned(), id);
        Ok(id)
    }

    /// The frame variables of `.func` number `k` at its start: its parameters and return
    /// parameters.
    pub(crate) fn enter_function(&mut self, k: usize) {
        let f = &self.funcs[k];
        let scope: HashMap<String, FrameVar> = f
            .returns
            .iter()
            .chain(&f.params)
            .map(|(name, offset, size)| {
                let var = FrameVar {
                    offset: *offset,
                    size: *size,
                    param: true,
                };
                (name.clone(), var)
            })
            .collect();
        self.frame_vars = vec![scope];
        self.frame_bytes = f.frame_bytes;
        self.frame_align = f.align;
    }

    /// `call{.uni} (rets), func, (args);` — a direct call.
    pub(crate) fn call(&mut self, inst: &Instruction) -> Result<Op, String> {
        let mut mods = Mods::new(inst);
        mods.ignore(&[M::Uni]);
        mods.finish()?;
        let ops = inst.operands.as_slice();
        let (rets, rest): (&[Operand], &[Operand]) = match ops.first() {
            Some(Operand {
                kind: OperandKind::CallArgs(list),
                ..
            }) => (list, &ops[1..]),
            _ => (&[], ops),
        };
        let Some((target, rest)) = rest.split_first() else {
            return Err("the call names no function".into());
        };
        let name = match &target.kind {
            OperandKind::Symbol(n) | OperandKind::Label(n) => n.clone(),
            OperandKind::Register(r) => {
                return Err(format!(
                    "an indirect call through the function pointer `{r}` (with `.callprototype` \
                     or a call table) is not supported: only calls of a named `.func`"
                ))
            }
            _ => return Err(format!("expected a function name, found `{target}`")),
        };
        let (args, rest): (&[Operand], &[Operand]) = match rest.first() {
            Some(Operand {
                kind: OperandKind::CallArgs(list),
                ..
            }) => (list, &rest[1..]),
            _ => (&[], rest),
        };
        if let Some(extra) = rest.first() {
            return Err(format!(
                "unexpected operand `{extra}` after the arguments (a call table or prototype \
                 belongs to an indirect call)"
            ));
        }
        let defined = (self.module.functions()).any(|f| f.name == name && f.body.is_some());
        if name == ASSERT_FAIL && !defined {
            return self.assert_fail(args);
        }
        if name == VPRINTF && !defined {
            return self.vprintf(args, rets);
        }
        let func = self.function_id(&name)?;
        let f = &self.funcs[func as usize];
        let (want_params, want_returns) = (f.params.clone(), f.returns.clone());
        for (what, given, want) in [
            ("parameters", args.len(), want_params.len()),
            ("return parameters", rets.len(), want_returns.len()),
        ] {
            if given != want {
                return Err(format!(
                    "`{name}` has {want} {what}, the call gives {given}"
                ));
            }
        }
        let args = args
            .iter()
            .zip(&want_params)
            .map(|(a, p)| self.call_slot(a, p, &name, false))
            .collect::<Result<_, _>>()?;
        let rets = rets
            .iter()
            .zip(&want_returns)
            .map(|(a, p)| self.call_slot(a, p, &name, true))
            .collect::<Result<_, _>>()?;
        Ok(Op::Call { func, args, rets })
    }

    /// `call.uni __assertfail, (message, file, line, function, char size)`: the arguments a failed
    /// `assert()` passes (`.param` variables or registers), the char size not needed.
    fn assert_fail(&mut self, args: &[Operand]) -> Result<Op, String> {
        let [message, file, line, function, _] = args else {
            return Err(format!(
                "`{ASSERT_FAIL}` takes 5 arguments (message, file, line, function, char size), \
                 the call gives {}",
                args.len()
            ));
        };
        let mut slot = |op: &Operand| -> Result<Slot, String> {
            match &op.kind {
                OperandKind::Symbol(n) => match self.frame_var(n) {
                    Some(v) if v.param && matches!(v.size, 4 | 8) => Ok(Slot::Frame(v.offset)),
                    _ => Err(format!(
                        "`{n}` is not a 4- or 8-byte `.param` variable of the caller"
                    )),
                },
                _ => Ok(Slot::Reg(self.src(op, Imm::Int)?)),
            }
        };
        Ok(Op::AssertFail {
            message: slot(message)?,
            file: slot(file)?,
            line: slot(line)?,
            function: slot(function)?,
        })
    }

    /// `call.uni (retval0), vprintf, (format, args)`: the format string's address, the address of
    /// the argument buffer, and where the return value goes (`.param` variables or registers).
    fn vprintf(&mut self, args: &[Operand], rets: &[Operand]) -> Result<Op, String> {
        let [format, buffer] = args else {
            return Err(format!(
                "`{VPRINTF}` takes 2 arguments (format, argument buffer), the call gives {}",
                args.len()
            ));
        };
        if rets.len() > 1 {
            return Err(format!(
                "`{VPRINTF}` returns one value, the call takes {}",
                rets.len()
            ));
        }
        let mut slot = |op: &Operand, ret: bool| -> Result<Slot, String> {
            match &op.kind {
                OperandKind::Symbol(n) => match self.frame_var(n) {
                    Some(v) if v.param && matches!(v.size, 4 | 8) => Ok(Slot::Frame(v.offset)),
                    _ => Err(format!(
                        "`{n}` is not a 4- or 8-byte `.param` variable of the caller"
                    )),
                },
                _ if ret => Ok(Slot::Reg(self.dst(op, 32)?)),
                _ => Ok(Slot::Reg(self.src(op, Imm::Int)?)),
            }
        };
        Ok(Op::Printf {
            format: slot(format, false)?,
            args: slot(buffer, false)?,
            ret: rets.first().map(|r| slot(r, true)).transpose()?,
        })
    }

    /// One argument (or, with `ret`, return value) of a call to `func` for its parameter `param`.
    fn call_slot(
        &mut self,
        op: &Operand,
        param: &ParamSlot,
        func: &str,
        ret: bool,
    ) -> Result<CallArg, String> {
        let (pname, callee, size) = (&param.0, param.1, param.2);
        let caller = match &op.kind {
            OperandKind::Symbol(n) => match self.frame_var(n) {
                Some(v) if v.param && v.size == size => Slot::Frame(v.offset),
                Some(v) if v.param => {
                    return Err(format!(
                        "`{n}` has {} bytes, parameter `{pname}` of `{func}` {size}",
                        v.size
                    ))
                }
                _ => {
                    return Err(format!(
                        "`{n}` is not a `.param` variable of the caller (arguments are `.param` \
                         variables, registers or immediates)"
                    ))
                }
            },
            _ if size > 8 => {
                return Err(format!(
                    "parameter `{pname}` of `{func}` has {size} bytes: pass it in a `.param` \
                     variable"
                ))
            }
            _ if ret => Slot::Reg(self.dst(op, 8 * size)?),
            _ => Slot::Reg(self.src(op, Imm::Int)?),
        };
        Ok(CallArg {
            caller,
            callee,
            size,
        })
    }

    /// `mov d, var` of a frame variable of a `.func`: the lane's frame base plus its offset.
    pub(crate) fn frame_address(
        &mut self,
        d: &Operand,
        a: &Operand,
        bits: u32,
    ) -> Result<Option<Op>, String> {
        let OperandKind::Symbol(name) = &a.kind else {
            return Ok(None);
        };
        match self.frame_var(name) {
            Some(v) if v.param => Err(format!(
                "the address of `.param` variable `{name}` is not supported (read it with \
                 `ld.param`)"
            )),
            Some(v) if self.in_function => Ok(Some(Op::IntBin {
                op: IntBin::Add,
                ty: Int {
                    bits,
                    signed: false,
                },
                d: self.dst(d, bits)?,
                a: self.frame_reg,
                b: self.regs.constant(u64::from(v.offset)),
            })),
            _ => Ok(None),
        }
    }

    /// `brx.idx{.uni} index, tlist;` (the list resolved at the end of the function).
    pub(crate) fn brx(&mut self, inst: &Instruction) -> Result<Op, String> {
        let mut mods = Mods::new(inst);
        if !mods.take(M::Idx) {
            return Err("`brx` without `.idx`".into());
        }
        mods.ignore(&[M::Uni]);
        mods.finish()?;
        let [index, list] = operands::<2>(inst)?;
        let index = self.src(index, Imm::Int)?;
        let list = match &list.kind {
            OperandKind::Label(l) | OperandKind::Symbol(l) => l.clone(),
            _ => return Err(format!("expected a `.branchtargets` label, found `{list}`")),
        };
        self.brx_pending.push((self.insts_len(), list));
        Ok(Op::Brx {
            index,
            table: 0,
            reconverge: 0,
        })
    }
}
