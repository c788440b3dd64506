//! Statements and control flow: `let`, assignments, `if`, `while`, `loop`, `for`, `break`, `continue`,
//! `return`. Control flow becomes the builder's closures (`if_else`, `loop_`), so Rust's scoping of
//! `let` matches the IR's visibility of values.

use proc_macro2::{Span, TokenStream as Tokens};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Error, Expr, Lit, Pat, Result, Stmt};

use crate::call::is_call_to;
use crate::expr::{compound_method, end_span, unsupported};
use crate::lower::{builder, tmp, Binding, LoopKind, Lower};
use crate::types;

/// Whether `e` is a zero literal (`0`, `0u32`, `0.0`, `false`).
fn is_zero(e: &Expr) -> bool {
    match e {
        Expr::Lit(l) => match &l.lit {
            Lit::Int(i) => i.base10_digits() == "0",
            Lit::Float(f) => f
                .base10_parse::<f64>()
                .is_ok_and(|v| v == 0.0 && v.is_sign_positive()),
            Lit::Bool(b) => !b.value,
            _ => false,
        },
        Expr::Paren(p) => is_zero(&p.expr),
        _ => false,
    }
}

impl Lower {
    /// A block's statements in a unit context.
    pub fn block_stmts(&mut self, stmts: &[Stmt]) -> Result<Tokens> {
        let mut out = Tokens::new();
        for s in stmts {
            out.extend(set_loc(s.span()));
            out.extend(self.stmt(s)?);
        }
        Ok(out)
    }

