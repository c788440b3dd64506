//! Erasing positions, so that two parses of texts that differ only in layout (or a parse of printed
//! PTX and the parse it was printed from) compare equal.

use super::directives::{Initializer, VarDecl};
use super::error::Pos;
use super::functions::Function;
use super::instructions::{Block, Statement};
use super::module::{Module, ModuleItem, SectionItem};
use super::operands::{Operand, OperandKind};

impl Module {
    /// Sets every position in the module to [`Pos::default`] (line 0, column 0).
    pub fn erase_positions(&mut self) {
        let zero = Pos::default();
        for c in &mut self.preamble {
            c.pos = zero;
        }
        self.version.pos = zero;
        self.target.pos = zero;
        if let Some(a) = &mut self.address_size {
            a.pos = zero;
        }
        for item in &mut self.items {
            match item {
                ModuleItem::Variable(v) => erase_decl(v),
                ModuleItem::Function(func) => erase_function(func),
                ModuleItem::File(file) => file.pos = zero,
                ModuleItem::Section(s) => {
                    s.pos = zero;
                    for item in &mut s.items {
                        match item {
                            SectionItem::Label(l) => l.pos = zero,
                            SectionItem::Data(d) => d.pos = zero,
                        }
                    }
                }
                ModuleItem::Pragma(p) => p.pos = zero,
                ModuleItem::Comment(c) => c.pos = zero,
            }
        }
    }
}

fn erase_function(func: &mut Function) {
    let zero = Pos::default();
    func.pos = zero;
    for p in func.returns.iter_mut().chain(&mut func.params) {
        p.pos = zero;
    }
    for d in &mut func.directives {
        d.pos = zero;
    }
    if let Some(body) = &mut func.body {
        erase_block(body);
    }
}

fn erase_decl(d: &mut VarDecl) {
    d.pos = Pos::default();
    for decl in &mut d.declarators {
        decl.pos = Pos::default();
        if let Some(init) = &mut decl.init {
            erase_initializer(init);
        }
    }
}

fn erase_initializer(init: &mut Initializer) {
    match init {
        Initializer::Value(v) => erase_operand(v),
        Initializer::Generic { pos, .. } => *pos = Pos::default(),
        Initializer::List { pos, items } => {
            *pos = Pos::default();
            items.iter_mut().for_each(erase_initializer);
        }
    }
}

fn erase_block(block: &mut Block) {
    let zero = Pos::default();
    block.pos = zero;
    for s in &mut block.statements {
        match s {
            Statement::Decl(d) => erase_decl(d),
            Statement::Label(l) => l.pos = zero,
            Statement::Instruction(i) => {
                i.pos = zero;
                if let Some(g) = &mut i.guard {
                    g.pos = zero;
                }
                i.operands.iter_mut().for_each(erase_operand);
            }
            Statement::Block(b) => erase_block(b),
            Statement::Loc(l) => l.pos = zero,
            Statement::Pragma(p) => p.pos = zero,
            Statement::Comment(c) => c.pos = zero,
            Statement::CallPrototype(p) => {
                p.pos = zero;
                for param in p.returns.iter_mut().chain(&mut p.params) {
                    param.pos = zero;
                }
            }
            Statement::BranchTargets(t) => t.pos = zero,
        }
    }
}

fn erase_operand(op: &mut Operand) {
    op.pos = Pos::default();
    if let OperandKind::Vector(items) | OperandKind::CallArgs(items) = &mut op.kind {
        items.iter_mut().for_each(erase_operand);
    }
}
