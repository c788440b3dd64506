//! Where a function's variables live: kernel parameters in the parameter space, `.shared` arrays in
//! the block's shared memory (static ones first, then the dynamic `.extern` ones, which all start at
//! the same offset), `.local` arrays in each thread's local memory, and module `.global` / `.const`
//! variables in memory of their own with their initial values. Every variable's name becomes a
//! [`Symbol`]: its space and its address there.

use std::collections::HashMap;

use warpforge_ptx::parse::{
    Block, DataType, Declarator, FloatImm, Function, Initializer, Linkage, Module, ModuleItem,
    OperandKind, StateSpace, Statement, VarDecl,
};

use super::address::MODULE_GLOBAL_BASE;
use super::error::PtxError;
use super::inst::MemSpace;

/// A variable's space and its address in that space (global variables: their global address).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Symbol {
    pub space: MemSpace,
    pub addr: u64,
}

/// A kernel parameter: where it lives in the parameter space and what it holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PtxParam {
    /// Its name.
    pub name: String,
    /// Its declared type (`u64`, `u32`, `f32`, `b8` for a byte array, …).
    pub ty: String,
    /// Bytes it takes.
    pub size: u32,
    /// Its offset in the parameter space.
    pub offset: u32,
    /// Whether it can hold a pointer (a 64-bit integer scalar: a buffer is passed in it).
    pub pointer: bool,
}

/// A named shared array and where it starts.
#[derive(Clone, Debug)]
pub(crate) struct SharedArray {
    pub name: String,
    pub offset: u32,
    /// Declared size (0 for a dynamic array: its size comes from the launch).
    pub size: u32,
}

/// The most bytes of module `.global` variables: the simulator holds them twice (initial bytes and
/// the launch's copy) and racecheck keeps 8 bytes of shadow per byte across blocks.
pub(crate) const MAX_MODULE_GLOBALS: u64 = 16 << 20;

/// Everything pass 1 finds.
#[derive(Debug, Default)]
pub(crate) struct Layout {
    pub symbols: HashMap<String, Symbol>,
    pub params: Vec<PtxParam>,
    pub param_bytes: u32,
    /// Static shared arrays, then the dynamic ones (at `dynamic_offset`), by offset.
    pub shared: Vec<SharedArray>,
    /// Where dynamic shared memory starts (= the static bytes, aligned).
    pub dynamic_offset: u32,
    pub local_bytes: u32,
    /// Module `.global` variables' initial bytes (at [`MODULE_GLOBAL_BASE`]).
    pub module_globals: Vec<u8>,
    /// `.const` variables' bytes.
    pub constants: Vec<u8>,
    /// The module's `.global` and `.const` variables, in declaration order.
    pub variables: Vec<ModuleVariable>,
}

/// A module variable (`__device__` is `.global`, `__constant__` is `.const`) and where its bytes
/// are: in the layout's module globals or its constants.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModuleVariable {
    /// Its name in the PTX (`coeffs`, `_ZL6coeffs`).
    pub name: String,
    /// `.const` (else `.global`).
    pub constant: bool,
    /// Its first byte in its space's bytes.
    pub offset: u64,
    /// Its size in bytes.
    pub size: u64,
}

fn align_up(n: u64, align: u64) -> u64 {
    n.div_ceil(align.max(1)) * align.max(1)
}

fn bad(pos_line: u32, text: String, message: String) -> PtxError {
    PtxError::Unsupported {
        line: pos_line,
        text,
        message,
    }
}

