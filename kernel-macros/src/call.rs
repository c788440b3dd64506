//! Calls: the intrinsics of `warpforge_ir::gpu`, recognised by name, and `#[device]` functions.

use proc_macro2::{Span, TokenStream as Tokens};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Error, Expr, ExprCall, ExprMethodCall, Result};

use crate::lower::{builder, tmp, Binding, Lower};
use crate::types;

/// The intrinsic a call names (`thread_index()`, `gpu::thread_index()`), if any, with the last path
/// segment (for its generic arguments).
fn intrinsic_name(call: &ExprCall) -> Option<(String, &syn::PathSegment)> {
    let Expr::Path(p) = &*call.func else {
        return None;
    };
    if p.qself.is_some() {
        return None;
    }
    let segs: Vec<_> = p.path.segments.iter().collect();
    let last = *segs.last()?;
    let name = last.ident.to_string();
    let qualified_ok = segs.len() == 1 || segs[segs.len() - 2].ident == "gpu";
    (qualified_ok && INTRINSICS.iter().any(|(n, _)| *n == name)).then_some((name, last))
}

/// Whether `e` is a call to the intrinsic `name`.
pub fn is_call_to(e: &Expr, name: &str) -> bool {
    matches!(e, Expr::Call(c) if intrinsic_name(c).is_some_and(|(n, _)| n == name))
}

/// Every intrinsic and its arguments, as the error messages name them.
const INTRINSICS: &[(&str, &str)] = &[
    ("thread_index", ""),
    ("lane_id", ""),
    ("warp_index", ""),
    ("block_index", ""),
    ("block_size", ""),
    ("grid_size", ""),
    ("warp_size", ""),
    ("thread_index_x", ""),
    ("thread_index_y", ""),
    ("thread_index_z", ""),
    ("block_index_x", ""),
    ("block_index_y", ""),
    ("block_index_z", ""),
    ("block_size_x", ""),
    ("block_size_y", ""),
    ("block_size_z", ""),
    ("grid_size_x", ""),
    ("grid_size_y", ""),
    ("grid_size_z", ""),
    ("barrier", ""),
    ("warp_sync", "mask"),
    ("shuffle_idx", "value, lane, mask"),
    ("shuffle_up", "value, delta, mask"),
    ("shuffle_down", "value, delta, mask"),
    ("shuffle_xor", "value, lane_mask, mask"),
    ("ballot", "predicate, mask"),
    ("vote_any", "predicate, mask"),
    ("vote_all", "predicate, mask"),
    ("match_any", "value, mask"),
    ("atomic_add", "&buf[i], value"),
    ("atomic_min", "&buf[i], value"),
    ("atomic_max", "&buf[i], value"),
    ("atomic_and", "&buf[i], value"),
    ("atomic_or", "&buf[i], value"),
    ("atomic_exchange", "&buf[i], value"),
    ("atomic_cas", "&buf[i], expected, new"),
    ("load2", "&buf[i]"),
    ("load4", "&buf[i]"),
    ("store2", "&mut buf[i], [a, b]"),
    ("store4", "&mut buf[i], [a, b, c, d]"),
    ("load_byte", "words, i"),
    ("store_byte", "words, i, value"),
    ("shared", "len, align"),
    ("min", "a, b"),
    ("max", "a, b"),
    ("mul_hi", "a, b"),
    ("mul_wide", "a, b"),
    ("select", "condition, if_true, if_false"),
    ("funnel_shr", "lo, hi, shift"),
    ("popcount", "x"),
    ("clz", "x"),
    ("brev", "x"),
    ("ffs", "x"),
    ("rsqrt", "x"),
    ("bitcast", "x"),
];

/// Whether the intrinsic is a warp collective (its last argument is the lane mask).
fn is_collective(name: &str) -> bool {
    name.starts_with("shuffle_")
        || matches!(
            name,
            "ballot" | "vote_any" | "vote_all" | "match_any" | "warp_sync"
        )
}

