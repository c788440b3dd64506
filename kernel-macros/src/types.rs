//! Rust types in kernel signatures and `as` casts, mapped to the builder's type markers.

use proc_macro2::TokenStream as Tokens;
use quote::{quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::{Error, Result, Type};

/// The Rust scalar types kernels compute on, and their builder markers.
const SCALARS: &[(&str, &str)] = &[
    ("bool", "Bool"),
    ("u8", "U8"),
    ("u16", "U16"),
    ("u32", "U32"),
    ("u64", "U64"),
    ("i32", "I32"),
    ("i64", "I64"),
    ("f32", "F32"),
    ("f64", "F64"),
    ("f16", "F16"),
    ("bf16", "BF16"),
];

const SUPPORTED: &str =
    "bool, u8, u16, u32, u64, i32, i64, f16, bf16, f32, f64 or a generic type parameter";

/// The bounds a generic element type may carry, as the builder's traits.
pub const BOUNDS: &[&str] = &["Float", "Transcendental", "Numeric", "Int", "Storable"];

thread_local! {
    /// The type parameters of the function being expanded (`F` in `fn k<F: Float>`).
    static GENERIC_TYPES: std::cell::RefCell<Vec<String>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Sets the type parameters of the function being expanded.
pub fn set_generic_types(names: Vec<String>) {
    GENERIC_TYPES.with(|g| *g.borrow_mut() = names);
}

/// Whether `ty` names one of the function's type parameters.
pub fn is_generic(ty: &Type) -> bool {
    let Type::Path(p) = ty else { return false };
    let Some(ident) = p.path.get_ident() else {
        return false;
    };
    let name = ident.to_string();
    GENERIC_TYPES.with(|g| g.borrow().contains(&name))
}

/// The builder marker of a scalar type name (`u32` → `U32`), if it is one.
pub fn marker_of(name: &str) -> Option<&'static str> {
    SCALARS
        .iter()
        .find(|(rust, _)| *rust == name)
        .map(|(_, m)| *m)
}

/// `<warpforge-ir>::builder::U32` for `u32` (the crate path `crate::ir_path` resolves), spanned at the
/// type; an error for other types.
pub fn scalar_kind(ty: &Type) -> Result<Tokens> {
    let name = match ty {
        Type::Path(p) if p.qself.is_none() => p.path.get_ident().map(|i| i.to_string()),
        Type::Paren(p) => return scalar_kind(&p.elem),
        Type::Group(g) => return scalar_kind(&g.elem),
        _ => None,
    };
    let text = type_text(ty);
    if is_generic(ty) {
        return Ok(quote_spanned!(ty.span()=> #ty));
    }
    let Some(marker) = name.as_deref().and_then(marker_of) else {
        let why = match name.as_deref() {
            Some("usize" | "isize") => {
                " (sizes are target-dependent; indices are u32 or u64)".to_owned()
            }
            Some("i8" | "i16" | "u128" | "i128" | "char") => {
                " (the IR has no such type)".to_owned()
            }
            _ => String::new(),
        };
        return Err(Error::new_spanned(
            ty,
            format!("`{text}` is not a kernel scalar type{why}: use {SUPPORTED}"),
        ));
    };
    let marker = syn::Ident::new(marker, ty.span());
    let ir = crate::ir_path();
    Ok(quote_spanned!(ty.span()=> #ir::builder::#marker))
}

/// A kernel or device-function parameter's type.
pub enum ParamType {
    /// `&[T]` or `&mut [T]`.
    Buffer { kind: Tokens, writable: bool },
    /// A scalar passed by value.
    Scalar { kind: Tokens },
}

/// Classifies a parameter type, or says what a parameter may be.
pub fn param_type(ty: &Type) -> Result<ParamType> {
    match ty {
        Type::Reference(r) => {
            let Type::Slice(slice) = &*r.elem else {
                return Err(Error::new_spanned(
                    ty,
                    "a reference parameter must be a buffer slice: `&[T]` (read-only) or `&mut [T]` (read-write); pass scalars by value",
                ));
            };
            if let Some(lt) = &r.lifetime {
                return Err(Error::new_spanned(lt, "buffer parameters take no lifetime"));
            }
            let kind = scalar_kind(&slice.elem)?;
            if quote!(#kind).to_string().ends_with("Bool") {
                return Err(Error::new_spanned(
                    &slice.elem,
                    "a buffer cannot hold `bool` elements (bool is not storable); use u8 or u32",
                ));
            }
            Ok(ParamType::Buffer {
                kind,
                writable: r.mutability.is_some(),
            })
        }
        Type::Path(p) if p.path.get_ident().is_some() => Ok(ParamType::Scalar {
            kind: scalar_kind(ty)?,
        }),
        Type::Paren(_) | Type::Group(_) => Ok(ParamType::Scalar {
            kind: scalar_kind(ty)?,
        }),
        _ => Err(Error::new_spanned(
            ty,
            format!(
                "`{}` is not a kernel parameter type: use a buffer (`&[T]`, `&mut [T]`) or a scalar ({SUPPORTED})",
                type_text(ty)
            ),
        )),
    }
}

/// A type as the user wrote it, without the token stream's spaces (`Vec<u32>`, not `Vec < u32 >`).
fn type_text(ty: &Type) -> String {
    let text = ty.to_token_stream().to_string();
    let mut out = String::with_capacity(text.len());
    let chars: Vec<char> = text.chars().collect();
    for (k, &c) in chars.iter().enumerate() {
        let next = chars.get(k + 1).copied();
        let prev = k.checked_sub(1).map(|p| chars[p]);
        let glue = |ch: Option<char>| matches!(ch, Some('<' | '>' | '&' | '[' | ']' | ':' | ';'));
        if c == ' ' && (glue(next) || glue(prev)) && next != Some('m') {
            continue;
        }
        out.push(c);
    }
    out
}
