//! The `.func`s an entry calls and what a decoded one is ([`Func`], its frame's [`FrameVar`]s);
//! `decode_call.rs` decodes them.

use warpforge_ptx::isa::Opcode as O;
use warpforge_ptx::parse::{Block, Function, FunctionKind, Module, OperandKind, Statement};

/// A variable of the current function's frame: a parameter, a return parameter, a `.local`
/// variable of a `.func`, or the `.param` variable of a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FrameVar {
    pub offset: u32,
    pub size: u32,
    /// In the `.param` space (its address cannot be taken).
    pub param: bool,
}

/// A parameter of a `.func`: its name, its offset in the frame and its bytes.
pub(crate) type ParamSlot = (String, u32, u32);

/// A called `.func`, decoded.
#[derive(Clone, Debug, Default)]
pub(crate) struct Func {
    pub name: String,
    /// Its first instruction.
    pub start: u32,
    /// The registers decoded with it, `[first, end)`: saved at each call and restored at its `ret`
    /// (a recursive call must not clobber its caller's registers).
    pub regs: (u32, u32),
    /// Bytes of its frame, and the alignment of the frame's start.
    pub frame_bytes: u32,
    pub align: u32,
    /// Its parameters and return parameters: (name, offset in the frame, bytes).
    pub params: Vec<ParamSlot>,
    pub returns: Vec<ParamSlot>,
}

/// The `.func`s `entry` calls, directly or through other functions (those the module defines).
pub(crate) fn reachable<'m>(module: &'m Module, entry: &'m Function) -> Vec<&'m Function> {
    let mut found: Vec<&Function> = Vec::new();
    let mut next = 0;
    let mut names = Vec::new();
    if let Some(body) = &entry.body {
        called(body, &mut names);
    }
    loop {
        for name in names.drain(..) {
            let def = module
                .functions()
                .find(|f| f.name == name && f.kind == FunctionKind::Func && f.body.is_some());
            if let Some(f) = def {
                if !found.iter().any(|g| g.name == f.name) {
                    found.push(f);
                }
            }
        }
        let Some(f) = found.get(next) else {
            return found;
        };
        next += 1;
        if let Some(body) = &f.body {
            called(body, &mut names);
        }
    }
}

/// The names `call` instructions of `block` name.
fn called(block: &Block, out: &mut Vec<String>) {
    for s in &block.statements {
        match s {
            Statement::Instruction(i) if i.opcode == O::Call => {
                for op in &i.operands {
                    if let OperandKind::Symbol(name) = &op.kind {
                        out.push(name.clone());
                    }
                }
            }
            Statement::Block(b) => called(b, out),
            _ => {}
        }
    }
}
