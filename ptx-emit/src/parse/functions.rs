//! `.entry` and `.func`: linkage, return and parameter lists, the directives between the header and
//! the body (`.reqntid`, `.maxntid`, `.minnctapersm`, …), and the body or the `;` of a prototype.

use super::cursor::Cursor;
use super::directives::{param_list, pragma, Param};
use super::error::{ParseError, Pos};
use super::instructions::{block, Block, Instruction, Instructions};
use super::keywords::Linkage;
use super::resolve::resolve_names;
use crate::isa::Opcode;

/// Whether a function is a kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FunctionKind {
    /// `.entry`: a kernel, launched from the host.
    Entry,
    /// `.func`: a device function, called from kernels.
    Func,
}

/// A kernel or device function.
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    /// Where the declaration starts.
    pub pos: Pos,
    /// Linkage directives, in order (`.visible`, `.extern`, `.weak`).
    pub linkage: Vec<Linkage>,
    /// `.entry` or `.func`.
    pub kind: FunctionKind,
    /// Return parameters of a `.func` (`(.param .b32 func_retval0)`), in order.
    pub returns: Vec<Param>,
    /// The name.
    pub name: String,
    /// Parameters, in order.
    pub params: Vec<Param>,
    /// The directives between the parameter list and the body, in order.
    pub directives: Vec<FunctionDirective>,
    /// The body; `None` for a prototype (`… ;`).
    pub body: Option<Block>,
}

impl Function {
    /// Whether it is an `.entry`.
    pub fn is_entry(&self) -> bool {
        self.kind == FunctionKind::Entry
    }

    /// `.reqntid`, missing dimensions as 1.
    pub fn reqntid(&self) -> Option<[u32; 3]> {
        self.directives.iter().find_map(|d| match &d.kind {
            FunctionDirectiveKind::Reqntid(dims) => Some(dims3(dims)),
            _ => None,
        })
    }

    /// `.maxntid`, missing dimensions as 1.
    pub fn maxntid(&self) -> Option<[u32; 3]> {
        self.directives.iter().find_map(|d| match &d.kind {
            FunctionDirectiveKind::Maxntid(dims) => Some(dims3(dims)),
            _ => None,
        })
    }

    /// Every instruction of the body, nested blocks included, in text order.
    pub fn instructions(&self) -> Instructions<'_> {
        match &self.body {
            Some(body) => body.instructions(),
            None => Instructions::empty(),
        }
    }

    /// The instruction count of the body, nested blocks included.
    pub fn instruction_count(&self) -> usize {
        self.instructions().count()
    }

    /// The parameter named `name`.
    pub fn param(&self, name: &str) -> Option<&Param> {
        self.params.iter().find(|p| p.name == name)
    }

    /// Every instruction with its opcode `opcode` (`bar`, `shfl`).
    pub fn instructions_named(&self, opcode: Opcode) -> impl Iterator<Item = &Instruction> + '_ {
        self.instructions().filter(move |i| i.opcode == opcode)
    }
}

fn dims3(dims: &[u32]) -> [u32; 3] {
    let at = |i: usize| dims.get(i).copied().unwrap_or(1);
    [at(0), at(1), at(2)]
}

/// A directive between a function's parameters and its body, and where it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FunctionDirective {
    /// Where the directive is.
    pub pos: Pos,
    /// Which it is, with its values.
    pub kind: FunctionDirectiveKind,
}

/// Performance-tuning and other function directives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FunctionDirectiveKind {
    /// `.reqntid x[, y[, z]]`: the block shape every launch must have.
    Reqntid(Vec<u32>),
    /// `.maxntid x[, y[, z]]`: the largest block a launch may have.
    Maxntid(Vec<u32>),
    /// `.minnctapersm n`.
    Minnctapersm(u32),
    /// `.maxnctapersm n`.
    Maxnctapersm(u32),
    /// `.maxnreg n`.
    Maxnreg(u32),
    /// `.noreturn`.
    Noreturn,
    /// `.pragma "…";`.
    Pragma(Vec<String>),
    /// A cluster directive (`.explicitcluster`, `.reqnctapercluster x, y, z`, `.maxclusterrank n`)
    /// with its values.
    Cluster {
        /// The directive's name without the dot.
        name: String,
        /// Its values.
        values: Vec<u32>,
    },
}

