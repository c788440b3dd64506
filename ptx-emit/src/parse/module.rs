//! The module: the `.version` / `.target` / `.address_size` header, then module-scope items —
//! variables, functions, `.file` lines, debug `.section`s (kept as labelled data), `.pragma`s and
//! comments on lines of their own.

use super::cursor::Comment;
use super::cursor::Cursor;
use super::directives::{file, pragma, var_decl, FileDirective, Pragma, VarDecl};
use super::error::{ParseError, Pos};
use super::functions::{function, Function};
use super::instructions::Label;
use super::keywords::{DataType, Linkage, StateSpace};
use super::lexer::Tok;
use super::literals::{FloatImm, IntImm};

/// A parsed PTX module.
#[derive(Clone, Debug, PartialEq)]
pub struct Module {
    /// The comments before `.version` (a compiler's banner).
    pub preamble: Vec<Comment>,
    /// `.version`.
    pub version: Version,
    /// `.target`.
    pub target: Target,
    /// `.address_size`, when given.
    pub address_size: Option<AddressSize>,
    /// Everything after the header, in order.
    pub items: Vec<ModuleItem>,
}

impl Module {
    /// Every function (kernels and device functions, prototypes included), in order.
    pub fn functions(&self) -> impl Iterator<Item = &Function> {
        self.items.iter().filter_map(|i| match i {
            ModuleItem::Function(f) => Some(f),
            _ => None,
        })
    }

    /// The function named `name`.
    pub fn function(&self, name: &str) -> Option<&Function> {
        self.functions().find(|f| f.name == name)
    }

    /// Every `.entry`, in order.
    pub fn entries(&self) -> impl Iterator<Item = &Function> {
        self.functions().filter(|f| f.is_entry())
    }

    /// Every module-scope variable declaration, in order.
    pub fn variables(&self) -> impl Iterator<Item = &VarDecl> {
        self.items.iter().filter_map(|i| match i {
            ModuleItem::Variable(v) => Some(v),
            _ => None,
        })
    }
}

/// `.version major.minor`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Version {
    /// Where `.version` is.
    pub pos: Pos,
    /// Major version.
    pub major: u32,
    /// Minor version.
    pub minor: u32,
}

/// `.target sm_90a[, …]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// Where `.target` is.
    pub pos: Pos,
    /// The architecture first, then any options (`texmode_independent`, `debug`).
    pub names: Vec<String>,
}

/// `.address_size 64`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AddressSize {
    /// Where `.address_size` is.
    pub pos: Pos,
    /// 32 or 64.
    pub bits: u32,
}

/// One module-scope element.
#[derive(Clone, Debug, PartialEq)]
pub enum ModuleItem {
    /// A variable (`.global`, `.shared`, `.const`, …).
    Variable(VarDecl),
    /// An `.entry` or `.func`.
    Function(Function),
    /// A `.file` line.
    File(FileDirective),
    /// A debug `.section`.
    Section(Section),
    /// A module-scope `.pragma`.
    Pragma(Pragma),
    /// A comment on a line of its own.
    Comment(Comment),
}

/// `.section .debug_info { … }`: labelled data the debugger reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Section {
    /// Where `.section` is.
    pub pos: Pos,
    /// The section name without the dot (`debug_info`).
    pub name: String,
    /// Labels and data lines, in order.
    pub items: Vec<SectionItem>,
}

/// A line of a section.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SectionItem {
    /// A label (`$L__info_string0:`).
    Label(Label),
    /// A data line (`.b8 1, 2, 3`).
    Data(DataDirective),
}

/// `.b8 1, 2`, `.b32 .debug_abbrev`, `.b64 $L__func_begin0`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DataDirective {
    /// Where the type is.
    pub pos: Pos,
    /// The element type.
    pub ty: DataType,
    /// The values, in order.
    pub values: Vec<DataValue>,
}

/// A value of a data line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DataValue {
    /// A number.
    Int(IntImm),
    /// The address of a label or section (`$L__tmp0`, `.debug_line`), plus an offset.
    Symbol {
        /// The name as written (a section's with its dot).
        name: String,
        /// Added to the address.
        offset: i64,
    },
}

/// Reads a whole module.
pub(crate) fn module(c: &mut Cursor) -> Result<Module, ParseError> {
    let preamble = c.take_comments();
    let version = version(c)?;
    let target = target(c)?;
    let address_size = match c.eat_dot("address_size") {
        Some(pos) => {
            let (bits, bits_pos) = c.expect_u32("the address size (32 or 64)")?;
            if bits != 32 && bits != 64 {
                return Err(ParseError::new(
                    bits_pos,
                    format!("expected address size 32 or 64, found {bits}"),
                ));
            }
            Some(AddressSize { pos, bits })
        }
        None => None,
    };
    let mut items = Vec::new();
    loop {
        items.extend(c.take_comments().into_iter().map(ModuleItem::Comment));
        if c.at_eof() {
            break;
        }
        items.push(item(c)?);
    }
    Ok(Module {
        preamble,
        version,
        target,
        address_size,
        items,
    })
}

