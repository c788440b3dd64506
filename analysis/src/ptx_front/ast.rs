//! The shared PTX front end (`warpforge_ptx::parse`, also the simulator's) → the statements the
//! lowering reads: module-scope declarations, each function's header, directives and body, with
//! nested scopes as `{` … `}`. Every statement is the parser's canonical printing of its node, at the
//! node's line and column; prototypes, debug sections, `.loc`, `.pragma` and comments are left out.

use warpforge_ptx::parse::{
    Block, Function, FunctionKind, Instruction, ParseError, Pos, Statement,
};

use super::error::PtxError;
use super::text::{Parsed, Stmt};

fn stmt(pos: Pos, text: impl Into<String>) -> Stmt {
    let text: String = text.into();
    Stmt {
        text: text.trim_end_matches(';').trim().to_owned(),
        line: pos.line as usize,
        col: pos.column as usize,
        inst: None,
        loc: None,
    }
}

/// An instruction's statement: its opcode as the text, its parts beside.
fn instruction(i: &Instruction) -> Stmt {
    Stmt {
        text: i.opcode.name().to_owned(),
        line: i.pos.line as usize,
        col: i.pos.column as usize,
        inst: Some(Box::new(Parsed {
            guard: i.guard.as_ref().map(|g| (g.pred.to_string(), g.negated)),
            opcode: i.opcode.clone(),
            mods: i.modifiers.clone(),
            ops: i.operands.iter().map(ToString::to_string).collect(),
        })),
        loc: None,
    }
}

/// The statements of a function with a body: its header (`.entry name(` / `.func name(`), its
/// directives, and its body.
pub(super) fn function_statements(f: &Function) -> Vec<Stmt> {
    let mut out = Vec::new();
    let kind = match f.kind {
        FunctionKind::Entry => ".entry",
        FunctionKind::Func => ".func",
    };
    out.push(stmt(f.pos, format!("{kind} {}(", f.name)));
    for d in &f.directives {
        out.push(stmt(d.pos, d.to_string()));
    }
    if let Some(body) = &f.body {
        block(body, &mut out);
    }
    out
}

fn block(b: &Block, out: &mut Vec<Stmt>) {
    out.push(stmt(b.pos, "{"));
    let mut end = b.pos;
    for s in &b.statements {
        match s {
            Statement::Decl(d) => {
                end = d.pos;
                out.push(stmt(d.pos, d.to_string()));
            }
            Statement::Label(l) => {
                end = l.pos;
                out.push(stmt(l.pos, format!("{}:", l.name)));
            }
            Statement::Instruction(i) => {
                end = i.pos;
                out.push(instruction(i));
            }
            Statement::Block(inner) => block(inner, out),
            // Kept (as `.loc`) so that findings can name the source line in force.
            Statement::Loc(l) => out.push(Stmt {
                loc: Some((l.file, l.line, l.column)),
                ..stmt(l.pos, ".loc")
            }),
            _ => {}
        }
    }
    out.push(stmt(end, "}"));
}

/// The parser's error as the linter's: where, and what — a module that ends inside a construct is
/// "cut short", naming the entry it ends in.
pub(super) fn error_of(src: &str, e: &ParseError) -> PtxError {
    let at_end = e.message.contains("end of file");
    let message = if at_end {
        let inside = src
            .rfind(".entry")
            .and_then(|i| src[i + 6..].split(['(', '\n']).next())
            .map(|name| format!(" (inside `.entry {}`)", name.trim()))
            .unwrap_or_default();
        format!("the file is cut short{inside}: {}", e.message)
    } else {
        e.message.clone()
    };
    PtxError {
        line: e.line as usize,
        message,
    }
}
