//! `#[kernel]` and `#[device]`: GPU kernels written as Rust functions, expanded into calls of
//! `warpforge_ir`'s typed builder. Use them through `warpforge_ir` (`warpforge_ir::kernel`), which
//! re-exports them, or through `warpforge` (`warpforge::ir::kernel`): the expansion names whichever
//! of the two the calling crate depends on (`ir_path`, read from its Cargo.toml by
//! `proc-macro-crate`).
//!
//! `#[kernel(block_size = 128)] fn name(params) { body }` becomes `fn name() -> warpforge_ir::Kernel`
//! (with the function's const generics), which builds and verifies the kernel each time it is called.
//! `#[device] fn helper(params) -> T { body }` becomes a function the kernel's calls inline: it takes
//! the builder and emits the helper's statements at each call. Every Rust operation becomes one typed
//! builder call spanned at the user's tokens, so rustc reports type errors at the user's expression;
//! constructs outside the supported subset are compile errors at their span saying what is supported
//! instead. The subset is documented in `docs/kernels.md` and in `warpforge_ir::gpu`.

mod call;
mod expr;
mod lower;
mod registers;
mod stmt;
mod types;

use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as Tokens};
use quote::{quote, quote_spanned};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{parse_macro_input, Error, FnArg, GenericParam, ItemFn, Pat, Result, ReturnType};

use lower::{Binding, Lower};
use types::ParamType;

/// Turns a Rust function into a kernel constructor: `fn name() -> warpforge_ir::Kernel`.
///
/// `#[kernel(block_size = N)]`, with `N` a multiple of 32 from 32 to 1024 (a literal, checked at
/// compile time, or a constant expression over the kernel's const generics such as `32 * WARPS`,
/// checked by the verifier when the kernel is built). Parameters are buffers
/// (`&[T]` read-only, `&mut [T]` read-write) and scalars (`bool`, `u8`, `u16`, `u32`, `u64`, `i32`,
/// `i64`, `f32`), in launch order.
#[proc_macro_attribute]
pub fn kernel(attr: TokenStream, item: TokenStream) -> TokenStream {
    let item = parse_macro_input!(item as ItemFn);
    let attr = Tokens::from(attr);
    match expand_kernel(attr, &item) {
        Ok(tokens) => tokens.into(),
        Err(e) => with_placeholder(e, &item, true).into(),
    }
}

/// Turns a Rust function into a helper that `#[kernel]` bodies call; each call is inlined.
#[proc_macro_attribute]
pub fn device(attr: TokenStream, item: TokenStream) -> TokenStream {
    let item = parse_macro_input!(item as ItemFn);
    let attr = Tokens::from(attr);
    if !attr.is_empty() {
        let e = Error::new_spanned(attr, "`#[device]` takes no arguments");
        return with_placeholder(e, &item, false).into();
    }
    match expand_device(&item) {
        Ok(tokens) => tokens.into(),
        Err(e) => with_placeholder(e, &item, false).into(),
    }
}