fn version(c: &mut Cursor) -> Result<Version, ParseError> {
    let Some(pos) = c.eat_dot("version") else {
        return Err(c.error("`.version` (a PTX module starts with it)"));
    };
    let text = match &c.peek().tok {
        Tok::Float(FloatImm::Decimal(text)) => text.clone(),
        _ => return Err(c.error("a version number `major.minor` after `.version`")),
    };
    let number_pos = c.bump().pos;
    let parsed = text
        .split_once('.')
        .and_then(|(major, minor)| Some((major.parse().ok()?, minor.parse().ok()?)));
    match parsed {
        Some((major, minor)) => Ok(Version { pos, major, minor }),
        None => Err(ParseError::new(
            number_pos,
            format!("expected a version number `major.minor`, found `{text}`"),
        )),
    }
}

fn target(c: &mut Cursor) -> Result<Target, ParseError> {
    let Some(pos) = c.eat_dot("target") else {
        return Err(c.error("`.target` after `.version`"));
    };
    let mut names = vec![c.expect_ident("the target architecture (`sm_90`)")?.0];
    while c.eat_punct(',') {
        names.push(c.expect_ident("a target option")?.0);
    }
    Ok(Target { pos, names })
}

fn item(c: &mut Cursor) -> Result<ModuleItem, ParseError> {
    let pos = c.peek().pos;
    match c.peek_dot() {
        Some("file") => return Ok(ModuleItem::File(file(c)?)),
        Some("section") => return Ok(ModuleItem::Section(section(c)?)),
        Some("pragma") => return Ok(ModuleItem::Pragma(pragma(c)?)),
        _ => {}
    }
    let mut linkage = Vec::new();
    while let Some(l) = c.peek_dot().and_then(Linkage::from_name) {
        linkage.push(l);
        c.bump();
    }
    match c.peek_dot() {
        Some("entry" | "func") => Ok(ModuleItem::Function(function(c, pos, linkage)?)),
        Some(space) if StateSpace::from_name(space).is_some() => {
            Ok(ModuleItem::Variable(var_decl(c, pos, linkage)?))
        }
        _ => Err(c.error(
            "a module-scope declaration (`.entry`, `.func`, `.global`, `.shared`, …), `.file` or `.section`",
        )),
    }
}

fn section(c: &mut Cursor) -> Result<Section, ParseError> {
    let pos = c.bump().pos;
    let name = match c.peek_dot() {
        Some(name) => name.to_string(),
        None => return Err(c.error("a section name (`.debug_info`) after `.section`")),
    };
    c.bump();
    let open = c.expect_punct('{', "to open the section")?;
    let mut items = Vec::new();
    loop {
        if c.eat_punct('}') {
            return Ok(Section { pos, name, items });
        }
        let item_pos = c.peek().pos;
        match c.peek().tok.clone() {
            Tok::Ident(label) if c.peek_nth(1).tok == Tok::Punct(':') => {
                c.bump();
                c.bump();
                items.push(SectionItem::Label(Label {
                    pos: item_pos,
                    name: label,
                }));
            }
            Tok::Dot(ty) => match DataType::from_name(&ty) {
                Some(ty) => {
                    c.bump();
                    items.push(SectionItem::Data(DataDirective {
                        pos: item_pos,
                        ty,
                        values: data_values(c)?,
                    }));
                }
                None => return Err(c.error("a data type (`.b8`, `.b32`, …) in the section")),
            },
            Tok::Eof => {
                return Err(c.error(&format!(
                    "`}}` to close the section opened at line {}",
                    open.line
                )))
            }
            _ => return Err(c.error("a label or a data line in the section")),
        }
    }
}

fn data_values(c: &mut Cursor) -> Result<Vec<DataValue>, ParseError> {
    let mut values = Vec::new();
    loop {
        let negative = c.eat_punct('-');
        let value = match c.peek().tok.clone() {
            Tok::Int(v) => DataValue::Int(IntImm { negative, ..v }),
            Tok::Ident(name) if !negative => DataValue::Symbol { name, offset: 0 },
            Tok::Dot(name) if !negative => DataValue::Symbol {
                name: format!(".{name}"),
                offset: 0,
            },
            _ => return Err(c.error("a number or a label in the data line")),
        };
        c.bump();
        let value = match value {
            DataValue::Symbol { name, .. } if c.is_punct('+') || c.is_punct('-') => {
                let minus = c.bump().tok == Tok::Punct('-');
                let (n, _) = c.expect_uint("an offset after the label", i64::MAX as u64)?;
                let n = n as i64;
                DataValue::Symbol {
                    name,
                    offset: if minus { -n } else { n },
                }
            }
            v => v,
        };
        values.push(value);
        if !c.eat_punct(',') {
            return Ok(values);
        }
    }
}