fn check_arity(call: &ExprCall, name: &str) -> Result<()> {
    let params = INTRINSICS
        .iter()
        .find(|(n, _)| *n == name)
        .map_or("", |(_, p)| p);
    // Arguments are separated by the commas outside brackets (`&mut buf[i], [a, b]` is two).
    let mut depth = 0i32;
    let commas = params
        .chars()
        .filter(|&c| {
            match c {
                '[' => depth += 1,
                ']' => depth -= 1,
                _ => {}
            }
            c == ',' && depth == 0
        })
        .count();
    let wanted = if params.is_empty() { 0 } else { commas + 1 };
    if call.args.len() == wanted {
        return Ok(());
    }
    let mut message = format!(
        "`{name}({params})` takes {wanted} argument{}, found {}",
        if wanted == 1 { "" } else { "s" },
        call.args.len()
    );
    if is_collective(name) {
        message.push_str("; every warp collective names its lanes with an explicit mask as its last argument (`FULL_MASK` for the whole warp)");
    }
    Err(Error::new_spanned(call, message))
}

fn one_type_arg(seg: &syn::PathSegment, name: &str, example: &str) -> Result<Tokens> {
    if let syn::PathArguments::AngleBracketed(a) = &seg.arguments {
        if let [syn::GenericArgument::Type(ty)] = a.args.iter().collect::<Vec<_>>()[..] {
            return types::scalar_kind(ty);
        }
    }
    Err(Error::new_spanned(
        seg,
        format!("`{name}` needs its type: `{example}`"),
    ))
}

impl Lower {
    /// A call in value position.
    pub fn call_value(&mut self, call: &ExprCall) -> Result<Tokens> {
        match self.call(call)? {
            (tokens, true) => Ok(tokens),
            (_, false) => Err(Error::new_spanned(call, "this call gives no value")),
        }
    }

