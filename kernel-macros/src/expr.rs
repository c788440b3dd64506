//! Value expressions: each becomes a Rust expression of type `Val<T>` that emits the IR computing it.

use proc_macro2::{Span, TokenStream as Tokens};
use quote::{quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::{BinOp, Error, Expr, Lit, Result, UnOp};

use crate::lower::{builder, let_tmp, tmp, Binding, Lower};
use crate::types;

/// The error for a construct outside the subset, at its tokens, saying what to write instead.
pub fn unsupported(tokens: impl ToTokens, what: &str, instead: &str) -> Error {
    Error::new_spanned(
        tokens,
        format!("{what} are not supported in kernels; {instead}"),
    )
}

/// A literal as a builder constant: suffixed literals fix the type, unsuffixed ones take it from the
/// context (as in Rust, except that nothing defaults to `i32`/`f64`).
pub fn literal(lit: &Lit, negative: bool) -> Result<Tokens> {
    let b = builder();
    let sign = if negative { quote!(-) } else { quote!() };
    let suffix = match lit {
        Lit::Int(i) => i.suffix().to_owned(),
        Lit::Float(f) => f.suffix().to_owned(),
        Lit::Bool(v) => {
            return Ok(quote_spanned!(v.span()=> #b.lit::<__wf_ir::builder::Bool>(#v)));
        }
        other => {
            return Err(unsupported(
                other,
                "string, character and byte literals",
                "kernels compute on integers, bool and f32",
            ))
        }
    };
    let span = lit.span();
    if suffix.is_empty() {
        if let Lit::Float(f) = lit {
            // Parsed while building by the float type the context gives (any float, or a generic
            // kernel's `F`), from Rust's digits without `_`.
            let digits = f.base10_digits().replace('_', "");
            let text = if negative {
                format!("-{digits}")
            } else {
                digits
            };
            return Ok(quote_spanned!(span=> #b.float_lit(#text)));
        }
        return Ok(quote_spanned!(span=> #b.lit(#sign #lit)));
    }
    let Some(marker) = types::marker_of(&suffix) else {
        return Err(Error::new(
            span,
            format!("a `{suffix}` literal is not a kernel type: use bool, u8, u16, u32, u64, i32, i64, f32 or f64"),
        ));
    };
    let marker = syn::Ident::new(marker, span);
    Ok(quote_spanned!(span=> #b.lit::<__wf_ir::builder::#marker>(#sign #lit)))
}

/// Whether lowering `e` emits only pure expressions (no memory access, call or control flow), so that
/// computing it where Rust might not changes nothing.
pub fn is_pure(e: &Expr) -> bool {
    match e {
        Expr::Lit(_) | Expr::Path(_) => true,
        Expr::Paren(p) => is_pure(&p.expr),
        Expr::Group(g) => is_pure(&g.expr),
        Expr::Unary(u) => !matches!(u.op, UnOp::Deref(_)) && is_pure(&u.expr),
        Expr::Cast(c) => is_pure(&c.expr),
        Expr::Binary(b) => binary_method(&b.op).is_some() && is_pure(&b.left) && is_pure(&b.right),
        _ => false,
    }
}

/// The builder method of a value-producing binary operator (`&&`, `||` and shifts are handled apart).
fn binary_method(op: &BinOp) -> Option<&'static str> {
    Some(match op {
        BinOp::Add(_) => "add",
        BinOp::Sub(_) => "sub",
        BinOp::Mul(_) => "mul",
        BinOp::Div(_) => "div",
        BinOp::Rem(_) => "rem",
        BinOp::BitAnd(_) => "and",
        BinOp::BitOr(_) => "or",
        BinOp::BitXor(_) => "xor",
        BinOp::Shl(_) => "shl",
        BinOp::Shr(_) => "shr",
        BinOp::Eq(_) => "eq",
        BinOp::Ne(_) => "ne",
        BinOp::Lt(_) => "lt",
        BinOp::Le(_) => "le",
        BinOp::Gt(_) => "gt",
        BinOp::Ge(_) => "ge",
        BinOp::And(_) => "and",
        BinOp::Or(_) => "or",
        _ => return None,
    })
}

/// The builder method of a compound assignment operator (`+=` → `add`).
pub fn compound_method(op: &BinOp) -> Option<&'static str> {
    Some(match op {
        BinOp::AddAssign(_) => "add",
        BinOp::SubAssign(_) => "sub",
        BinOp::MulAssign(_) => "mul",
        BinOp::DivAssign(_) => "div",
        BinOp::RemAssign(_) => "rem",
        BinOp::BitAndAssign(_) => "and",
        BinOp::BitOrAssign(_) => "or",
        BinOp::BitXorAssign(_) => "xor",
        BinOp::ShlAssign(_) => "shl",
        BinOp::ShrAssign(_) => "shr",
        _ => return None,
    })
}

impl Lower {
    /// Lowers a value expression.
    pub fn value(&mut self, e: &Expr) -> Result<Tokens> {
        let b = builder();
        match e {
            Expr::Lit(l) => literal(&l.lit, false),
            Expr::Paren(p) => self.value(&p.expr),
            Expr::Group(g) => self.value(&g.expr),
            Expr::MethodCall(m) => self.method_value(m),
            Expr::Path(p) => self.path_value(p),
            Expr::Binary(bin) => {
                if compound_method(&bin.op).is_some() {
                    return Err(Error::new_spanned(
                        bin,
                        "a compound assignment is a statement, not a value",
                    ));
                }
                self.binary(&bin.left, &bin.op, &bin.right)
            }
            Expr::Unary(u) => {
                let span = u.op.span();
                match u.op {
                    UnOp::Neg(_) => {
                        if let Expr::Lit(l) = &*u.expr {
                            return literal(&l.lit, true);
                        }
                        let v = tmp("__wf_v", u.expr.span());
                        let inner = self.value(&u.expr)?;
                        Ok(quote_spanned!(span=> { let #v = #inner; #b.neg(#v) }))
                    }
                    UnOp::Not(_) => {
                        let v = tmp("__wf_v", u.expr.span());
                        let inner = self.value(&u.expr)?;
                        Ok(quote_spanned!(span=> { let #v = #inner; #b.not(#v) }))
                    }
                    _ => Err(unsupported(
                        u,
                        "dereferences",
                        "kernel values are scalars, used by name",
                    )),
                }
            }
            Expr::Cast(c) => {
                let kind = types::scalar_kind(&c.ty)?;
                let span = c.as_token.span();
                if let Expr::Lit(l) = &*c.expr {
                    if matches!(&l.lit, Lit::Int(i) if i.suffix().is_empty()) {
                        let lit = &l.lit;
                        return Ok(quote_spanned!(span=> #b.lit::<#kind>(#lit)));
                    }
                }
                let v = tmp("__wf_v", c.expr.span());
                let inner = self.value(&c.expr)?;
                // To a generic kernel's type parameter: named from the target, which `Float`
                // promises conversions into.
                let how = if types::is_generic(&c.ty) {
                    quote_spanned!(span=> cast_from)
                } else {
                    quote_spanned!(span=> cast)
                };
                Ok(quote_spanned!(span=> {
                    let #v = #inner;
                    __wf_ir::__macro::#how::<#kind, _>(#b, #v)
                }))
            }
            Expr::Index(ix) => {
                if let Some(element) = self.register(&ix.expr, &ix.index, false)? {
                    return Ok(quote_spanned!(ix.span()=>
                        __wf_ir::__macro::RegisterRead::read(#element, #b)
                    ));
                }
                let array = self.array(&ix.expr, false)?;
                let i = tmp("__wf_i", ix.index.span());
                let index = self.index_value(&ix.index)?;
                Ok(quote_spanned!(array.span()=> { let #i = #index; #b.load(#array, #i) }))
            }
            Expr::Call(c) => self.call_value(c),
            Expr::If(i) => self.if_value(i),
            Expr::Block(bl) if bl.label.is_none() => {
                let inner = self.scoped(|l| l.value_block(&bl.block.stmts, bl.block.span()))?;
                Ok(quote!({ #inner }))
            }
            other => Err(self.not_a_value(other)),
        }
    }

    /// An element index: an unsuffixed literal is a `u32` (where Rust would make it a `usize`).
    pub fn index_value(&mut self, e: &Expr) -> Result<Tokens> {
        if let Expr::Lit(syn::ExprLit {
            lit: Lit::Int(i), ..
        }) = e
        {
            if i.suffix().is_empty() {
                let b = builder();
                return Ok(quote_spanned!(i.span()=> #b.lit::<__wf_ir::builder::U32>(#i)));
            }
        }
        self.value(e)
    }

    fn path_value(&mut self, p: &syn::ExprPath) -> Result<Tokens> {
        let b = builder();
        if p.qself.is_some() || p.path.segments.iter().any(|s| !s.arguments.is_none()) {
            return Err(unsupported(
                p,
                "qualified or generic paths",
                "name a value, a constant or a const generic",
            ));
        }
        if let Some(ident) = p.path.get_ident() {
            let span = ident.span();
            match self.lookup(ident) {
                Some(Binding::Value) => return Ok(quote_spanned!(span=> #ident)),
                Some(Binding::Local) => return Ok(quote_spanned!(span=> #b.read(#ident))),
                Some(Binding::Scalar) => return Ok(quote_spanned!(span=> #b.param(#ident))),
                Some(Binding::Const) => return Ok(quote_spanned!(span=> #b.lit(#ident))),
                Some(Binding::Counter) => {
                    return Ok(quote_spanned!(span=> #b.lit::<__wf_ir::builder::U32>(#ident)))
                }
                Some(Binding::Registers { .. }) => {
                    return Err(Error::new(
                        span,
                        format!("`{ident}` is a register array, not a value: index it with a constant (`{ident}[0]`)"),
                    ))
                }
                Some(Binding::Array { .. }) => {
                    return Err(Error::new(
                        span,
                        format!("`{ident}` is a buffer or shared array, not a value: index it (`{ident}[i]`)"),
                    ))
                }
                None if ident == "FULL_MASK" => {
                    return Ok(quote_spanned!(span=> #b.lit::<__wf_ir::builder::U32>(__wf_ir::gpu::FULL_MASK)))
                }
                None => {}
            }
        }
        // Anything else names a Rust constant, evaluated while building and emitted as a literal.
        Ok(quote_spanned!(p.span()=> #b.lit(#p)))
    }

    fn binary(&mut self, left: &Expr, op: &BinOp, right: &Expr) -> Result<Tokens> {
        let b = builder();
        let span = op.span();
        let l = tmp("__wf_l", left.span());
        let r = tmp("__wf_r", right.span());
        let Some(method) = binary_method(op) else {
            return Err(Error::new(
                span,
                "this operator is not supported in kernels",
            ));
        };
        let method = syn::Ident::new(method, span);
        let lhs = self.value(left)?;
        match op {
            BinOp::And(_) | BinOp::Or(_) if !is_pure(right) => {
                // Short-circuit: the right side runs only when it decides the result.
                let rhs = self.scoped(|s| s.value(right))?;
                let s = tmp("__wf_s", span);
                let name = if matches!(op, BinOp::And(_)) {
                    "and"
                } else {
                    "or"
                };
                let set = quote_spanned!(span=> |#b| { let #r = #rhs; #b.assign(#s, #r); });
                let branch = if matches!(op, BinOp::And(_)) {
                    quote_spanned!(span=> #b.if_(#l, #set))
                } else {
                    quote_spanned!(span=> #b.if_else(#l, |_| {}, #set))
                };
                Ok(quote_spanned!(span=> {
                    let #l = #lhs;
                    let #s = __wf_ir::__macro::local::<__wf_ir::builder::Bool>(#b, #name);
                    #b.assign(#s, #l);
                    #branch;
                    #b.read(#s)
                }))
            }
            BinOp::Shl(_) | BinOp::Shr(_) => {
                let amount = match right {
                    Expr::Lit(lit) if matches!(&lit.lit, Lit::Int(i) if i.suffix().is_empty()) => {
                        let lit = &lit.lit;
                        quote_spanned!(lit.span()=> let #r = #b.lit::<__wf_ir::builder::U32>(#lit);)
                    }
                    _ => {
                        let rhs = self.value(right)?;
                        quote_spanned!(right.span()=>
                            let #r = #rhs;
                            let #r = __wf_ir::__macro::shift_amount(#b, #r);
                        )
                    }
                };
                Ok(quote_spanned!(span=> { let #l = #lhs; #amount #b.#method(#l, #r) }))
            }
            _ => {
                let rhs = self.value(right)?;
                let lets = [let_tmp(&l, &lhs), let_tmp(&r, &rhs)];
                Ok(quote_spanned!(span=> { #(#lets)* #b.#method(#l, #r) }))
            }
        }
    }

    /// `if c { a } else { b }` as a value: a local written by each arm (only one arm runs, as in Rust;
    /// `select(c, a, b)` computes both without a branch).
    fn if_value(&mut self, i: &syn::ExprIf) -> Result<Tokens> {
        let b = builder();
        let span = i.if_token.span();
        let Some((_, otherwise)) = &i.else_branch else {
            return Err(Error::new_spanned(
                i,
                "an `if` used as a value needs an `else` branch giving a value of the same type",
            ));
        };
        let c = tmp("__wf_c", i.cond.span());
        let s = tmp("__wf_s", span);
        let cond = self.condition(&i.cond)?;
        let then = self.scoped(|l| l.value_block(&i.then_branch.stmts, i.then_branch.span()))?;
        let other = match &**otherwise {
            Expr::Block(bl) => self.scoped(|l| l.value_block(&bl.block.stmts, bl.block.span()))?,
            e => self.value(e)?,
        };
        let v = tmp("__wf_v", span);
        Ok(quote_spanned!(span=> {
            let #c = #cond;
            let #s = __wf_ir::__macro::local(#b, "if_value");
            #b.if_else(
                #c,
                |#b| { let #v = { #then }; #b.assign(#s, #v); },
                |#b| { let #v = { #other }; #b.assign(#s, #v); },
            );
            #b.read(#s)
        }))
    }

    /// An `if`/`while` condition (refusing `let` patterns).
    pub fn condition(&mut self, cond: &Expr) -> Result<Tokens> {
        if let Expr::Let(l) = cond {
            return Err(unsupported(
                l,
                "`if let` and `while let` patterns",
                "compare values with `==`",
            ));
        }
        self.value(cond)
    }

    fn not_a_value(&self, e: &Expr) -> Error {
        match e {
            Expr::Closure(c) => unsupported(c, "closures", "write a `#[warpforge::device]` function and call it"),
            Expr::MethodCall(m) => Error::new_spanned(
                m,
                format!("method calls are not supported in kernels; use the free functions of `warpforge_ir::gpu` (`min(a, b)`, `popcount(x)`, …) or a `#[device]` function instead of `.{}()`", m.method),
            ),
            Expr::Struct(s) => unsupported(s, "struct literals", "kernel values are scalars (bool, integers, f32)"),
            Expr::Reference(r) => unsupported(r, "references", "references appear only as the target of an atomic or wide access (`atomic_add(&buf[i], v)`)"),
            Expr::Match(m) => unsupported(m, "`match` expressions", "use `if`/`else if`/`else`"),
            Expr::Tuple(t) => unsupported(t, "tuples", "use separate `let` bindings"),
            Expr::Array(a) => unsupported(a, "array values", "arrays appear only in `store2`/`store4` and in `for x in [..]` (unrolled)"),
            Expr::Repeat(a) => unsupported(a, "array values", "declare a shared array with `shared::<T>(len, align)`"),
            Expr::Field(f) => unsupported(f, "field accesses", "kernel values are scalars"),
            Expr::Range(r) => unsupported(r, "ranges outside `for` loops", "iterate with `for i in a..b`"),
            Expr::Macro(m) => unsupported(m, "macro invocations", "write the computation with the supported operators and `warpforge_ir::gpu` intrinsics"),
            Expr::Try(t) => unsupported(t, "`?` operators", "kernels have no errors to propagate"),
            Expr::Async(a) => unsupported(a, "async blocks", "kernels are synchronous"),
            Expr::Await(a) => unsupported(a, "`.await`", "kernels are synchronous"),
            Expr::Unsafe(u) => unsupported(u, "`unsafe` blocks", "kernel bodies need no unsafe code"),
            Expr::Loop(l) => unsupported(l, "`loop` used as a value (`break value`)", "assign a `let mut` variable in the loop and read it after"),
            Expr::Assign(a) => Error::new_spanned(a, "an assignment is a statement, not a value"),
            Expr::Block(bl) => unsupported(bl, "labeled blocks", "use a plain block"),
            Expr::Let(l) => unsupported(l, "`let` expressions", "use `let` statements and `if`"),
            other => Error::new_spanned(other, "this expression is not supported in kernels (see `warpforge_ir::gpu` and docs/kernels.md for the supported subset)"),
        }
    }
}

/// A `Span` for diagnostics about a whole statement list.
pub fn end_span(stmts: &[syn::Stmt], fallback: Span) -> Span {
    stmts.last().map_or(fallback, |s| s.span())
}
