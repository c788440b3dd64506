//! Declarations and the directives that are not functions: variables (`.reg`, `.shared`, `.global`,
//! …, with alignment, vector width, array sizes and initializers), `.loc`, `.pragma` and `.file`.
//! The debug directives are kept as data; each ends at its newline.

use super::cursor::{Cursor, MAX_NESTING};
use super::error::{ParseError, Pos};
use super::keywords::{DataType, Linkage, StateSpace};
use super::lexer::Tok;
use super::operands::{operand, Operand, OperandKind};

/// A variable declaration: `.reg .b32 %r<8>;`, `.extern .shared .align 16 .b8 smem[];`,
/// `.global .align 4 .u32 x = 5;`.
#[derive(Clone, Debug, PartialEq)]
pub struct VarDecl {
    /// Where the declaration starts (its first linkage or its state space).
    pub pos: Pos,
    /// Linkage directives, in order.
    pub linkage: Vec<Linkage>,
    /// The state space.
    pub space: StateSpace,
    /// `.align N`.
    pub align: Option<u32>,
    /// `.v2`, `.v4`, `.v8`: the vector width.
    pub vector: Option<u32>,
    /// The element type.
    pub ty: DataType,
    /// The names declared, in order.
    pub declarators: Vec<Declarator>,
}

/// One name of a declaration, with its register range, array sizes and initializer.
#[derive(Clone, Debug, PartialEq)]
pub struct Declarator {
    /// Where the name is.
    pub pos: Pos,
    /// The name (`%r` of `%r<8>`).
    pub name: String,
    /// `<N>`: declares `name0` … `name{N-1}`.
    pub range: Option<u32>,
    /// Array sizes, outermost first; `None` for `[]`.
    pub dims: Vec<Option<u64>>,
    /// `= …`.
    pub init: Option<Initializer>,
}

impl Declarator {
    /// How many elements it declares: the product of its array sizes (1 for a scalar; `None` for an
    /// unsized `[]` array or a product past `u64`).
    pub fn elements(&self) -> Option<u64> {
        self.dims
            .iter()
            .try_fold(1u64, |n, d| d.and_then(|d| n.checked_mul(d)))
    }
}

/// A variable's initial value.
#[derive(Clone, Debug, PartialEq)]
pub enum Initializer {
    /// An integer, a float, or a name (the address of a variable or function).
    Value(Operand),
    /// `generic(name)`: a variable's generic address.
    Generic {
        /// Where it starts.
        pos: Pos,
        /// The variable.
        symbol: String,
    },
    /// `{a, b, …}`.
    List {
        /// Where the `{` is.
        pos: Pos,
        /// The elements.
        items: Vec<Initializer>,
    },
}

/// `.loc file line column[, function_name name, inlined_at file line column]`: the source position of
/// the following instructions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loc {
    /// Where `.loc` is.
    pub pos: Pos,
    /// The `.file` index.
    pub file: u32,
    /// Source line.
    pub line: u32,
    /// Source column.
    pub column: u32,
    /// The inlined function's name label.
    pub function_name: Option<String>,
    /// Where it was inlined: file, line, column.
    pub inlined_at: Option<(u32, u32, u32)>,
}

/// `.pragma "…", …;`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pragma {
    /// Where `.pragma` is.
    pub pos: Pos,
    /// The strings, escapes as written.
    pub values: Vec<String>,
}

/// `.file index "path"[, timestamp, size]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileDirective {
    /// Where `.file` is.
    pub pos: Pos,
    /// The index `.loc` refers to.
    pub index: u32,
    /// The path as written.
    pub path: String,
    /// Timestamp and size, when given.
    pub extra: Vec<u64>,
}

/// Reads a variable declaration whose linkage (already consumed) is `linkage` and which starts at
/// `pos`; the next token is the state space.
pub(crate) fn var_decl(
    c: &mut Cursor,
    pos: Pos,
    linkage: Vec<Linkage>,
) -> Result<VarDecl, ParseError> {
    let space = match c.peek_dot().and_then(StateSpace::from_name) {
        Some(space) => space,
        None => return Err(c.error("a state space (`.reg`, `.shared`, `.global`, …)")),
    };
    c.bump();
    let attrs = type_and_attributes(c, false)?;
    let mut declarators = Vec::new();
    loop {
        declarators.push(declarator(c)?);
        if c.eat_punct(';') {
            break;
        }
        if !c.eat_punct(',') {
            return Err(c.error("`,` or `;` after the declared name"));
        }
    }
    Ok(VarDecl {
        pos,
        linkage,
        space,
        align: attrs.align,
        vector: attrs.vector,
        ty: attrs.ty,
        declarators,
    })
}

/// What may stand between a state space and the declared name.
pub(crate) struct TypeAttributes {
    pub align: Option<u32>,
    pub vector: Option<u32>,
    pub ty: DataType,
    /// `.ptr [.space] [.align N]` (parameters only), when present: the space and alignment.
    pub ptr: Option<(Option<StateSpace>, Option<u32>)>,
}

