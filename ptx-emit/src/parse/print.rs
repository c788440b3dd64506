//! `Display` for the parsed AST: PTX text that parses back to an equal AST (positions aside). The
//! layout follows the emitter's (`crate::ast`): four-space indentation, labels in column 0,
//! `{%r1, %r2}` vectors, `[base+offset]` addresses, lower-case hex integers and upper-case `0f`
//! floats. Comments on lines of their own are printed where they were; trailing ones were dropped by
//! the parser.

use std::fmt::{self, Display, Formatter, Write};

use super::directives::{Declarator, FileDirective, Initializer, Loc, Param, Pragma, VarDecl};
use super::functions::{Function, FunctionDirective, FunctionDirectiveKind, FunctionKind};
use super::instructions::{Block, Guard, Instruction, Statement};
use super::module::{DataValue, Module, ModuleItem, Section, SectionItem};
use super::operands::{Address, AddressBase, Operand, OperandKind, Register};

const INDENT: &str = "    ";

/// Writes `items` separated by `", "`.
fn comma_list<T: Display>(f: &mut Formatter<'_>, items: &[T]) -> fmt::Result {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{item}")?;
    }
    Ok(())
}

impl Display for Module {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        for c in &self.preamble {
            writeln!(f, "//{}", c.text)?;
        }
        if !self.preamble.is_empty() {
            writeln!(f)?;
        }
        writeln!(f, ".version {}.{}", self.version.major, self.version.minor)?;
        writeln!(f, ".target {}", self.target.names.join(", "))?;
        if let Some(a) = self.address_size {
            writeln!(f, ".address_size {}", a.bits)?;
        }
        for item in &self.items {
            match item {
                ModuleItem::Variable(v) => writeln!(f, "\n{v}")?,
                ModuleItem::Function(func) => writeln!(f, "\n{func}")?,
                ModuleItem::File(file) => writeln!(f, "{file}")?,
                ModuleItem::Section(s) => write!(f, "{s}")?,
                ModuleItem::Pragma(p) => writeln!(f, "{p}")?,
                ModuleItem::Comment(c) => writeln!(f, "//{}", c.text)?,
            }
        }
        Ok(())
    }
}

impl Display for VarDecl {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        for l in &self.linkage {
            write!(f, ".{} ", l.name())?;
        }
        write!(f, ".{}", self.space.name())?;
        if let Some(a) = self.align {
            write!(f, " .align {a}")?;
        }
        if let Some(v) = self.vector {
            write!(f, " .v{v}")?;
        }
        write!(f, " .{} ", self.ty.name())?;
        comma_list(f, &self.declarators)?;
        f.write_str(";")
    }
}

fn write_dims(f: &mut Formatter<'_>, dims: &[Option<u64>]) -> fmt::Result {
    for d in dims {
        match d {
            Some(n) => write!(f, "[{n}]")?,
            None => f.write_str("[]")?,
        }
    }
    Ok(())
}

impl Display for Declarator {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)?;
        if let Some(n) = self.range {
            write!(f, "<{n}>")?;
        }
        write_dims(f, &self.dims)?;
        if let Some(init) = &self.init {
            write!(f, " = {init}")?;
        }
        Ok(())
    }
}

impl Display for Initializer {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Initializer::Value(v) => write!(f, "{v}"),
            Initializer::Generic { symbol, .. } => write!(f, "generic({symbol})"),
            Initializer::List { items, .. } => {
                f.write_str("{")?;
                comma_list(f, items)?;
                f.write_str("}")
            }
        }
    }
}

impl Display for Function {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        for l in &self.linkage {
            write!(f, ".{} ", l.name())?;
        }
        f.write_str(match self.kind {
            FunctionKind::Entry => ".entry ",
            FunctionKind::Func => ".func ",
        })?;
        if !self.returns.is_empty() {
            f.write_str("(")?;
            comma_list(f, &self.returns)?;
            f.write_str(") ")?;
        }
        write!(f, "{}(", self.name)?;
        for (i, p) in self.params.iter().enumerate() {
            let sep = if i + 1 == self.params.len() { "" } else { "," };
            write!(f, "\n{INDENT}{p}{sep}")?;
        }
        writeln!(f, "\n)")?;
        for d in &self.directives {
            writeln!(f, "{d}")?;
        }
        match &self.body {
            Some(body) => write_block(f, body, 0),
            None => writeln!(f, ";"),
        }
    }
}

impl Display for Param {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, ".{}", self.space.name())?;
        if let Some(a) = self.align {
            write!(f, " .align {a}")?;
        }
        if let Some(v) = self.vector {
            write!(f, " .v{v}")?;
        }
        write!(f, " .{}", self.ty.name())?;
        if let Some(ptr) = self.ptr {
            f.write_str(" .ptr")?;
            if let Some(space) = ptr.space {
                write!(f, " .{}", space.name())?;
            }
            if let Some(a) = ptr.align {
                write!(f, " .align {a}")?;
            }
        }
        write!(f, " {}", self.name)?;
        write_dims(f, &self.dims)
    }
}

impl Display for FunctionDirective {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match &self.kind {
            FunctionDirectiveKind::Reqntid(v)
            | FunctionDirectiveKind::Maxntid(v)
            | FunctionDirectiveKind::Cluster { values: v, .. } => {
                write!(f, ".{}", self.kind.name())?;
                if !v.is_empty() {
                    f.write_str(" ")?;
                    comma_list(f, v)?;
                }
                Ok(())
            }
            FunctionDirectiveKind::Minnctapersm(n)
            | FunctionDirectiveKind::Maxnctapersm(n)
            | FunctionDirectiveKind::Maxnreg(n) => write!(f, ".{} {n}", self.kind.name()),
            FunctionDirectiveKind::Noreturn => f.write_str(".noreturn"),
            FunctionDirectiveKind::Pragma(values) => write_pragma(f, values),
        }
    }
}

