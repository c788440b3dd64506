//! Lifting a parsed module back into the emitter's AST (`warpforge_ptx::ast`), refusing anything that
//! AST cannot hold, so that a round-trip test can compare what was parsed with what was printed,
//! field by field.

use warpforge_ptx::ast::{
    Entry, Guard, Inst, Label, LabelKind, Line, Module, Operand, ParamDecl, SharedDecl, Symbol,
};
use warpforge_ptx::parse::{
    self, AddressBase, DataType, FloatImm, FunctionDirectiveKind, FunctionKind, Linkage,
    ModuleItem, OperandKind, Radix, StateSpace, Statement, VarDecl,
};
use warpforge_ptx::regs::{Reg, RegClass};
use warpforge_ptx::Sm;

/// The emitter AST `m` would have been printed from, or why there is none.
pub fn lift(m: &parse::Module) -> Result<Module, String> {
    let target = match m.target.names.as_slice() {
        [name] => Sm::ALL
            .into_iter()
            .find(|sm| sm.name() == name)
            .ok_or(format!("unknown target {name}"))?,
        other => return Err(format!("target list {other:?}")),
    };
    if (m.version.major, m.version.minor) != target.ptx_isa() {
        return Err(format!("version {:?} for {target}", m.version));
    }
    if m.address_size.map(|a| a.bits) != Some(64) {
        return Err("no .address_size 64".into());
    }
    let mut dynamic = Vec::new();
    let mut entries = Vec::new();
    let mut files = Vec::new();
    for item in &m.items {
        match item {
            ModuleItem::Comment(_) => {}
            ModuleItem::File(f) if f.extra.is_empty() && f.index as usize == files.len() + 1 => {
                files.push(f.path.clone())
            }
            ModuleItem::Variable(v) => dynamic.push(dynamic_shared(v)?),
            ModuleItem::Function(f) => entries.push(f),
            other => return Err(format!("module item the emitter never prints: {other:?}")),
        }
    }
    let [f] = entries.as_slice() else {
        return Err(format!("{} functions, expected one entry", entries.len()));
    };
    if f.kind != FunctionKind::Entry || f.linkage != [Linkage::Visible] || !f.returns.is_empty() {
        return Err(format!("`{}` is not a plain .visible .entry", f.name));
    }
    let params = f
        .params
        .iter()
        .map(|p| {
            let plain = p.space == StateSpace::Param
                && p.align.is_none()
                && p.vector.is_none()
                && p.ptr.is_none()
                && p.dims.is_empty();
            if !plain {
                return Err(format!("parameter {p:?}"));
            }
            Ok(ParamDecl {
                symbol: Symbol(p.name.clone()),
                ty: p.ty,
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    let reqntid = match f.directives.as_slice() {
        [d] => match &d.kind {
            FunctionDirectiveKind::Reqntid(dims) if dims.len() == 3 => [dims[0], dims[1], dims[2]],
            other => return Err(format!("directive {other:?}")),
        },
        other => return Err(format!("directives {other:?}")),
    };
    let body = f.body.as_ref().ok_or("a prototype, not a kernel")?;
    let mut reg_counts = [0; RegClass::ALL.len()];
    let mut last_class = None;
    let mut shared = dynamic;
    let mut lines = Vec::new();
    for s in &body.statements {
        match s {
            Statement::Decl(d) if !lines.is_empty() => {
                return Err(format!("declaration after the first instruction: {d:?}"))
            }
            Statement::Decl(d) if d.space == StateSpace::Reg => {
                let (slot, count) = reg_decl(d)?;
                if last_class.is_some_and(|last| last >= slot) {
                    return Err(format!("register declarations out of order at {d:?}"));
                }
                last_class = Some(slot);
                reg_counts[slot] = count;
            }
            Statement::Decl(d) => shared.push(static_shared(d)?),
            Statement::Label(l) => lines.push(Line::Label(label(&l.name)?)),
            Statement::Loc(l) if l.function_name.is_none() && l.inlined_at.is_none() => {
                lines.push(Line::Loc {
                    file: l.file,
                    line: l.line,
                    column: l.column,
                })
            }
            Statement::Comment(c) => {
                let text = c.text.strip_prefix(' ').ok_or("comment without a space")?;
                lines.push(Line::Comment(text.to_string()));
            }
            Statement::Instruction(i) => lines.push(Line::Inst(Inst {
                guard: match &i.guard {
                    Some(g) => Some(Guard {
                        pred: reg(&g.pred)?,
                        negated: g.negated,
                    }),
                    None => None,
                },
                opcode: i.opcode.clone(),
                modifiers: i.modifiers.clone(),
                args: i
                    .operands
                    .iter()
                    .map(|o| operand(&o.kind))
                    .collect::<Result<_, _>>()?,
            })),
            other => return Err(format!("statement the emitter never prints: {other:?}")),
        }
    }
    Ok(Module {
        target,
        files,
        entry: Entry {
            name: f.name.clone(),
            params,
            reqntid,
            reg_counts,
            shared,
            body: lines,
        },
    })
}

/// `.extern .shared .align A .b8 name[];`
fn dynamic_shared(v: &VarDecl) -> Result<SharedDecl, String> {
    let [d] = v.declarators.as_slice() else {
        return Err(format!("{v:?}"));
    };
    let shape = v.linkage == [Linkage::Extern]
        && v.space == StateSpace::Shared
        && v.ty == DataType::B8
        && v.vector.is_none()
        && d.dims == [None]
        && d.range.is_none()
        && d.init.is_none();
    match (shape, v.align) {
        (true, Some(align)) => Ok(SharedDecl {
            dynamic: true,
            symbol: Symbol(d.name.clone()),
            align,
            bytes: 0,
        }),
        _ => Err(format!("module variable the emitter never prints: {v:?}")),
    }
}

/// `.shared .align A .b8 name[N];`
fn static_shared(v: &VarDecl) -> Result<SharedDecl, String> {
    let [d] = v.declarators.as_slice() else {
        return Err(format!("{v:?}"));
    };
    let shape = v.linkage.is_empty()
        && v.space == StateSpace::Shared
        && v.ty == DataType::B8
        && v.vector.is_none()
        && d.range.is_none()
        && d.init.is_none();
    match (shape, v.align, d.dims.as_slice()) {
        (true, Some(align), [Some(bytes)]) => Ok(SharedDecl {
            dynamic: false,
            symbol: Symbol(d.name.clone()),
            align,
            bytes: *bytes,
        }),
        _ => Err(format!("declaration the emitter never prints: {v:?}")),
    }
}

/// `.reg .T %prefix<N>;` → the class's slot and N.
fn reg_decl(v: &VarDecl) -> Result<(usize, u32), String> {
    let [d] = v.declarators.as_slice() else {
        return Err(format!("{v:?}"));
    };
    let slot = RegClass::ALL
        .iter()
        .position(|c| c.prefix() == d.name && c.ptx_type() == v.ty.name())
        .ok_or(format!("register declaration {v:?}"))?;
    match (d.range, v.align, v.vector, d.dims.is_empty(), &d.init) {
        (Some(n), None, None, true, None) if v.linkage.is_empty() => Ok((slot, n)),
        _ => Err(format!("register declaration {v:?}")),
    }
}

/// `%rd5` → a 64-bit register number 5.
fn reg(r: &parse::Register) -> Result<Reg, String> {
    try_reg(r).ok_or(format!("not a virtual register: {r}"))
}

fn try_reg(r: &parse::Register) -> Option<Reg> {
    if r.component.is_some() {
        return None;
    }
    // Longest prefix first: `%rd` before `%r`.
    let mut classes = RegClass::ALL;
    classes.sort_by_key(|c| std::cmp::Reverse(c.prefix().len()));
    classes.into_iter().find_map(|class| {
        let digits = r.name.strip_prefix(class.prefix())?;
        let canonical = !digits.is_empty()
            && digits.bytes().all(|b| b.is_ascii_digit())
            && (digits == "0" || !digits.starts_with('0'));
        let index = digits.parse().ok().filter(|_| canonical)?;
        Some(Reg { class, index })
    })
}

/// `$L__end_if_3` → an end-of-if label number 3.
fn label(name: &str) -> Result<Label, String> {
    let (kind, id) = name
        .strip_prefix("$L__")
        .and_then(|rest| rest.rsplit_once('_'))
        .ok_or(format!("label {name}"))?;
    let kind = match kind {
        "else" => LabelKind::Else,
        "end_if" => LabelKind::EndIf,
        "loop" => LabelKind::Loop,
        "end_loop" => LabelKind::EndLoop,
        _ => return Err(format!("label kind in {name}")),
    };
    let id = id.parse().map_err(|_| format!("label number in {name}"))?;
    Ok(Label { kind, id })
}

fn operand(kind: &OperandKind) -> Result<Operand, String> {
    Ok(match kind {
        OperandKind::Register(r) => match try_reg(r) {
            Some(r) => Operand::Reg(r),
            // Special registers (`%tid.x`) are symbols to the emitter.
            None => Operand::Sym(r.to_string()),
        },
        OperandKind::Int(v) if v.radix == Radix::Decimal && !v.unsigned => Operand::Imm(v.value()),
        OperandKind::Int(v) if v.radix == Radix::Hex && !v.unsigned && !v.negative => {
            Operand::Bits(v.magnitude)
        }
        OperandKind::Float(FloatImm::F32Bits(bits)) => Operand::F32(*bits),
        OperandKind::Float(FloatImm::F64Bits(bits)) => Operand::F64(*bits),
        OperandKind::Symbol(s) => Operand::Sym(s.clone()),
        OperandKind::Label(l) => Operand::Label(label(l)?),
        OperandKind::Address(a) => {
            let base = match &a.base {
                AddressBase::Register(r) => operand(&OperandKind::Register(r.clone()))?,
                AddressBase::Symbol(s) => Operand::Sym(s.clone()),
                AddressBase::Absolute => return Err(format!("absolute address {a:?}")),
            };
            Operand::Addr(Box::new(base), a.offset)
        }
        OperandKind::Vector(items) => Operand::Vector(
            items
                .iter()
                .map(|o| match &o.kind {
                    OperandKind::Register(r) => reg(r),
                    other => Err(format!("vector element {other:?}")),
                })
                .collect::<Result<_, _>>()?,
        ),
        other => return Err(format!("operand the emitter never prints: {other:?}")),
    })
}