/// Reads `.align N`, `.vN` and the type in any order up to the type, then (for parameters) `.ptr`
/// with its space and alignment.
pub(crate) fn type_and_attributes(
    c: &mut Cursor,
    param: bool,
) -> Result<TypeAttributes, ParseError> {
    let (mut align, mut vector) = (None, None);
    let ty = loop {
        let Some(name) = c.peek_dot() else {
            return Err(c.error("a type (`.b32`, `.u64`, `.f32`, …)"));
        };
        if let Some(ty) = DataType::from_name(name) {
            c.bump();
            break ty;
        }
        match name {
            "align" => {
                c.bump();
                align = Some(c.expect_u32("the alignment after `.align`")?.0);
            }
            "v2" | "v4" | "v8" => {
                vector = name[1..].parse().ok();
                c.bump();
            }
            _ => return Err(c.error("a type (`.b32`, `.u64`, `.f32`, …) or `.align`")),
        }
    };
    let mut ptr = None;
    if param && c.eat_dot("ptr").is_some() {
        let space = match c.peek_dot().and_then(StateSpace::from_name) {
            Some(space) => {
                c.bump();
                Some(space)
            }
            None => None,
        };
        let ptr_align = match c.eat_dot("align") {
            Some(_) => Some(c.expect_u32("the alignment after `.align`")?.0),
            None => None,
        };
        ptr = Some((space, ptr_align));
    }
    Ok(TypeAttributes {
        align,
        vector,
        ty,
        ptr,
    })
}

/// Reads the name being declared: a `%` name or a plain name.
pub(crate) fn declared_name(c: &mut Cursor) -> Result<(String, Pos), ParseError> {
    match &c.peek().tok {
        Tok::Ident(name) | Tok::Reg(name) => {
            let name = name.clone();
            Ok((name, c.bump().pos))
        }
        _ => Err(c.error("the declared name")),
    }
}

/// Reads array sizes `[N]` / `[]`, outermost first.
pub(crate) fn dims(c: &mut Cursor) -> Result<Vec<Option<u64>>, ParseError> {
    let mut dims = Vec::new();
    while c.eat_punct('[') {
        if c.eat_punct(']') {
            dims.push(None);
        } else {
            dims.push(Some(c.expect_uint("an array size", u64::MAX)?.0));
            c.expect_punct(']', "to close the array size")?;
        }
    }
    Ok(dims)
}

fn declarator(c: &mut Cursor) -> Result<Declarator, ParseError> {
    let (name, pos) = declared_name(c)?;
    let range = if c.eat_punct('<') {
        let (n, _) = c.expect_u32("the register count")?;
        c.expect_punct('>', "to close the register count")?;
        Some(n)
    } else {
        None
    };
    let dims = dims(c)?;
    let init = if c.eat_punct('=') {
        Some(initializer(c, 0)?)
    } else {
        None
    };
    Ok(Declarator {
        pos,
        name,
        range,
        dims,
        init,
    })
}

fn initializer(c: &mut Cursor, depth: u32) -> Result<Initializer, ParseError> {
    let pos = c.peek().pos;
    if c.eat_punct('{') {
        if depth >= MAX_NESTING {
            return Err(ParseError::new(
                pos,
                format!("initializer lists nested deeper than {MAX_NESTING}"),
            ));
        }
        let mut items = Vec::new();
        loop {
            items.push(initializer(c, depth + 1)?);
            if c.eat_punct('}') {
                return Ok(Initializer::List { pos, items });
            }
            if !c.eat_punct(',') {
                return Err(c.error("`,` or `}` in the initializer list"));
            }
        }
    }
    if matches!(&c.peek().tok, Tok::Ident(n) if n == "generic")
        && c.peek_nth(1).tok == Tok::Punct('(')
    {
        c.bump();
        c.bump();
        let (symbol, _) = c.expect_ident("a variable name in `generic(…)`")?;
        c.expect_punct(')', "to close `generic(`")?;
        return Ok(Initializer::Generic { pos, symbol });
    }
    let value = operand(c)?;
    match value.kind {
        OperandKind::Int(_) | OperandKind::Float(_) | OperandKind::Symbol(_) => {
            Ok(Initializer::Value(value))
        }
        _ => Err(ParseError::new(
            pos,
            "expected a constant (an integer, a float or a name) in the initializer",
        )),
    }
}

