//! Function bodies: blocks of statements (declarations, labels, instructions, nested `{ … }` scopes
//! such as call sequences and inline asm, `.loc`, `.pragma`, `.callprototype`, `.branchtargets`, and
//! comments that stand on their own lines), and the instruction grammar: guard, opcode, modifiers, operands.

use super::cursor::{Comment, Cursor, MAX_NESTING};
use super::directives::{loc, pragma, var_decl, Loc, Pragma, VarDecl};
use super::directives::{param_list, Param};
use super::error::{ParseError, Pos};
use super::keywords::StateSpace;
use super::lexer::Tok;
use super::operands::{operand, register, Operand, Register};
use crate::isa::{Modifier, Opcode};

/// A `{ … }` scope.
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    /// Where the `{` is.
    pub pos: Pos,
    /// Its statements, in order.
    pub statements: Vec<Statement>,
}

/// One element of a body.
#[derive(Clone, Debug, PartialEq)]
pub enum Statement {
    /// A declaration (`.reg`, `.shared`, `.local`, `.param`, …), scoped to the block.
    Decl(VarDecl),
    /// A label.
    Label(Label),
    /// An instruction.
    Instruction(Instruction),
    /// A nested scope (a call sequence, an inline asm block).
    Block(Block),
    /// A `.loc` source position.
    Loc(Loc),
    /// A `.pragma`.
    Pragma(Pragma),
    /// A comment on a line of its own.
    Comment(Comment),
    /// `.callprototype (…) _ (…);`: the signature of an indirect call (after its label).
    CallPrototype(CallPrototype),
    /// `.branchtargets L1, L2, …;`: the table of a `brx.idx` (after its label).
    BranchTargets(BranchTargets),
}

/// `.callprototype (.param .b32 _) _ (.param .b64 _);`: the signature `call` names for an indirect
/// call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallPrototype {
    /// Where `.callprototype` is.
    pub pos: Pos,
    /// Return parameters.
    pub returns: Vec<Param>,
    /// Parameters.
    pub params: Vec<Param>,
}

/// `.branchtargets L1, L2;`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BranchTargets {
    /// Where `.branchtargets` is.
    pub pos: Pos,
    /// The labels, in order.
    pub labels: Vec<String>,
}

/// A label definition `name:`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label {
    /// Where the name is.
    pub pos: Pos,
    /// The name.
    pub name: String,
}

/// An instruction: `@!%p1 ld.global.nc.v4.u32 {%r1, %r2, %r3, %r4}, [%rd1+16];`.
#[derive(Clone, Debug, PartialEq)]
pub struct Instruction {
    /// Where it starts (its guard, if any).
    pub pos: Pos,
    /// The guard predicate.
    pub guard: Option<Guard>,
    /// The opcode (`ld`).
    pub opcode: Opcode,
    /// The dotted modifiers, in order (`global`, `nc`, `v4`, `u32`; `shared::cta`).
    pub modifiers: Vec<Modifier>,
    /// The operands, in order.
    pub operands: Vec<Operand>,
}

impl Instruction {
    /// Whether `modifier` is among the modifiers.
    pub fn has_modifier(&self, modifier: &Modifier) -> bool {
        self.modifiers.contains(modifier)
    }

    /// The opcode with its modifiers, as written (`ld.global.nc.u32`).
    pub fn full_opcode(&self) -> String {
        let mut s = self.opcode.name().to_owned();
        for m in &self.modifiers {
            s.push('.');
            s.push_str(&m.to_string());
        }
        s
    }
}

/// A guard `@%p` / `@!%p`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Guard {
    /// Where the `@` is.
    pub pos: Pos,
    /// `@!`: the instruction runs where the predicate is false.
    pub negated: bool,
    /// The predicate register.
    pub pred: Register,
}

impl Block {
    /// Every instruction of the block, nested blocks included, in text order.
    pub fn instructions(&self) -> Instructions<'_> {
        Instructions {
            stack: vec![self.statements.iter()],
        }
    }
}

/// The instructions of a block and its nested blocks, depth first in text order.
#[derive(Clone, Debug)]
pub struct Instructions<'a> {
    stack: Vec<std::slice::Iter<'a, Statement>>,
}

impl Instructions<'_> {
    /// No instructions (a prototype's).
    pub fn empty() -> Self {
        Instructions { stack: Vec::new() }
    }
}

impl<'a> Iterator for Instructions<'a> {
    type Item = &'a Instruction;

