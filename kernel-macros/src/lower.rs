//! The lowering context: what each Rust name in a kernel body stands for, which loops enclose the
//! current statement, and small helpers shared by the expression and statement lowering.

use proc_macro2::{Span, TokenStream as Tokens};
use quote::quote_spanned;
use syn::ext::IdentExt;
use syn::{Error, Ident, Result};

/// What a name in a kernel body stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Binding {
    /// An immutable value (`let x = …`, a loop variable, a device function's scalar parameter): a
    /// `Val<T>` in the generated code.
    Value,
    /// A mutable local (`let mut x = …`): a `Local<T>`; reading it emits a `read`.
    Local,
    /// A kernel's scalar parameter: a `ScalarParam<T>`; reading it emits a `param`.
    Scalar,
    /// A buffer parameter or a shared array: indexed, never read whole.
    Array {
        /// `&mut [T]` or a shared array.
        writable: bool,
    },
    /// A Rust constant known while building (a const generic, an unrolled loop's element): each use
    /// emits a literal.
    Const,
    /// The counter of `for i in unroll(a..b)`: a `u32` known while building; each use emits a
    /// `u32` literal.
    Counter,
    /// A register array (`let mut acc = [0.0f32; 8];`, `let w = [a, b, c];`): a Rust array of
    /// `Local<T>` (mutable) or `Val<T>`, indexed by constants while building.
    Registers {
        /// `let mut`: its elements can be assigned.
        mutable: bool,
    },
}

/// Loops around the current statement, innermost last.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoopKind {
    /// An IR loop (`loop`, `while`, `for` over a range).
    Ir,
    /// A `for` over an array literal, unrolled while building.
    Unrolled,
}

/// The state of one kernel's or device function's lowering.
pub struct Lower {
    scopes: Vec<Vec<(String, Binding)>>,
    pub loops: Vec<LoopKind>,
    /// The device function being lowered (`None` in a kernel).
    pub device: Option<Ident>,
}

/// The identifier of the `&mut KernelBuilder` in generated code.
pub fn builder() -> Ident {
    Ident::new("__wf_b", Span::call_site())
}

/// A generated temporary, spanned at the user's tokens it holds the value of.
pub fn tmp(name: &str, span: Span) -> Ident {
    Ident::new(name, span)
}

impl Lower {
    pub fn new(device: Option<Ident>) -> Self {
        Lower {
            scopes: vec![Vec::new()],
            loops: Vec::new(),
            device,
        }
    }

    pub fn bind(&mut self, name: &Ident, binding: Binding) {
        let name = name.unraw().to_string();
        self.scopes
            .last_mut()
            .expect("the outermost scope is never popped")
            .push((name, binding));
    }

    pub fn lookup(&self, name: &Ident) -> Option<Binding> {
        let name = name.unraw().to_string();
        self.scopes
            .iter()
            .rev()
            .flat_map(|s| s.iter().rev())
            .find(|(n, _)| *n == name)
            .map(|(_, b)| *b)
    }

    /// Runs `f` in a nested scope (a block).
    pub fn scoped<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        self.scopes.push(Vec::new());
        let out = f(self);
        self.scopes.pop();
        out
    }

    /// Runs `f` inside a loop of `kind`.
    pub fn in_loop<T>(
        &mut self,
        kind: LoopKind,
        f: impl FnOnce(&mut Self) -> Result<T>,
    ) -> Result<T> {
        self.loops.push(kind);
        let out = self.scoped(f);
        self.loops.pop();
        out
    }

    /// The handle of an array (buffer or shared) named by `expr`, checking that it may be written when
    /// `write` is set.
    pub fn array(&self, expr: &syn::Expr, write: bool) -> Result<Ident> {
        let ident = match expr {
            syn::Expr::Path(p) if p.qself.is_none() => p.path.get_ident().cloned(),
            syn::Expr::Paren(p) => return self.array(&p.expr, write),
            syn::Expr::Group(g) => return self.array(&g.expr, write),
            _ => None,
        };
        let Some(ident) = ident else {
            return Err(Error::new_spanned(
                expr,
                "only a buffer parameter or a shared array can be indexed here (a name, as in `buf[i]`)",
            ));
        };
        match self.lookup(&ident) {
            Some(Binding::Array { writable }) => {
                if write && !writable {
                    return Err(Error::new(
                        ident.span(),
                        format!("cannot write to `{ident}`: it is a read-only buffer (`&[T]`); declare it `&mut [T]` to store to it or use atomics on it"),
                    ));
                }
                Ok(ident)
            }
            Some(Binding::Registers { .. }) => Err(Error::new(
                ident.span(),
                format!("`{ident}` is a register array: it is indexed by constants (`{ident}[2]`) and is not memory a load, store, atomic or wide access can address"),
            )),
            Some(Binding::Value | Binding::Local | Binding::Scalar | Binding::Const | Binding::Counter) => {
                Err(Error::new(
                    ident.span(),
                    format!("cannot index `{ident}`: it is a scalar value; only buffers (`&[T]`, `&mut [T]`) and shared arrays can be indexed"),
                ))
            }
            None => Err(Error::new(
                ident.span(),
                format!("`{ident}` is not a buffer parameter or shared array of this kernel"),
            )),
        }
    }
}

/// `{ let __wf_x = <value>; ... }`-style binding of a lowered operand to a temporary.
pub fn let_tmp(name: &Ident, value: &Tokens) -> Tokens {
    quote_spanned!(name.span()=> let #name = #value;)
}