impl FunctionDirectiveKind {
    /// The directive's name without the dot.
    pub fn name(&self) -> &str {
        match self {
            FunctionDirectiveKind::Reqntid(_) => "reqntid",
            FunctionDirectiveKind::Maxntid(_) => "maxntid",
            FunctionDirectiveKind::Minnctapersm(_) => "minnctapersm",
            FunctionDirectiveKind::Maxnctapersm(_) => "maxnctapersm",
            FunctionDirectiveKind::Maxnreg(_) => "maxnreg",
            FunctionDirectiveKind::Noreturn => "noreturn",
            FunctionDirectiveKind::Pragma(_) => "pragma",
            FunctionDirectiveKind::Cluster { name, .. } => name,
        }
    }
}

const CLUSTER_DIRECTIVES: [&str; 4] = [
    "explicitcluster",
    "reqnctapercluster",
    "maxclusterrank",
    "blocksareclusters",
];

/// Reads a function whose linkage (already consumed) is `linkage`; `.entry` or `.func` is next.
pub(crate) fn function(
    c: &mut Cursor,
    pos: Pos,
    linkage: Vec<Linkage>,
) -> Result<Function, ParseError> {
    let kind = if c.eat_dot("entry").is_some() {
        FunctionKind::Entry
    } else if c.eat_dot("func").is_some() {
        FunctionKind::Func
    } else {
        return Err(c.error("`.entry` or `.func`"));
    };
    let returns = if kind == FunctionKind::Func && c.is_punct('(') {
        param_list(c, "to close the return parameter list")?
    } else {
        Vec::new()
    };
    let (name, _) = c.expect_ident("the function name")?;
    let params = if c.is_punct('(') {
        param_list(c, "to close the parameter list")?
    } else {
        Vec::new()
    };
    let mut directives = Vec::new();
    while let Some(name) = c.peek_dot() {
        let name = name.to_string();
        let dpos = c.peek().pos;
        let kind = match name.as_str() {
            "pragma" => FunctionDirectiveKind::Pragma(pragma(c)?.values),
            "reqntid" | "maxntid" => {
                c.bump();
                let dims = numbers(c, &name)?;
                if dims.is_empty() || dims.len() > 3 {
                    return Err(ParseError::new(
                        dpos,
                        format!("`.{name}` takes 1 to 3 dimensions, found {}", dims.len()),
                    ));
                }
                if name == "reqntid" {
                    FunctionDirectiveKind::Reqntid(dims)
                } else {
                    FunctionDirectiveKind::Maxntid(dims)
                }
            }
            "minnctapersm" | "maxnctapersm" | "maxnreg" => {
                c.bump();
                let (n, _) = c.expect_u32(&format!("the value of `.{name}`"))?;
                match name.as_str() {
                    "minnctapersm" => FunctionDirectiveKind::Minnctapersm(n),
                    "maxnctapersm" => FunctionDirectiveKind::Maxnctapersm(n),
                    _ => FunctionDirectiveKind::Maxnreg(n),
                }
            }
            "noreturn" => {
                c.bump();
                FunctionDirectiveKind::Noreturn
            }
            _ if CLUSTER_DIRECTIVES.contains(&name.as_str()) => {
                c.bump();
                let values = numbers(c, &name)?;
                FunctionDirectiveKind::Cluster { name, values }
            }
            _ => {
                return Err(
                    c.error("a function directive (`.reqntid`, `.maxntid`, …) or the body `{`")
                )
            }
        };
        directives.push(FunctionDirective { pos: dpos, kind });
    }
    let body = if c.eat_punct(';') {
        None
    } else if c.is_punct('{') {
        let mut body = block(c, 0)?;
        resolve_names(&mut body, &returns, &params);
        Some(body)
    } else {
        return Err(c.error("the function body `{` or `;`"));
    };
    Ok(Function {
        pos,
        linkage,
        kind,
        returns,
        name,
        params,
        directives,
        body,
    })
}

/// Reads `n[, n…]` on the directive's line.
fn numbers(c: &mut Cursor, directive: &str) -> Result<Vec<u32>, ParseError> {
    let mut values = Vec::new();
    if !c.on_previous_line() || c.is_punct('{') {
        return Ok(values);
    }
    loop {
        values.push(c.expect_u32(&format!("a number after `.{directive}`"))?.0);
        if !c.eat_punct(',') {
            return Ok(values);
        }
    }
}