/// The path of `warpforge_ir` in the calling crate: `::warpforge_ir` (or its renamed name) when it
/// depends on `warpforge-ir` (or is it), `::warpforge::ir` when it depends on `warpforge` only.
pub(crate) fn ir_path() -> Tokens {
    use proc_macro_crate::{crate_name, FoundCrate};
    let named = |name: &str| {
        let ident = proc_macro2::Ident::new(&name.replace('-', "_"), Span::call_site());
        quote!(::#ident)
    };
    match crate_name("warpforge-ir") {
        Ok(FoundCrate::Itself) => quote!(::warpforge_ir),
        Ok(FoundCrate::Name(name)) => named(&name),
        Err(_) => match crate_name("warpforge") {
            Ok(FoundCrate::Name(name)) => {
                let root = named(&name);
                quote!(#root::ir)
            }
            Ok(FoundCrate::Itself) => quote!(crate::ir),
            Err(_) => quote!(::warpforge_ir),
        },
    }
}

/// The error, and for a kernel a function of the same name so that uses of it do not add errors.
fn with_placeholder(e: Error, item: &ItemFn, kernel: bool) -> Tokens {
    let error = e.to_compile_error();
    if !kernel {
        return error;
    }
    let vis = &item.vis;
    let name = &item.sig.ident;
    let ir = ir_path();
    quote! {
        #error
        #[allow(dead_code)]
        #vis fn #name() -> #ir::Kernel {
            ::core::unreachable!()
        }
    }
}

/// The `block_size` argument: a literal, checked here, or a constant expression over the kernel's
/// const generics (`32 * WARPS`), evaluated when the kernel is built and checked by the verifier;
/// or a tuple of two or three such dimensions (`(16, 16)`, `(8, 8, 4)`) for a 2-D or 3-D block.
/// The block's shape `[x, y, z]` as tokens.
fn block_size(attr: Tokens) -> Result<Tokens> {
    let mut size: Option<syn::Expr> = None;
    let parser = syn::meta::parser(|meta| {
        if meta.path.is_ident("block_size") {
            size = Some(meta.value()?.parse()?);
            Ok(())
        } else {
            Err(meta.error("unknown `#[kernel]` argument; the only one is `block_size = N` (or `block_size = (X, Y)`, `(X, Y, Z)`)"))
        }
    });
    syn::parse::Parser::parse2(parser, attr)?;
    let Some(expr) = size else {
        return Err(Error::new(
            Span::call_site(),
            "missing `block_size`: write `#[kernel(block_size = 128)]` (threads per block, a multiple of 32 from 32 to 1024), or `block_size = (16, 16)` for a 2-D block",
        ));
    };
    let dims: Vec<syn::Expr> = match &expr {
        syn::Expr::Tuple(t) if (2..=3).contains(&t.elems.len()) => {
            t.elems.iter().cloned().collect()
        }
        syn::Expr::Tuple(t) => {
            return Err(Error::new_spanned(
                t,
                "a block shape has two or three dimensions: `(X, Y)` or `(X, Y, Z)`",
            ))
        }
        other => vec![other.clone()],
    };
    let literal = |e: &syn::Expr| match e {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(lit),
            ..
        }) => lit.base10_parse::<u32>().ok().map(|v| (v, lit.span())),
        _ => None,
    };
    let values: Vec<Option<(u32, Span)>> = dims.iter().map(literal).collect();
    if values.iter().all(Option::is_some) {
        let product: u64 = values
            .iter()
            .flatten()
            .map(|(v, _)| u64::from(*v))
            .product();
        if product == 0 || product > 1024 || product % 32 != 0 {
            let span = if dims.len() == 1 {
                dims[0].span()
            } else {
                expr.span()
            };
            let what = if dims.len() == 1 {
                format!("block size {product}")
            } else {
                format!("a block of {product} threads")
            };
            return Err(Error::new(
                span,
                format!("{what} is not a multiple of 32 from 32 to 1024: warps must be full"),
            ));
        }
    }
    let mut parts: Vec<Tokens> = dims
        .iter()
        .map(|e| quote_spanned!(e.span()=> { let d: u32 = #e; d }))
        .collect();
    while parts.len() < 3 {
        parts.push(quote!(1u32));
    }
    Ok(quote!([#(#parts),*]))
}

/// The generic parameters: const generics (`const N: u32`, constants while building) and element
/// types (`F: Float`, a builder kind). Returns the generics the expansion declares, each type
/// parameter's bounds as the builder's traits.
fn generics(item: &ItemFn, lower: &mut Lower) -> Result<syn::Generics> {
    if let Some(clause) = &item.sig.generics.where_clause {
        return Err(Error::new_spanned(clause, "`where` clauses are not supported; write a type parameter's bound in place (`F: Float`)"));
    }
    let ir = ir_path();
    let mut out = item.sig.generics.clone();
    let mut names = Vec::new();
    for param in out.params.iter_mut() {
        match param {
            GenericParam::Const(c) => lower.bind(&c.ident, Binding::Const),
            GenericParam::Type(t) => {
                if let Some(default) = &t.default {
                    return Err(Error::new_spanned(default, "a kernel's type parameter takes no default"));
                }
                if t.bounds.is_empty() {
                    return Err(Error::new_spanned(
                        &t.ident,
                        format!("a kernel's type parameter needs a bound: `{}: Float` (or {})", t.ident, types::BOUNDS.join(", ")),
                    ));
                }
                for bound in t.bounds.iter_mut() {
                    let name = match &*bound {
                        syn::TypeParamBound::Trait(tb) if tb.path.segments.len() == 1 => {
                            tb.path.segments[0].ident.to_string()
                        }
                        _ => String::new(),
                    };
                    if !types::BOUNDS.contains(&name.as_str()) {
                        return Err(Error::new_spanned(
                            &*bound,
                            format!("a kernel's type parameter is bounded by {}", types::BOUNDS.join(", ")),
                        ));
                    }
                    let trait_name = syn::Ident::new(&name, bound.span());
                    *bound = syn::parse_quote_spanned!(bound.span()=> #ir::builder::#trait_name);
                }
                names.push(t.ident.to_string());
            }
            GenericParam::Lifetime(l) => {
                return Err(Error::new_spanned(
                    l,
                    "kernels take no lifetime parameters: only const generics and element types (`F: Float`)",
                ))
            }
        }
    }
    types::set_generic_types(names);
    Ok(out)
}

fn check_signature(item: &ItemFn, what: &str) -> Result<()> {
    let sig = &item.sig;
    if let Some(t) = &sig.asyncness {
        return Err(Error::new_spanned(t, format!("a {what} cannot be `async`")));
    }
    if let Some(t) = &sig.unsafety {
        return Err(Error::new_spanned(
            t,
            format!("a {what} cannot be `unsafe`"),
        ));
    }
    if let Some(v) = &sig.variadic {
        return Err(Error::new_spanned(
            v,
            format!("a {what} cannot be variadic"),
        ));
    }
    Ok(())
}

/// Each parameter's name and type, or an error at the first that is not `name: Type`.
fn params(item: &ItemFn) -> Result<Vec<(syn::Ident, ParamType)>> {
    let mut out = Vec::new();
    for arg in &item.sig.inputs {
        let FnArg::Typed(arg) = arg else {
            return Err(Error::new_spanned(
                arg,
                "kernels and device functions take no `self`",
            ));
        };
        let Pat::Ident(pat) = &*arg.pat else {
            return Err(Error::new_spanned(
                &arg.pat,
                "a parameter must be a plain name (`x: u32`)",
            ));
        };
        if pat.by_ref.is_some() || pat.mutability.is_some() || pat.subpat.is_some() {
            return Err(Error::new_spanned(pat, "a parameter must be a plain name (`x: u32`); copy it into a `let mut` to change it"));
        }
        out.push((pat.ident.clone(), types::param_type(&arg.ty)?));
    }
    Ok(out)
}

fn expand_kernel(attr: Tokens, item: &ItemFn) -> Result<Tokens> {
    let ir = ir_path();
    let size = block_size(attr)?;
    check_signature(item, "kernel")?;
    if let ReturnType::Type(_, ty) = &item.sig.output {
        return Err(Error::new_spanned(
            ty,
            "a kernel returns nothing: it writes its results to `&mut [T]` buffers",
        ));
    }
    let mut lower = Lower::new(None);
    let generics = generics(item, &mut lower)?;
    let b = lower::builder();
    let mut decls = Vec::new();
    for (name, ty) in params(item)? {
        let text = name.unraw().to_string();
        decls.push(match ty {
            ParamType::Buffer { kind, writable } => {
                lower.bind(&name, Binding::Array { writable });
                let access = if writable {
                    quote!(ReadWrite)
                } else {
                    quote!(ReadOnly)
                };
                quote_spanned!(name.span()=> let #name = #b.buffer::<#kind>(#text, __wf_ir::Access::#access);)
            }
            ParamType::Scalar { kind } => {
                lower.bind(&name, Binding::Scalar);
                quote_spanned!(name.span()=> let #name = #b.scalar_param::<#kind>(#text);)
            }
        });
    }
    let body = lower.block_stmts(&item.block.stmts)?;
    let attrs = &item.attrs;
    let vis = &item.vis;
    let name = &item.sig.ident;
    let name_text = name.unraw().to_string();
    Ok(quote! {
        #(#attrs)*
        #vis fn #name #generics() -> #ir::Kernel {
            use #ir as __wf_ir;
            let mut __wf_kernel = __wf_ir::builder::KernelBuilder::with_shape(#name_text, #size);
            let #b = &mut __wf_kernel;
            #(#decls)*
            #body
            __wf_ir::__macro::finish(__wf_kernel, #name_text)
        }
    })
}

fn expand_device(item: &ItemFn) -> Result<Tokens> {
    let ir = ir_path();
    check_signature(item, "device function")?;
    let name = &item.sig.ident;
    let mut lower = Lower::new(Some(name.clone()));
    let generics = generics(item, &mut lower)?;
    let b = lower::builder();
    let mut inputs = Vec::new();
    for (pname, ty) in params(item)? {
        inputs.push(match ty {
            ParamType::Buffer { kind, writable } => {
                lower.bind(&pname, Binding::Array { writable });
                quote_spanned!(pname.span()=> #pname: impl #ir::builder::Array<#kind>)
            }
            ParamType::Scalar { kind } => {
                lower.bind(&pname, Binding::Value);
                quote_spanned!(pname.span()=> #pname: #ir::builder::Val<#kind>)
            }
        });
    }
    let (output, body) = match &item.sig.output {
        ReturnType::Default => (quote!(), lower.block_stmts(&item.block.stmts)?),
        ReturnType::Type(arrow, ty) => {
            let kind = types::scalar_kind(ty)?;
            let value = lower.value_block(&item.block.stmts, item.block.span())?;
            (
                quote_spanned!(arrow.span()=> -> #ir::builder::Val<#kind>),
                value,
            )
        }
    };
    let attrs = &item.attrs;
    let vis = &item.vis;
    Ok(quote! {
        #(#attrs)*
        #vis fn #name #generics(#b: &mut #ir::builder::KernelBuilder, #(#inputs),*) #output {
            use #ir as __wf_ir;
            #body
        }
    })
}
