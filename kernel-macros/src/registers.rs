//! Register arrays: `let mut acc = [0.0f32; 8];` (one IR local per element) and `let w = [a, b, c];`
//! (one value per element), indexed only by indices known while building — literals, constants,
//! const generics, the variable of an unrolled `for` and arithmetic on them — so every element stays
//! a register. An index that is a kernel value is a compile error naming the way out (unroll the
//! loop); an index past the end fails when the kernel is built, naming the array and the index.
//! Also the unrolled loops that index them: `for i in unroll(a..b)` and `for x in [a, b, c]`.

use proc_macro2::TokenStream as Tokens;
use quote::quote_spanned;
use syn::spanned::Spanned;
use syn::{Error, Expr, Ident, Result};

use crate::expr::literal;
use crate::lower::{builder, tmp, Binding, LoopKind, Lower};

impl Lower {
    /// `let [mut] name = [e; N]` or `[a, b, …]`: the declaration, or `None` when `expr` is not an
    /// array expression.
    pub fn register_array(
        &mut self,
        name: &Ident,
        mutable: bool,
        expr: &Expr,
    ) -> Result<Option<Tokens>> {
        let b = builder();
        let text = name.to_string();
        let span = name.span();
        let tokens = match expr {
            Expr::Repeat(r) => {
                let len = &r.len;
                let value = self.value(&r.expr)?;
                let v = tmp("__wf_v", r.expr.span());
                if mutable {
                    quote_spanned!(span=>
                        let #v = #value;
                        let #name: [__wf_ir::builder::Local<_>; #len] = ::core::array::from_fn(|__wf_k| {
                            __wf_ir::__macro::local(#b, &::std::format!("{}_{}", #text, __wf_k))
                        });
                        for __wf_r in #name {
                            #b.assign(__wf_r, #v);
                        }
                    )
                } else {
                    quote_spanned!(span=> let #v = #value; let #name = [#v; #len];)
                }
            }
            Expr::Array(a) => {
                let mut lets = Tokens::new();
                let mut names = Vec::new();
                for (k, e) in a.elems.iter().enumerate() {
                    let v = tmp(&format!("__wf_e{k}"), e.span());
                    let value = self.value(e)?;
                    lets.extend(quote_spanned!(e.span()=> let #v = #value;));
                    names.push(v);
                }
                if mutable {
                    let len = names.len();
                    let assigns = names
                        .iter()
                        .enumerate()
                        .map(|(k, v)| quote_spanned!(v.span()=> #b.assign(#name[#k], #v);));
                    quote_spanned!(span=>
                        #lets
                        let #name: [__wf_ir::builder::Local<_>; #len] = ::core::array::from_fn(|__wf_k| {
                            __wf_ir::__macro::local(#b, &::std::format!("{}_{}", #text, __wf_k))
                        });
                        #(#assigns)*
                    )
                } else {
                    quote_spanned!(span=> #lets let #name = [#(#names),*];)
                }
            }
            _ => return Ok(None),
        };
        self.bind(name, Binding::Registers { mutable });
        Ok(Some(tokens))
    }

    /// Whether `e` is known while building: literals, constants, const generics, unrolled loop
    /// variables, and arithmetic on them.
    pub fn is_build_time(&self, e: &Expr) -> bool {
        match e {
            Expr::Lit(l) => matches!(l.lit, syn::Lit::Int(_)),
            Expr::Paren(p) => self.is_build_time(&p.expr),
            Expr::Group(g) => self.is_build_time(&g.expr),
            Expr::Path(p) => p.path.get_ident().is_none_or(|i| {
                matches!(
                    self.lookup(i),
                    None | Some(Binding::Const | Binding::Counter)
                )
            }),
            Expr::Binary(bin) => {
                use syn::BinOp as B;
                matches!(
                    bin.op,
                    B::Add(_)
                        | B::Sub(_)
                        | B::Mul(_)
                        | B::Div(_)
                        | B::Rem(_)
                        | B::Shl(_)
                        | B::Shr(_)
                        | B::BitAnd(_)
                        | B::BitOr(_)
                        | B::BitXor(_)
                ) && self.is_build_time(&bin.left)
                    && self.is_build_time(&bin.right)
            }
            _ => false,
        }
    }

    /// The register array `name`'s element `index` (a `Local<T>` or a `Val<T>`), for `name[index]`;
    /// `None` when `array` is not a register array.
    pub fn register(&self, array: &Expr, index: &Expr, write: bool) -> Result<Option<Tokens>> {
        let Expr::Path(p) = array else {
            return Ok(None);
        };
        let Some(ident) = p.path.get_ident() else {
            return Ok(None);
        };
        let Some(Binding::Registers { mutable }) = self.lookup(ident) else {
            return Ok(None);
        };
        if write && !mutable {
            return Err(Error::new(
                ident.span(),
                format!("cannot assign to an element of `{ident}`: declare the register array with `let mut {ident}`"),
            ));
        }
        if !self.is_build_time(index) {
            return Err(Error::new_spanned(
                index,
                format!(
                    "`{ident}` is a register array: its index must be known while building (a literal, a constant, a const generic, the variable of an unrolled `for`, or arithmetic on them), so each element stays in a register; unroll the loop (`for i in unroll(0..N)` or `for i in [0, 1, 2]`), or use a shared array for an index computed at run time"
                ),
            ));
        }
        let text = ident.to_string();
        Ok(Some(quote_spanned!(index.span()=>
            __wf_ir::__macro::register(&#ident, (#index) as usize, #text)
        )))
    }

    /// `for i in unroll(a..b) { … }` with `a` and `b` known while building: the body is built once
    /// per `i`, a constant (so it can index a register array).
    pub fn unrolled_range(
        &mut self,
        f: &syn::ExprForLoop,
        var: &syn::Ident,
        call: &syn::ExprCall,
    ) -> Result<Tokens> {
        let range =
            match call.args.first() {
                Some(Expr::Range(r)) if call.args.len() == 1 => r,
                _ => return Err(Error::new_spanned(
                    call,
                    "`unroll` takes one range with both ends known while building: `unroll(0..8)`",
                )),
            };
        let (Some(start), Some(end), syn::RangeLimits::HalfOpen(_)) =
            (&range.start, &range.end, &range.limits)
        else {
            return Err(Error::new_spanned(
                range,
                "`unroll` takes a half-open range with both ends: `unroll(0..8)`",
            ));
        };
        for bound in [start, end] {
            if !self.is_build_time(bound) {
                return Err(Error::new_spanned(
                    bound,
                    "an unrolled range's ends must be known while building (literals, constants, const generics)",
                ));
            }
        }
        let body = self.in_loop(LoopKind::Unrolled, |s| {
            s.bind(var, Binding::Counter);
            s.block_stmts(&f.body.stmts)
        })?;
        Ok(
            quote_spanned!(f.for_token.span()=> for #var in __wf_ir::__macro::unrolled(#start, #end) { #body }),
        )
    }

    /// `for x in [a, b, c] { … }`: the body is built once per element, with `x` a constant.
    pub fn unrolled(
        &mut self,
        f: &syn::ExprForLoop,
        var: &syn::Ident,
        array: &syn::ExprArray,
    ) -> Result<Tokens> {
        for elem in &array.elems {
            let constant = match elem {
                Expr::Lit(l) => literal(&l.lit, false).is_ok(),
                Expr::Unary(u) => matches!((&u.op, &*u.expr), (syn::UnOp::Neg(_), Expr::Lit(_))),
                Expr::Path(p) => p.path.get_ident().is_none_or(|i| {
                    matches!(
                        self.lookup(i),
                        None | Some(Binding::Const | Binding::Counter)
                    )
                }),
                _ => false,
            };
            if !constant {
                return Err(Error::new_spanned(
                    elem,
                    "the elements of an unrolled `for` must be constants (literals, constants, const generics)",
                ));
            }
        }
        let body = self.in_loop(LoopKind::Unrolled, |s| {
            s.bind(var, Binding::Const);
            s.block_stmts(&f.body.stmts)
        })?;
        Ok(quote_spanned!(f.for_token.span()=> for #var in #array { #body }))
    }
}