fn write_pragma(f: &mut Formatter<'_>, values: &[String]) -> fmt::Result {
    f.write_str(".pragma ")?;
    for (i, v) in values.iter().enumerate() {
        let sep = if i == 0 { "" } else { ", " };
        write!(f, "{sep}\"{v}\"")?;
    }
    f.write_str(";")
}

impl Display for Pragma {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write_pragma(f, &self.values)
    }
}

impl Display for Loc {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, ".loc {} {} {}", self.file, self.line, self.column)?;
        if let Some(name) = &self.function_name {
            write!(f, ", function_name {name}")?;
        }
        if let Some((file, line, column)) = self.inlined_at {
            write!(f, ", inlined_at {file} {line} {column}")?;
        }
        Ok(())
    }
}

impl Display for FileDirective {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, ".file {} \"{}\"", self.index, self.path)?;
        for n in &self.extra {
            write!(f, ", {n}")?;
        }
        Ok(())
    }
}

impl Display for Block {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write_block(f, self, 0)
    }
}

/// Writes `{`, the statements one indentation level deeper than `depth`, and `}`.
fn write_block(f: &mut Formatter<'_>, block: &Block, depth: usize) -> fmt::Result {
    let outer = INDENT.repeat(depth);
    let inner = INDENT.repeat(depth + 1);
    writeln!(f, "{outer}{{")?;
    for s in &block.statements {
        match s {
            Statement::Decl(d) => writeln!(f, "{inner}{d}")?,
            Statement::Label(l) => writeln!(f, "{}:", l.name)?,
            Statement::Instruction(i) => writeln!(f, "{inner}{i}")?,
            Statement::Block(b) => write_block(f, b, depth + 1)?,
            Statement::Loc(l) => writeln!(f, "{inner}{l}")?,
            Statement::Pragma(p) => writeln!(f, "{inner}{p}")?,
            Statement::Comment(c) => writeln!(f, "{inner}//{}", c.text)?,
            Statement::CallPrototype(p) => {
                write!(f, "{inner}.callprototype ")?;
                if !p.returns.is_empty() {
                    f.write_str("(")?;
                    comma_list(f, &p.returns)?;
                    f.write_str(") ")?;
                }
                f.write_str("_ (")?;
                comma_list(f, &p.params)?;
                writeln!(f, ");")?;
            }
            Statement::BranchTargets(t) => {
                writeln!(f, "{inner}.branchtargets {};", t.labels.join(", "))?
            }
        }
    }
    writeln!(f, "{outer}}}")
}

impl Display for Instruction {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if let Some(g) = &self.guard {
            write!(f, "{g} ")?;
        }
        f.write_str(self.opcode.name())?;
        for m in &self.modifiers {
            write!(f, ".{m}")?;
        }
        for (i, op) in self.operands.iter().enumerate() {
            f.write_str(if i == 0 { " " } else { ", " })?;
            write!(f, "{op}")?;
        }
        f.write_str(";")
    }
}

impl Display for Guard {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "@{}{}", if self.negated { "!" } else { "" }, self.pred)
    }
}

impl Display for Register {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)?;
        if let Some(c) = self.component {
            write!(f, ".{}", c.name())?;
        }
        Ok(())
    }
}

impl Display for Operand {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.kind)
    }
}

impl Display for OperandKind {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            OperandKind::Register(r) => write!(f, "{r}"),
            OperandKind::Int(v) => write!(f, "{v}"),
            OperandKind::Float(v) => write!(f, "{v}"),
            OperandKind::Address(a) => write!(f, "{a}"),
            OperandKind::Symbol(s) | OperandKind::Label(s) => f.write_str(s),
            OperandKind::Vector(items) => {
                f.write_char('{')?;
                comma_list(f, items)?;
                f.write_char('}')
            }
            OperandKind::Sink => f.write_char('_'),
            OperandKind::PredPair(value, pred) => write!(f, "{value}|{pred}"),
            OperandKind::Not(r) => write!(f, "!{r}"),
            OperandKind::CallArgs(items) => {
                f.write_char('(')?;
                comma_list(f, items)?;
                f.write_char(')')
            }
        }
    }
}

impl Display for Address {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_char('[')?;
        match &self.base {
            AddressBase::Register(r) => write!(f, "{r}")?,
            AddressBase::Symbol(s) => f.write_str(s)?,
            AddressBase::Absolute => return write!(f, "{}]", self.offset),
        }
        if self.offset != 0 {
            write!(f, "+{}", self.offset)?;
        }
        f.write_char(']')
    }
}

impl Display for Section {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        writeln!(f, ".section .{}", self.name)?;
        writeln!(f, "{{")?;
        for item in &self.items {
            match item {
                SectionItem::Label(l) => writeln!(f, "{}:", l.name)?,
                SectionItem::Data(d) => {
                    write!(f, ".{} ", d.ty.name())?;
                    comma_list(f, &d.values)?;
                    writeln!(f)?;
                }
            }
        }
        writeln!(f, "}}")
    }
}

impl Display for DataValue {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            DataValue::Int(v) => write!(f, "{v}"),
            DataValue::Symbol { name, offset: 0 } => f.write_str(name),
            DataValue::Symbol { name, offset } if *offset < 0 => write!(f, "{name}{offset}"),
            DataValue::Symbol { name, offset } => write!(f, "{name}+{offset}"),
        }
    }
}