    /// A block whose final expression is its value: statements, then the value expression.
    pub fn value_block(&mut self, stmts: &[Stmt], span: Span) -> Result<Tokens> {
        let Some((Stmt::Expr(tail, None), init)) = stmts.split_last() else {
            return Err(Error::new(
                end_span(stmts, span),
                "this block must end with an expression giving its value (no `;` after it)",
            ));
        };
        let body = self.block_stmts(init)?;
        let at = set_loc(tail.span());
        let value = self.value(tail)?;
        Ok(quote!(#body #at #value))
    }

    fn stmt(&mut self, s: &Stmt) -> Result<Tokens> {
        match s {
            Stmt::Local(local) => self.local(local),
            Stmt::Expr(e, _) => self.stmt_expr(e),
            Stmt::Item(item) => Err(unsupported(
                item,
                "items inside kernel bodies",
                "declare constants and `#[warpforge::device]` functions outside the kernel",
            )),
            Stmt::Macro(m) => Err(unsupported(
                m,
                "macro invocations",
                "write the computation with the supported operators and `warpforge_ir::gpu` intrinsics",
            )),
        }
    }

    fn local(&mut self, local: &syn::Local) -> Result<Tokens> {
        let b = builder();
        let Some(init) = &local.init else {
            return Err(Error::new_spanned(
                local,
                "a `let` in a kernel needs an initial value (`let x = …;`)",
            ));
        };
        if let Some((else_token, _)) = &init.diverge {
            return Err(unsupported(else_token, "`let … else`", "use `if`"));
        }
        let expr = &*init.expr;
        if matches!(expr, Expr::Repeat(_) | Expr::Array(_)) {
            let inner = match &local.pat {
                Pat::Type(t) => &*t.pat,
                p => p,
            };
            if let Pat::Ident(p) = inner {
                if p.by_ref.is_none() && p.subpat.is_none() {
                    let mutable = p.mutability.is_some();
                    if let Some(tokens) = self.register_array(&p.ident, mutable, expr)? {
                        return Ok(tokens);
                    }
                }
            }
        }
        let (pat, ty) = match &local.pat {
            Pat::Type(t) => (&*t.pat, Some(types::scalar_kind(&t.ty)?)),
            p => (p, None),
        };
        match pat {
            Pat::Wild(_) => {
                let value = self.value(expr)?;
                Ok(quote!(let _ = #value;))
            }
            Pat::Slice(slice) => self.let_wide(slice, expr),
            Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
                let name = &p.ident;
                let text = name.to_string();
                if p.mutability.is_none() {
                    if let Some((kind, len, align)) = self.shared_decl(expr)? {
                        self.bind(name, Binding::Array { writable: true });
                        return Ok(quote_spanned!(name.span()=>
                            let #name = __wf_ir::__macro::shared::<#kind>(#b, #text, #len, #align);
                        ));
                    }
                    let value = self.value(expr)?;
                    self.bind(name, Binding::Value);
                    let annotation = ty.map(|k| quote!(: __wf_ir::builder::Val<#k>));
                    return Ok(quote_spanned!(name.span()=> let #name #annotation = #value;));
                }
                let kind = ty.map(|k| quote!(::<#k>));
                // IR locals start at zero: a zero initializer that runs once per thread (in a kernel,
                // outside every loop) needs no assignment.
                if self.device.is_none() && self.loops.is_empty() && is_zero(expr) {
                    let kind = kind.or_else(|| match expr {
                        Expr::Lit(l) => suffix_kind(&l.lit),
                        _ => None,
                    });
                    self.bind(name, Binding::Local);
                    return Ok(quote_spanned!(name.span()=>
                        let #name = __wf_ir::__macro::local #kind(#b, #text);
                    ));
                }
                let v = tmp("__wf_v", expr.span());
                let value = self.value(expr)?;
                self.bind(name, Binding::Local);
                Ok(quote_spanned!(name.span()=>
                    let #v = #value;
                    let #name = __wf_ir::__macro::local #kind(#b, #text);
                    #b.assign(#name, #v);
                ))
            }
            other => Err(unsupported(
                other,
                "this `let` pattern",
                "bind one name (`let x`, `let mut x`, `let x: u32`) or the values of a wide load (`let [a, b] = load2(&buf[i])`)",
            )),
        }
    }

    /// `let [a, b, c, d] = load4(&buf[i]);`
    fn let_wide(&mut self, slice: &syn::PatSlice, expr: &Expr) -> Result<Tokens> {
        let b = builder();
        let width = if is_call_to(expr, "load2") {
            2
        } else if is_call_to(expr, "load4") {
            4
        } else {
            return Err(unsupported(
                slice,
                "array patterns",
                "only a wide load is destructured: `let [a, b] = load2(&buf[i]);`",
            ));
        };
        let mut names = Vec::new();
        for elem in &slice.elems {
            match elem {
                Pat::Ident(p)
                    if p.by_ref.is_none() && p.mutability.is_none() && p.subpat.is_none() =>
                {
                    names.push(p.ident.clone());
                }
                other => {
                    return Err(Error::new_spanned(
                        other,
                        "bind each loaded value to a plain name",
                    ))
                }
            }
        }
        if names.len() != width {
            return Err(Error::new_spanned(
                slice,
                format!(
                    "`load{width}` gives {width} values; this pattern binds {}",
                    names.len()
                ),
            ));
        }
        let Expr::Call(call) = expr else {
            unreachable!("is_call_to matched a call")
        };
        let (array, index) = self.wide_target(call, false)?;
        let i = tmp("__wf_i", call.span());
        for n in &names {
            self.bind(n, Binding::Value);
        }
        Ok(quote_spanned!(call.span()=>
            let [#(#names),*] = { let #i = #index; #b.load_vec::<#width, _, _>(#array, #i) };
        ))
    }

    /// A statement-position expression.
    pub fn stmt_expr(&mut self, e: &Expr) -> Result<Tokens> {
        let b = builder();
        match e {
            Expr::Paren(p) => self.stmt_expr(&p.expr),
            Expr::Group(g) => self.stmt_expr(&g.expr),
            Expr::Assign(a) => self.assign(&a.left, &a.right, None),
            Expr::Binary(bin) if compound_method(&bin.op).is_some() => {
                self.assign(&bin.left, &bin.right, Some(&bin.op))
            }
            Expr::If(i) => self.if_stmt(i),
            Expr::Block(bl) if bl.label.is_none() => {
                let body = self.scoped(|l| l.block_stmts(&bl.block.stmts))?;
                Ok(quote!({ #body }))
            }
            Expr::Loop(l) => {
                if let Some(label) = &l.label {
                    return Err(unsupported(
                        label,
                        "loop labels",
                        "`break` and `continue` leave the innermost loop",
                    ));
                }
                let body = self.in_loop(LoopKind::Ir, |s| s.block_stmts(&l.body.stmts))?;
                Ok(quote_spanned!(l.loop_token.span()=> #b.loop_(|#b| { #body });))
            }
            Expr::While(w) => {
                if let Some(label) = &w.label {
                    return Err(unsupported(
                        label,
                        "loop labels",
                        "`break` and `continue` leave the innermost loop",
                    ));
                }
                let c = tmp("__wf_c", w.cond.span());
                let (cond, body) = self.in_loop(LoopKind::Ir, |s| {
                    Ok((s.condition(&w.cond)?, s.block_stmts(&w.body.stmts)?))
                })?;
                Ok(quote_spanned!(w.while_token.span()=> #b.loop_(|#b| {
                    let #c = #cond;
                    #b.if_else(#c, |_| {}, |#b| #b.break_());
                    #body
                });))
            }
            Expr::ForLoop(f) => self.for_loop(f),
            Expr::Break(br) => {
                if let Some(label) = &br.label {
                    return Err(unsupported(
                        label,
                        "loop labels",
                        "`break` leaves the innermost loop",
                    ));
                }
                if let Some(v) = &br.expr {
                    return Err(unsupported(
                        v,
                        "`break` with a value",
                        "assign a `let mut` variable before `break`",
                    ));
                }
                self.loop_exit(br.break_token.span(), "break")?;
                Ok(quote_spanned!(br.break_token.span()=> #b.break_();))
            }
            Expr::Continue(c) => {
                if let Some(label) = &c.label {
                    return Err(unsupported(
                        label,
                        "loop labels",
                        "`continue` continues the innermost loop",
                    ));
                }
                self.loop_exit(c.continue_token.span(), "continue")?;
                Ok(quote_spanned!(c.continue_token.span()=> #b.continue_();))
            }
            Expr::Return(r) => {
                if let Some(name) = &self.device {
                    return Err(Error::new_spanned(
                        r,
                        format!("`return` in the `#[device]` function `{name}` is not supported: it is inlined, and its value is the body's final expression"),
                    ));
                }
                if let Some(v) = &r.expr {
                    return Err(Error::new_spanned(
                        v,
                        "a kernel returns nothing: `return;` ends the thread",
                    ));
                }
                Ok(quote_spanned!(r.return_token.span()=> #b.return_();))
            }
            Expr::Call(c) => self.call_stmt(c),
            other => {
                let value = self.value(other)?;
                Ok(quote!(let _ = #value;))
            }
        }
    }

    fn loop_exit(&self, span: Span, what: &str) -> Result<()> {
        match self.loops.last() {
            Some(LoopKind::Ir) => Ok(()),
            Some(LoopKind::Unrolled) => Err(Error::new(
                span,
                format!("`{what}` inside a `for` over an array (unrolled while building) is not supported; use `for i in a..b` for a loop `{what}` can leave"),
            )),
            None => Err(Error::new(span, format!("`{what}` outside of a loop"))),
        }
    }

    /// `target = value` or `target op= value` (Rust evaluates `value` first).
    fn assign(&mut self, target: &Expr, value: &Expr, op: Option<&syn::BinOp>) -> Result<Tokens> {
        let b = builder();
        let v = tmp("__wf_v", value.span());
        let rhs = self.value(value)?;
        let combine = |old: Tokens| -> Tokens {
            match op {
                None => quote!(),
                Some(op) => {
                    let method = syn::Ident::new(compound_method(op).unwrap_or("add"), op.span());
                    let amount = if matches!(
                        op,
                        syn::BinOp::ShlAssign(_) | syn::BinOp::ShrAssign(_)
                    ) {
                        quote_spanned!(value.span()=> let #v = __wf_ir::__macro::shift_amount(#b, #v);)
                    } else {
                        quote!()
                    };
                    quote_spanned!(op.span()=> #amount let __wf_old = #old; let #v = #b.#method(__wf_old, #v);)
                }
            }
        };
        match target {
            Expr::Paren(p) => self.assign(&p.expr, value, op),
            Expr::Path(p) if p.path.get_ident().is_some() => {
                let ident = p.path.get_ident().expect("checked");
                match self.lookup(ident) {
                    Some(Binding::Local) => {
                        let update = combine(quote_spanned!(ident.span()=> #b.read(#ident)));
                        Ok(quote_spanned!(ident.span()=> { let #v = #rhs; #update #b.assign(#ident, #v); }))
                    }
                    Some(Binding::Value) => Err(Error::new(
                        ident.span(),
                        format!("cannot assign twice to immutable variable `{ident}`: declare it with `let mut {ident}`"),
                    )),
                    Some(Binding::Scalar) => Err(Error::new(
                        ident.span(),
                        format!("cannot assign to the parameter `{ident}`: parameters are immutable; copy it into a `let mut`"),
                    )),
                    Some(Binding::Const | Binding::Counter) => Err(Error::new(
                        ident.span(),
                        format!("cannot assign to `{ident}`: it is a constant while building"),
                    )),
                    Some(Binding::Array { .. } | Binding::Registers { .. }) => Err(Error::new(
                        ident.span(),
                        format!("cannot assign to the array `{ident}` as a whole: store to an element (`{ident}[i] = v`)"),
                    )),
                    None => Err(Error::new(ident.span(), format!("cannot find the variable `{ident}` in this kernel"))),
                }
            }
            Expr::Index(ix) => {
                if let Some(element) = self.register(&ix.expr, &ix.index, true)? {
                    let r = tmp("__wf_r", ix.span());
                    let update = combine(quote_spanned!(ix.span()=> #b.read(#r)));
                    return Ok(quote_spanned!(ix.span()=> {
                        let #v = #rhs;
                        let #r = #element;
                        #update
                        #b.assign(#r, #v);
                    }));
                }
                let array = self.array(&ix.expr, true)?;
                let i = tmp("__wf_i", ix.index.span());
                let index = self.index_value(&ix.index)?;
                let update = combine(quote_spanned!(array.span()=> #b.load(#array, #i)));
                Ok(quote_spanned!(array.span()=> {
                    let #v = #rhs;
                    let #i = #index;
                    #update
                    #b.store(#array, #i, #v);
                }))
            }
            Expr::Infer(_) if op.is_none() => Ok(quote!(let _ = #rhs;)),
            other => Err(Error::new_spanned(
                other,
                "only a `let mut` variable or an element of a buffer or shared array (`buf[i]`) can be assigned",
            )),
        }
    }

    fn if_stmt(&mut self, i: &syn::ExprIf) -> Result<Tokens> {
        let b = builder();
        let span = i.if_token.span();
        let c = tmp("__wf_c", i.cond.span());
        let cond = self.condition(&i.cond)?;
        let then = self.scoped(|l| l.block_stmts(&i.then_branch.stmts))?;
        match &i.else_branch {
            None => Ok(quote_spanned!(span=> { let #c = #cond; #b.if_(#c, |#b| { #then }); })),
            Some((_, otherwise)) => {
                let other = match &**otherwise {
                    Expr::Block(bl) => self.scoped(|l| l.block_stmts(&bl.block.stmts))?,
                    e => self.stmt_expr(e)?,
                };
                Ok(quote_spanned!(span=> {
                    let #c = #cond;
                    #b.if_else(#c, |#b| { #then }, |#b| { #other });
                }))
            }
        }
    }

    fn for_loop(&mut self, f: &syn::ExprForLoop) -> Result<Tokens> {
        let b = builder();
        if let Some(label) = &f.label {
            return Err(unsupported(
                label,
                "loop labels",
                "`break` and `continue` leave the innermost loop",
            ));
        }
        let var = match &*f.pat {
            Pat::Ident(p) if p.by_ref.is_none() && p.mutability.is_none() && p.subpat.is_none() => {
                p.ident.clone()
            }
            Pat::Wild(w) => syn::Ident::new("__wf_index", w.span()),
            other => {
                return Err(Error::new_spanned(
                    other,
                    "a `for` loop binds one name (`for i in a..b`)",
                ))
            }
        };
        let (range, step) = match &*f.expr {
            Expr::MethodCall(m) if m.method == "step_by" && m.args.len() == 1 => {
                let mut receiver = &*m.receiver;
                while let Expr::Paren(p) = receiver {
                    receiver = &p.expr;
                }
                (receiver, Some(&m.args[0]))
            }
            Expr::Array(a) => return self.unrolled(f, &var, a),
            Expr::Call(c) if matches!(&*c.func, Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "unroll")) => {
                return self.unrolled_range(f, &var, c)
            }
            e => (e, None),
        };
        let Expr::Range(r) = range else {
            return Err(Error::new_spanned(
                &f.expr,
                "a `for` loop runs over a range `a..b`, `(a..b).step_by(k)`, or an array literal `[x, y, …]` (unrolled while building)",
            ));
        };
        let (Some(start), Some(end), syn::RangeLimits::HalfOpen(_)) = (&r.start, &r.end, &r.limits)
        else {
            return Err(Error::new_spanned(
                r,
                "only half-open ranges with both ends (`a..b`) are supported in `for` loops",
            ));
        };
        let span = f.for_token.span();
        let start = self.value(start)?;
        let end_v = self.value(end)?;
        let step = step.map(|k| self.value(k)).transpose()?;
        let text = var.to_string();
        let body = self.in_loop(LoopKind::Ir, |s| {
            s.bind(&var, Binding::Value);
            s.block_stmts(&f.body.stmts)
        })?;
        let (step_let, advance) = match step {
            None => (
                quote!(),
                quote_spanned!(span=> let __wf_one = #b.lit(1); let __wf_next = #b.add(#var, __wf_one);),
            ),
            // Rust's `step_by` stops at the end without overflowing: the next index is `end` when the
            // step would reach or pass it.
            Some(k) => (
                quote_spanned!(span=> let __wf_step = #k;),
                quote_spanned!(span=>
                    let __wf_left = #b.sub(__wf_end, #var);
                    let __wf_more = #b.lt(__wf_step, __wf_left);
                    let __wf_next = #b.add(#var, __wf_step);
                    let __wf_next = #b.select(__wf_more, __wf_next, __wf_end);
                ),
            ),
        };
        Ok(quote_spanned!(span=> {
            let __wf_start = #start;
            let __wf_end = #end_v;
            #step_let
            let __wf_counter = __wf_ir::__macro::local(#b, #text);
            #b.assign(__wf_counter, __wf_start);
            #b.loop_(|#b| {
                let #var = #b.read(__wf_counter);
                let __wf_c = #b.lt(#var, __wf_end);
                #b.if_else(__wf_c, |_| {}, |#b| #b.break_());
                #advance
                #b.assign(__wf_counter, __wf_next);
                #body
            });
        }))
    }
}

/// The builder marker named by a literal's suffix, as a turbofish.
fn suffix_kind(lit: &Lit) -> Option<Tokens> {
    let suffix = match lit {
        Lit::Int(i) => i.suffix(),
        Lit::Float(f) => f.suffix(),
        Lit::Bool(_) => "bool",
        _ => return None,
    };
    let marker = types::marker_of(suffix)?;
    let marker = syn::Ident::new(marker, lit.span());
    Some(quote!(::<__wf_ir::builder::#marker>))
}

/// `set_loc(file!(), line!(), column!())` with the macros spanned at the user's statement, so that they
/// expand to its position: the statements it emits carry the Rust line they came from.
fn set_loc(span: Span) -> Tokens {
    let b = builder();
    quote_spanned!(span=> #b.set_loc(::core::file!(), ::core::line!(), ::core::column!());)
}