impl Layout {
    /// Lays out `entry`'s parameters and every variable of `module`, of `entry`'s body and of the
    /// bodies of the functions it calls (their `.shared` variables; a function's `.local` and
    /// `.param` variables live in its frame: `decode_call.rs`).
    pub fn of(module: &Module, entry: &Function, called: &[&Function]) -> Result<Layout, PtxError> {
        let mut l = Layout::default();
        let mut dynamic: Vec<(String, u64)> = Vec::new();
        let mut offset = 0u64;
        for p in &entry.params {
            let elements = p
                .dims
                .iter()
                .try_fold(1u64, |n, d| n.checked_mul(d.unwrap_or(0)));
            let elem = u64::from(p.ty.size_bytes()) * u64::from(p.vector.unwrap_or(1));
            let size = elements
                .and_then(|n| n.checked_mul(elem))
                .filter(|&n| n <= 1 << 20)
                .ok_or_else(|| {
                    bad(
                        p.pos.line,
                        p.name.clone(),
                        "a parameter larger than 1 MiB".into(),
                    )
                })?;
            let align = p.align.map_or(elem, u64::from);
            offset = align_up(offset, align);
            let ty = p.ty.name().to_owned();
            let pointer =
                p.dims.is_empty() && matches!(p.ty, DataType::U64 | DataType::B64 | DataType::S64);
            l.symbols.insert(
                p.name.clone(),
                Symbol {
                    space: MemSpace::Param,
                    addr: offset,
                },
            );
            l.params.push(PtxParam {
                name: p.name.clone(),
                ty,
                size: size as u32,
                offset: offset as u32,
                pointer,
            });
            offset += size;
            if offset > 1 << 20 {
                let why = "parameters larger than 1 MiB in all".into();
                return Err(bad(p.pos.line, p.name.clone(), why));
            }
        }
        l.param_bytes = offset as u32;
        let mut shared_next = 0u64;
        let module_vars = module.items.iter().filter_map(|i| match i {
            ModuleItem::Variable(v) => Some(v),
            _ => None,
        });
        let mut decls: Vec<&VarDecl> = module_vars.collect();
        if let Some(body) = &entry.body {
            collect_decls(body, &mut decls, true);
        }
        for f in called {
            if let Some(body) = &f.body {
                collect_decls(body, &mut decls, false);
            }
        }
        for v in decls {
            let elem = u64::from(v.ty.size_bytes()) * u64::from(v.vector.unwrap_or(1));
            let align = v.align.map_or(elem, u64::from).max(1);
            for d in &v.declarators {
                let unsized_array = d.dims.iter().any(Option::is_none);
                let size = d.elements().unwrap_or(0).saturating_mul(elem);
                let text = format!(".{} .{} {}", v.space.name(), v.ty.name(), d.name);
                let too_big = || {
                    bad(
                        d.pos.line,
                        text.clone(),
                        "the variable is larger than 4 GiB".into(),
                    )
                };
                match v.space {
                    StateSpace::Reg | StateSpace::Param => {}
                    StateSpace::Shared if unsized_array || v.linkage.contains(&Linkage::Extern) => {
                        dynamic.push((d.name.clone(), align));
                    }
                    StateSpace::Shared => {
                        shared_next = align_up(shared_next, align);
                        l.symbols
                            .insert(d.name.clone(), sym(MemSpace::Shared, shared_next));
                        l.shared.push(SharedArray {
                            name: d.name.clone(),
                            offset: u32::try_from(shared_next).map_err(|_| too_big())?,
                            size: u32::try_from(size).map_err(|_| too_big())?,
                        });
                        shared_next += size;
                    }
                    StateSpace::Local => {
                        let at = align_up(u64::from(l.local_bytes), align);
                        l.symbols.insert(d.name.clone(), sym(MemSpace::Local, at));
                        let end = at.saturating_add(size);
                        if end > 64 << 10 {
                            let why = "more than 64 KiB of `.local` memory per thread".into();
                            return Err(bad(d.pos.line, text.clone(), why));
                        }
                        l.local_bytes = end as u32;
                    }
                    StateSpace::Global | StateSpace::Const => {
                        let global = v.space == StateSpace::Global;
                        let bytes = if global {
                            &mut l.module_globals
                        } else {
                            &mut l.constants
                        };
                        let at = align_up(bytes.len() as u64, align);
                        let limit = if global { MAX_MODULE_GLOBALS } else { 64 << 10 };
                        if at.saturating_add(size) > limit {
                            let what = if global {
                                format!(
                                    "module `.global` variables past {} MiB (MAX_MODULE_GLOBALS in \
                                     sim/src/ptx/layout.rs)",
                                    MAX_MODULE_GLOBALS >> 20
                                )
                            } else {
                                "`.const` variables past 64 KiB (CUDA's constant bank)".into()
                            };
                            return Err(bad(d.pos.line, text.clone(), what));
                        }
                        bytes.resize(at as usize, 0);
                        let init = initial_bytes(v.ty, d, size as usize)
                            .map_err(|m| bad(d.pos.line, text.clone(), m))?;
                        bytes.extend_from_slice(&init);
                        l.variables.push(ModuleVariable {
                            name: d.name.clone(),
                            constant: !global,
                            offset: at,
                            size,
                        });
                        let (space, addr) = if global {
                            (MemSpace::Global, MODULE_GLOBAL_BASE + at)
                        } else {
                            (MemSpace::Const, at)
                        };
                        l.symbols.insert(d.name.clone(), sym(space, addr));
                    }
                }
            }
        }
        let dyn_align = dynamic.iter().map(|d| d.1).max().unwrap_or(16).max(16);
        let dyn_at = align_up(shared_next, dyn_align);
        l.dynamic_offset = u32::try_from(dyn_at).map_err(|_| {
            bad(
                entry.pos.line,
                entry.name.clone(),
                "shared memory past 4 GiB".into(),
            )
        })?;
        for (name, _) in dynamic {
            l.symbols
                .insert(name.clone(), sym(MemSpace::Shared, dyn_at));
            l.shared.push(SharedArray {
                name,
                offset: l.dynamic_offset,
                size: 0,
            });
        }
        Ok(l)
    }
}

