//! Naming plain identifiers once a body is read: a name declared by a `.reg` in an enclosing scope
//! (or a `.reg` parameter) is a register, the name of one of the body's labels is a label, anything
//! else stays a symbol (a variable, a parameter, a function).

use std::collections::HashSet;

use super::directives::Param;
use super::instructions::{Block, Statement};
use super::keywords::StateSpace;
use super::operands::{AddressBase, Operand, OperandKind, Register};

/// A `.reg` name in scope and its `<N>` range, if any.
struct RegName {
    name: String,
    range: Option<u32>,
}

impl RegName {
    fn covers(&self, name: &str) -> bool {
        match self.range {
            None => self.name == name,
            Some(count) => name
                .strip_prefix(self.name.as_str())
                .filter(|digits| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
                .and_then(|digits| digits.parse::<u32>().ok())
                .is_some_and(|i| i < count),
        }
    }
}

/// Turns the body's plain names into registers and labels where their declarations say so.
pub(crate) fn resolve_names(body: &mut Block, returns: &[Param], params: &[Param]) {
    let mut labels = HashSet::new();
    collect_labels(body, &mut labels);
    let outer = returns
        .iter()
        .chain(params)
        .filter(|p| p.space == StateSpace::Reg)
        .map(|p| RegName {
            name: p.name.clone(),
            range: None,
        })
        .collect();
    let mut scopes = vec![outer];
    resolve_block(body, &labels, &mut scopes);
}

fn collect_labels(block: &Block, labels: &mut HashSet<String>) {
    for s in &block.statements {
        match s {
            Statement::Label(l) => {
                labels.insert(l.name.clone());
            }
            Statement::Block(b) => collect_labels(b, labels),
            _ => {}
        }
    }
}

fn resolve_block(block: &mut Block, labels: &HashSet<String>, scopes: &mut Vec<Vec<RegName>>) {
    let declared = block
        .statements
        .iter()
        .filter_map(|s| match s {
            Statement::Decl(d) if d.space == StateSpace::Reg => Some(d),
            _ => None,
        })
        .flat_map(|d| &d.declarators)
        .filter(|d| !d.name.starts_with('%'))
        .map(|d| RegName {
            name: d.name.clone(),
            range: d.range,
        })
        .collect();
    scopes.push(declared);
    for s in &mut block.statements {
        match s {
            Statement::Instruction(i) => {
                for op in &mut i.operands {
                    resolve_operand(op, labels, scopes);
                }
            }
            Statement::Block(b) => resolve_block(b, labels, scopes),
            _ => {}
        }
    }
    scopes.pop();
}

fn is_register(name: &str, scopes: &[Vec<RegName>]) -> bool {
    scopes.iter().flatten().any(|r| r.covers(name))
}

fn resolve_operand(op: &mut Operand, labels: &HashSet<String>, scopes: &[Vec<RegName>]) {
    match &mut op.kind {
        OperandKind::Symbol(name) => {
            if is_register(name, scopes) {
                op.kind = OperandKind::Register(Register::named(std::mem::take(name)));
            } else if labels.contains(name.as_str()) {
                op.kind = OperandKind::Label(std::mem::take(name));
            }
        }
        OperandKind::Vector(items) | OperandKind::CallArgs(items) => {
            for item in items {
                resolve_operand(item, labels, scopes);
            }
        }
        OperandKind::Address(a) => {
            if let AddressBase::Symbol(name) = &mut a.base {
                if is_register(name, scopes) {
                    a.base = AddressBase::Register(Register::named(std::mem::take(name)));
                }
            }
        }
        _ => {}
    }
}