    fn next(&mut self) -> Option<&'a Instruction> {
        loop {
            let top = self.stack.last_mut()?;
            match top.next() {
                None => {
                    self.stack.pop();
                }
                Some(Statement::Instruction(i)) => return Some(i),
                Some(Statement::Block(b)) => self.stack.push(b.statements.iter()),
                Some(_) => {}
            }
        }
    }
}

/// Reads a `{ … }` block nested `depth` blocks deep (the `{` is next).
pub(crate) fn block(c: &mut Cursor, depth: u32) -> Result<Block, ParseError> {
    let pos = c.expect_punct('{', "")?;
    if depth >= MAX_NESTING {
        return Err(ParseError::new(
            pos,
            format!("blocks nested deeper than {MAX_NESTING}"),
        ));
    }
    let mut statements = Vec::new();
    loop {
        statements.extend(c.take_comments().into_iter().map(Statement::Comment));
        if c.eat_punct('}') {
            return Ok(Block { pos, statements });
        }
        if c.at_eof() {
            return Err(c.error(&format!(
                "`}}` to close the block opened at line {}",
                pos.line
            )));
        }
        statements.push(statement(c, depth)?);
    }
}

fn statement(c: &mut Cursor, depth: u32) -> Result<Statement, ParseError> {
    let pos = c.peek().pos;
    match &c.peek().tok {
        Tok::Punct('{') => Ok(Statement::Block(block(c, depth + 1)?)),
        Tok::Dot(name) => match name.as_str() {
            "loc" => Ok(Statement::Loc(loc(c)?)),
            "pragma" => Ok(Statement::Pragma(pragma(c)?)),
            "callprototype" => Ok(Statement::CallPrototype(call_prototype(c)?)),
            "branchtargets" => Ok(Statement::BranchTargets(branch_targets(c)?)),
            _ if StateSpace::from_name(name).is_some() => {
                Ok(Statement::Decl(var_decl(c, pos, Vec::new())?))
            }
            _ => Err(c.error("an instruction, a label or a declaration")),
        },
        Tok::Ident(name) if c.peek_nth(1).tok == Tok::Punct(':') => {
            let name = name.clone();
            c.bump();
            c.bump();
            Ok(Statement::Label(Label { pos, name }))
        }
        Tok::Ident(_) | Tok::Punct('@') => Ok(Statement::Instruction(instruction(c)?)),
        _ => Err(c.error("an instruction, a label, a declaration or `}`")),
    }
}

fn call_prototype(c: &mut Cursor) -> Result<CallPrototype, ParseError> {
    let pos = c.bump().pos;
    let returns = if c.is_punct('(') {
        param_list(c, "to close the return parameter list")?
    } else {
        Vec::new()
    };
    match &c.peek().tok {
        Tok::Ident(name) if name == "_" => {
            c.bump();
        }
        _ => return Err(c.error("`_` (the prototype's name) after `.callprototype`")),
    }
    let params = param_list(c, "to close the parameter list")?;
    c.expect_punct(';', "after the call prototype")?;
    Ok(CallPrototype {
        pos,
        returns,
        params,
    })
}

fn branch_targets(c: &mut Cursor) -> Result<BranchTargets, ParseError> {
    let pos = c.bump().pos;
    let mut labels = Vec::new();
    loop {
        labels.push(c.expect_ident("a label in `.branchtargets`")?.0);
        if c.eat_punct(';') {
            return Ok(BranchTargets { pos, labels });
        }
        if !c.eat_punct(',') {
            return Err(c.error("`,` or `;` in `.branchtargets`"));
        }
    }
}

fn instruction(c: &mut Cursor) -> Result<Instruction, ParseError> {
    let pos = c.peek().pos;
    let guard = if c.eat_punct('@') {
        let negated = c.eat_punct('!');
        let pred = register(c, "a predicate register after `@`")?;
        Some(Guard { pos, negated, pred })
    } else {
        None
    };
    let (name, _) = c.expect_ident("an opcode")?;
    let opcode = Opcode::from_name(&name);
    let mut modifiers = Vec::new();
    while c.touches_previous() {
        match c.peek_dot() {
            Some(m) => {
                modifiers.push(Modifier::from_name(m));
                c.bump();
            }
            None => break,
        }
    }
    let mut operands = Vec::new();
    if !c.eat_punct(';') {
        loop {
            operands.push(operand(c)?);
            if c.eat_punct(';') {
                break;
            }
            if !c.eat_punct(',') {
                return Err(c.error(&format!(
                    "`,` or `;` after operand {} of `{opcode}`",
                    operands.len()
                )));
            }
        }
    }
    Ok(Instruction {
        pos,
        guard,
        opcode,
        modifiers,
        operands,
    })
}