    /// A call in statement position (a discarded value is allowed, as for atomics).
    pub fn call_stmt(&mut self, call: &ExprCall) -> Result<Tokens> {
        let (tokens, value) = self.call(call)?;
        Ok(if value {
            quote!(let _ = #tokens;)
        } else {
            quote!(#tokens;)
        })
    }

    /// The `(array, index)` of an atomic or wide access's `&buf[i]` argument.
    pub fn wide_target(&mut self, call: &ExprCall, write: bool) -> Result<(syn::Ident, Tokens)> {
        let Some(first) = call.args.first() else {
            return Err(Error::new_spanned(
                call,
                "the first argument is the element: `&buf[i]`",
            ));
        };
        let Expr::Reference(r) = first else {
            return Err(Error::new_spanned(
                first,
                "the first argument is a reference to the element: `&buf[i]`",
            ));
        };
        let Expr::Index(ix) = &*r.expr else {
            return Err(Error::new_spanned(
                first,
                "the first argument is a reference to an element: `&buf[i]`",
            ));
        };
        let array = self.array(&ix.expr, write)?;
        let index = self.index_value(&ix.index)?;
        Ok((array, index))
    }

    /// `let x = shared::<T>(len, align);`: the element kind, length and alignment.
    pub fn shared_decl(&mut self, e: &Expr) -> Result<Option<(Tokens, Tokens, Tokens)>> {
        let Expr::Call(call) = e else { return Ok(None) };
        let Some((name, seg)) = intrinsic_name(call) else {
            return Ok(None);
        };
        if name != "shared" {
            return Ok(None);
        }
        check_arity(call, "shared")?;
        let kind = one_type_arg(seg, "shared", "shared::<u32>(256, 16)")?;
        if kind.to_string().ends_with("Bool") {
            return Err(Error::new_spanned(
                seg,
                "a shared array cannot hold `bool` elements",
            ));
        }
        let len = &call.args[0];
        let align = &call.args[1];
        Ok(Some((kind, quote!(#len), quote!(#align))))
    }

    /// Lowers a call: its tokens and whether it gives a value.
    fn call(&mut self, call: &ExprCall) -> Result<(Tokens, bool)> {
        let Some((name, seg)) = intrinsic_name(call) else {
            return self.device_call(call).map(|t| (t, true));
        };
        check_arity(call, &name)?;
        let b = builder();
        let span = call.func.span();
        let method = syn::Ident::new(&name, span);
        let args: Vec<&Expr> = call.args.iter().collect();
        let value = match name.as_str() {
            "thread_index" | "lane_id" | "warp_index" | "block_index" | "block_size" | "grid_size"
            | "warp_size" => quote_spanned!(span=> #b.#method()),
            "thread_index_x" | "thread_index_y" | "thread_index_z" | "block_index_x"
            | "block_index_y" | "block_index_z" | "block_size_x" | "block_size_y"
            | "block_size_z" | "grid_size_x" | "grid_size_y" | "grid_size_z" => {
                let (base, dim) = name.split_at(name.len() - 2);
                let dim: usize = match dim {
                    "_x" => 0,
                    "_y" => 1,
                    _ => 2,
                };
                let method = syn::Ident::new(&format!("{base}_dim"), span);
                quote_spanned!(span=> #b.#method(#dim))
            }
            "barrier" => return Ok((quote_spanned!(span=> #b.barrier()), false)),
            "warp_sync" => {
                let mask = self.mask(args[0])?;
                return Ok((quote_spanned!(span=> { #mask #b.warp_sync(__wf_mask) }), false));
            }
            "shuffle_idx" | "shuffle_up" | "shuffle_down" | "shuffle_xor" => {
                let mode = syn::Ident::new(
                    match name.as_str() {
                        "shuffle_idx" => "Index",
                        "shuffle_up" => "Up",
                        "shuffle_down" => "Down",
                        _ => "Xor",
                    },
                    span,
                );
                let lets = self.operands(&args[..2])?;
                let mask = self.mask(args[2])?;
                quote_spanned!(span=> { #lets #mask #b.shuffle(__wf_ir::ShuffleMode::#mode, __wf_a0, __wf_a1, __wf_mask) })
            }
            "ballot" | "match_any" => {
                let lets = self.operands(&args[..1])?;
                let mask = self.mask(args[1])?;
                quote_spanned!(span=> { #lets #mask #b.#method(__wf_a0, __wf_mask) })
            }
            "vote_any" | "vote_all" => {
                let mode = syn::Ident::new(if name == "vote_any" { "Any" } else { "All" }, span);
                let lets = self.operands(&args[..1])?;
                let mask = self.mask(args[1])?;
                quote_spanned!(span=> { #lets #mask #b.vote(__wf_ir::VoteMode::#mode, __wf_a0, __wf_mask) })
            }
            "atomic_add" => {
                let (array, index) = self.wide_target(call, true)?;
                let lets = self.operands(&args[1..])?;
                quote_spanned!(span=> {
                    let __wf_i = #index;
                    #lets
                    #b.atomic_add(#array, __wf_i, __wf_a0)
                })
            }
            "atomic_min" | "atomic_max" | "atomic_and" | "atomic_or" | "atomic_exchange" => {
                let op = syn::Ident::new(
                    match name.as_str() {
                        "atomic_add" => "Add",
                        "atomic_min" => "Min",
                        "atomic_max" => "Max",
                        "atomic_and" => "And",
                        "atomic_or" => "Or",
                        _ => "Exchange",
                    },
                    span,
                );
                let (array, index) = self.wide_target(call, true)?;
                let lets = self.operands(&args[1..])?;
                quote_spanned!(span=> {
                    let __wf_i = #index;
                    #lets
                    #b.atomic(__wf_ir::AtomicOp::#op, #array, __wf_i, __wf_a0)
                })
            }
            "atomic_cas" => {
                let (array, index) = self.wide_target(call, true)?;
                let lets = self.operands(&args[1..])?;
                quote_spanned!(span=> { let __wf_i = #index; #lets #b.atomic_cas(#array, __wf_i, __wf_a0, __wf_a1) })
            }
            "load2" | "load4" => {
                return Err(Error::new_spanned(
                    call,
                    format!("`{name}` gives several values: bind them with `let [a, b, …] = {name}(&buf[i]);`"),
                ))
            }
            "store2" | "store4" => {
                let width = if name == "store2" { 2usize } else { 4 };
                let (array, index) = self.wide_target(call, true)?;
                let Expr::Array(values) = args[1] else {
                    return Err(Error::new_spanned(args[1], format!("`{name}` stores an array of {width} values: `[a, b, …]`")));
                };
                if values.elems.len() != width {
                    return Err(Error::new_spanned(values, format!("`{name}` stores {width} values, found {}", values.elems.len())));
                }
                let elems: Vec<&Expr> = values.elems.iter().collect();
                let lets = self.operands(&elems)?;
                let names = (0..width).map(|k| tmp(&format!("__wf_a{k}"), span));
                return Ok((
                    quote_spanned!(span=> { let __wf_i = #index; #lets #b.store_vec::<#width, _, _>(#array, __wf_i, [#(#names),*]) }),
                    false,
                ));
            }
            "load_byte" => {
                let array = self.array(args[0], false)?;
                let index = self.index_value(args[1])?;
                quote_spanned!(span=> { let __wf_i = #index; #b.load_byte(#array, __wf_i) })
            }
            "store_byte" => {
                let array = self.array(args[0], true)?;
                let index = self.index_value(args[1])?;
                let lets = self.operands(&args[2..])?;
                return Ok((
                    quote_spanned!(span=> { let __wf_i = #index; #lets #b.store_byte(#array, __wf_i, __wf_a0) }),
                    false,
                ));
            }
            "shared" => {
                return Err(Error::new_spanned(
                    call,
                    "`shared::<T>(len, align)` declares a shared array: bind it with `let name = shared::<T>(len, align);`",
                ))
            }
            "min" | "max" | "mul_hi" | "mul_wide" => {
                let lets = self.operands(&args)?;
                quote_spanned!(span=> { #lets #b.#method(__wf_a0, __wf_a1) })
            }
            "select" => {
                let lets = self.operands(&args)?;
                quote_spanned!(span=> { #lets #b.select(__wf_a0, __wf_a1, __wf_a2) })
            }
            "funnel_shr" => {
                let lets = self.operands(&args)?;
                quote_spanned!(span=> { #lets #b.funnel_shr(__wf_a0, __wf_a1, __wf_a2) })
            }
            "popcount" | "clz" | "brev" | "ffs" | "rsqrt" => {
                let lets = self.operands(&args)?;
                quote_spanned!(span=> { #lets #b.#method(__wf_a0) })
            }
            "bitcast" => {
                let kind = one_type_arg(seg, "bitcast", "bitcast::<f32>(bits)")?;
                let lets = self.operands(&args)?;
                quote_spanned!(span=> { #lets #b.bitcast::<#kind, _>(__wf_a0) })
            }
            other => return Err(Error::new(span, format!("internal: intrinsic `{other}` has no lowering"))),
        };
        Ok((value, true))
    }

    /// `let __wf_a0 = …; let __wf_a1 = …;` in order, each spanned at its argument.
    fn operands(&mut self, args: &[&Expr]) -> Result<Tokens> {
        let mut out = Tokens::new();
        for (k, arg) in args.iter().enumerate() {
            let name = tmp(&format!("__wf_a{k}"), arg.span());
            let value = self.value(arg)?;
            out.extend(quote_spanned!(arg.span()=> let #name = #value;));
        }
        Ok(out)
    }

    /// `let __wf_mask = …;`: a constant mask for a literal or a Rust constant, a dynamic one for a
    /// value computed in the kernel.
    fn mask(&mut self, arg: &Expr) -> Result<Tokens> {
        let span = arg.span();
        let constant = match arg {
            Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(_),
                ..
            }) => true,
            Expr::Path(p) => match p.path.get_ident() {
                Some(i) => matches!(
                    self.lookup(i),
                    None | Some(Binding::Const | Binding::Counter)
                ),
                None => true,
            },
            _ => false,
        };
        if let Expr::Path(p) = arg {
            if p.path
                .segments
                .last()
                .is_some_and(|s| s.ident == "FULL_MASK")
                && p.path.get_ident().is_none_or(|i| self.lookup(i).is_none())
            {
                return Ok(quote_spanned!(span=> let __wf_mask = __wf_ir::Mask::FULL;));
            }
        }
        if constant {
            return Ok(quote_spanned!(span=> let __wf_mask = __wf_ir::Mask::Const(#arg);));
        }
        let value = self.value(arg)?;
        Ok(
            quote_spanned!(span=> let __wf_mask: __wf_ir::Mask = ::core::convert::From::from(#value);),
        )
    }

    /// A call of a `#[device]` function: arguments in order (buffers and shared arrays by handle), then
    /// the function, which emits its body here.
    fn device_call(&mut self, call: &ExprCall) -> Result<Tokens> {
        let Expr::Path(func) = &*call.func else {
            return Err(Error::new_spanned(&call.func, "only named functions can be called: intrinsics of `warpforge_ir::gpu` and `#[device]` functions"));
        };
        if let (Some(me), Some(last)) = (&self.device, func.path.segments.last()) {
            if last.ident == *me {
                return Err(Error::new_spanned(
                    call,
                    format!("`#[device]` function `{me}` calls itself: device functions are inlined, so recursion is not supported"),
                ));
            }
        }
        let b = builder();
        let mut lets = Tokens::new();
        let mut names = Vec::new();
        for (k, arg) in call.args.iter().enumerate() {
            let name = tmp(&format!("__wf_a{k}"), arg.span());
            let array = match arg {
                Expr::Path(p) => p
                    .path
                    .get_ident()
                    .filter(|i| matches!(self.lookup(i), Some(Binding::Array { .. })))
                    .cloned(),
                _ => None,
            };
            let value = match array {
                Some(handle) => quote_spanned!(arg.span()=> #handle),
                None => self.value(arg)?,
            };
            lets.extend(quote_spanned!(arg.span()=> let #name = #value;));
            names.push(name);
        }
        let span: Span = call.func.span();
        Ok(quote_spanned!(span=> { #lets #func(#b, #(#names),*) }))
    }
}

/// The methods of Rust's integer and `f32` types a kernel may call, the builder method each
/// becomes, and how many arguments it takes besides the receiver.
const METHODS: &[(&str, &str, usize)] = &[
    ("min", "min", 1),
    ("max", "max", 1),
    ("count_ones", "popcount", 0),
    ("leading_zeros", "clz", 0),
    ("reverse_bits", "brev", 0),
    ("abs", "abs", 0),
    ("floor", "floor", 0),
    ("ceil", "ceil", 0),
    ("trunc", "ftrunc", 0),
    ("round_ties_even", "round_even", 0),
    ("sqrt", "sqrt", 0),
    ("is_nan", "is_nan", 0),
    ("is_finite", "is_finite", 0),
    ("copysign", "copysign", 1),
    ("recip", "recip", 0),
    ("exp", "exp", 0),
    ("exp2", "exp2", 0),
    ("ln", "ln", 0),
    ("log2", "log2", 0),
    ("sin", "sin", 0),
    ("cos", "cos", 0),
    ("tanh", "tanh", 0),
    ("erf", "erf", 0),
    ("log10", "log10", 0),
    ("exp_m1", "exp_m1", 0),
    ("ln_1p", "ln_1p", 0),
    ("powf", "powf", 1),
    ("round", "round", 0),
    ("mul_add", "mul_add", 2),
];

impl Lower {
    /// A method call in Rust's syntax (`x.abs()`, `a.min(b)`, `x.count_ones()`) on kernel values:
    /// the IR operation with Rust's meaning for the receiver's type (type errors at the receiver).
    pub fn method_value(&mut self, m: &ExprMethodCall) -> Result<Tokens> {
        let name = m.method.to_string();
        let Some(&(_, method, arity)) = METHODS.iter().find(|(rust, _, _)| *rust == name) else {
            let known: Vec<String> = METHODS.iter().map(|(n, _, _)| format!("`{n}`")).collect();
            return Err(Error::new_spanned(
                &m.method,
                format!(
                    "`.{name}()` is not available in kernels; the methods are {} (or write a \
                     `#[device]` function)",
                    known.join(", ")
                ),
            ));
        };
        if let Some(t) = &m.turbofish {
            return Err(Error::new_spanned(
                t,
                format!("`.{name}()` takes no type arguments"),
            ));
        }
        if m.args.len() != arity {
            return Err(Error::new_spanned(
                m,
                format!(
                    "`.{name}()` takes {arity} argument{}, found {}",
                    if arity == 1 { "" } else { "s" },
                    m.args.len()
                ),
            ));
        }
        let mut operands: Vec<&Expr> = vec![&m.receiver];
        operands.extend(m.args.iter());
        let lets = self.operands(&operands)?;
        let b = builder();
        let span = m.method.span();
        let method = syn::Ident::new(method, span);
        Ok(match arity {
            0 => quote_spanned!(span=> { #lets #b.#method(__wf_a0) }),
            1 => quote_spanned!(span=> { #lets #b.#method(__wf_a0, __wf_a1) }),
            _ => quote_spanned!(span=> { #lets #b.#method(__wf_a0, __wf_a1, __wf_a2) }),
        })
    }
}