/// Reads `.loc …` (the `.loc` is next); it ends at the newline.
pub(crate) fn loc(c: &mut Cursor) -> Result<Loc, ParseError> {
    let pos = c.bump().pos;
    let mut nums = [0u32; 3];
    for (n, what) in nums.iter_mut().zip(["file index", "line", "column"]) {
        if !c.on_previous_line() {
            return Err(c.error(&format!("the {what} of `.loc` on its line")));
        }
        *n = c.expect_u32(&format!("the {what} of `.loc`"))?.0;
    }
    let mut loc = Loc {
        pos,
        file: nums[0],
        line: nums[1],
        column: nums[2],
        function_name: None,
        inlined_at: None,
    };
    while c.on_previous_line() && c.eat_punct(',') {
        let (key, key_pos) = c.expect_ident("`function_name` or `inlined_at` in `.loc`")?;
        match key.as_str() {
            "function_name" => loc.function_name = Some(c.expect_ident("a name label")?.0),
            "inlined_at" => {
                let f = c.expect_u32("the file index of `inlined_at`")?.0;
                let l = c.expect_u32("the line of `inlined_at`")?.0;
                let col = c.expect_u32("the column of `inlined_at`")?.0;
                loc.inlined_at = Some((f, l, col));
            }
            _ => {
                return Err(ParseError::new(
                    key_pos,
                    format!("expected `function_name` or `inlined_at` in `.loc`, found `{key}`"),
                ))
            }
        }
    }
    if c.on_previous_line() && !c.is_punct('}') {
        return Err(c.error("the end of the line after `.loc`"));
    }
    Ok(loc)
}

/// Reads `.pragma "…", …;` (the `.pragma` is next).
pub(crate) fn pragma(c: &mut Cursor) -> Result<Pragma, ParseError> {
    let pos = c.bump().pos;
    let mut values = Vec::new();
    loop {
        match &c.peek().tok {
            Tok::Str(s) => {
                values.push(s.clone());
                c.bump();
            }
            _ => return Err(c.error("a string after `.pragma`")),
        }
        if c.eat_punct(';') {
            return Ok(Pragma { pos, values });
        }
        if !c.eat_punct(',') {
            return Err(c.error("`,` or `;` after the pragma string"));
        }
    }
}

/// Reads `.file N "path"[, …]` (the `.file` is next); it ends at the newline.
pub(crate) fn file(c: &mut Cursor) -> Result<FileDirective, ParseError> {
    let pos = c.bump().pos;
    let (index, _) = c.expect_u32("the file index after `.file`")?;
    let path = match &c.peek().tok {
        Tok::Str(s) => s.clone(),
        _ => return Err(c.error("the file name string")),
    };
    c.bump();
    let mut extra = Vec::new();
    while c.on_previous_line() && c.eat_punct(',') {
        extra.push(c.expect_uint("a timestamp or size in `.file`", u64::MAX)?.0);
    }
    Ok(FileDirective {
        pos,
        index,
        path,
        extra,
    })
}

/// A parameter: `.param .u64 name`, `.param .align 8 .b8 name[16]`,
/// `.param .u64 .ptr .global .align 1 name`, or a `.reg` parameter of a `.func`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    /// Where it starts.
    pub pos: Pos,
    /// `.param` or `.reg`.
    pub space: StateSpace,
    /// `.align N`.
    pub align: Option<u32>,
    /// `.v2`, `.v4`: the vector width.
    pub vector: Option<u32>,
    /// The type.
    pub ty: DataType,
    /// `.ptr`: the pointer's state space and alignment (both optional).
    pub ptr: Option<PtrAttributes>,
    /// The name.
    pub name: String,
    /// Array sizes (`[16]`); `None` for `[]`.
    pub dims: Vec<Option<u64>>,
}

/// What `.ptr` says about a pointer parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PtrAttributes {
    /// The space it points into.
    pub space: Option<StateSpace>,
    /// The alignment of what it points to.
    pub align: Option<u32>,
}

/// Reads `(param, …)`.
pub(crate) fn param_list(c: &mut Cursor, context: &str) -> Result<Vec<Param>, ParseError> {
    c.expect_punct('(', "")?;
    let mut params = Vec::new();
    if c.eat_punct(')') {
        return Ok(params);
    }
    loop {
        params.push(param(c)?);
        if c.eat_punct(')') {
            return Ok(params);
        }
        if !c.eat_punct(',') {
            return Err(c.error(&format!("`,` or `)` {context}")));
        }
    }
}

fn param(c: &mut Cursor) -> Result<Param, ParseError> {
    let pos = c.peek().pos;
    let space = if c.eat_dot("param").is_some() {
        StateSpace::Param
    } else if c.eat_dot("reg").is_some() {
        StateSpace::Reg
    } else {
        return Err(c.error("a parameter (`.param` or `.reg`)"));
    };
    let attrs = type_and_attributes(c, space == StateSpace::Param)?;
    let (name, _) = declared_name(c)?;
    let dims = dims(c)?;
    Ok(Param {
        pos,
        space,
        align: attrs.align,
        vector: attrs.vector,
        ty: attrs.ty,
        ptr: attrs
            .ptr
            .map(|(space, align)| PtrAttributes { space, align }),
        name,
        dims,
    })
}