fn sym(space: MemSpace, addr: u64) -> Symbol {
    Symbol { space, addr }
}

/// The declarations of `block` other than registers (and `.local` ones unless `local`).
fn collect_decls<'a>(block: &'a Block, out: &mut Vec<&'a VarDecl>, local: bool) {
    for s in &block.statements {
        match s {
            Statement::Decl(v) if v.space == StateSpace::Local && !local => {}
            Statement::Decl(v) if v.space != StateSpace::Reg => out.push(v),
            Statement::Block(b) => collect_decls(b, out, local),
            _ => {}
        }
    }
}

/// The initial bytes of a `.global` / `.const` variable (zeros where no initializer is given).
fn initial_bytes(ty: DataType, d: &Declarator, size: usize) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::with_capacity(size);
    let elem = ty.size_bytes() as usize;
    let mut values = Vec::new();
    if let Some(init) = &d.init {
        flatten(init, &mut values)?;
    }
    for v in values {
        let bits = match (&v, ty) {
            (OperandKind::Int(i), DataType::F32) => u64::from((i.value() as f32).to_bits()),
            (OperandKind::Int(i), DataType::F64) => (i.value() as f64).to_bits(),
            (OperandKind::Int(i), _) => i.value() as u64,
            (OperandKind::Float(FloatImm::F32Bits(b)), _) => u64::from(*b),
            (OperandKind::Float(FloatImm::F64Bits(b)), _) => *b,
            (OperandKind::Float(f), DataType::F32) => u64::from((f.value() as f32).to_bits()),
            (OperandKind::Float(f), _) => f.value().to_bits(),
            _ => return Err("an initializer that is not a number is not supported".into()),
        };
        bytes.extend_from_slice(&bits.to_le_bytes()[..elem.min(8)]);
    }
    if bytes.len() > size {
        return Err(format!(
            "the initializer has {} bytes, the variable {size}",
            bytes.len()
        ));
    }
    bytes.resize(size, 0);
    Ok(bytes)
}

fn flatten(init: &Initializer, out: &mut Vec<OperandKind>) -> Result<(), String> {
    match init {
        Initializer::Value(op) => out.push(op.kind.clone()),
        Initializer::List { items, .. } => {
            for i in items {
                flatten(i, out)?;
            }
        }
        Initializer::Generic { .. } => {
            return Err("a `generic(…)` initializer is not supported".into());
        }
    }
    Ok(())
}
