//! Support for `layout.rs`: PTX opcodes spelled as string literals. The PTX crate's `isa` module
//! owns every opcode and modifier name, its parser reads them and its printer writes them; any
//! other literal that is an opcode (`"bra"`) or starts one (`"shfl.sync"`, `"ld.{space}"`) is
//! PTX built or compared as text.

use std::path::Path;

use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::visit::Visit;
use warpforge::ptx::isa::Opcode;

/// Whether `text` spells PTX: an opcode followed by dotted modifiers (format holes allowed), or,
/// where `bare` says so, an opcode alone.
pub fn spells_ptx(text: &str, bare: bool) -> bool {
    let (head, rest) = match text.split_once('.') {
        Some((head, rest)) => (head, Some(rest)),
        None => (text, None),
    };
    if matches!(Opcode::from_name(head), Opcode::Unknown(_)) {
        return false;
    }
    match rest {
        None => bare,
        Some(rest) => rest.split('.').all(|m| {
            !m.is_empty()
                && m.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | ':' | '{' | '}'))
        }),
    }
}

/// The string literals of `file` outside `#[cfg(test)]` items that spell PTX, as `line: text`.
pub fn literals_spelling_ptx(file: &Path, bare: bool) -> Vec<String> {
    let text = std::fs::read_to_string(file).unwrap();
    let Ok(ast) = syn::parse_file(&text) else {
        return vec![format!("{}: does not parse", file.display())];
    };
    let mut finder = Finder {
        bare,
        found: Vec::new(),
    };
    for item in &ast.items {
        if !super::modules::is_test_only(item) {
            finder.visit_item(item);
        }
    }
    finder.found
}

struct Finder {
    bare: bool,
    found: Vec<String>,
}

impl<'ast> Visit<'ast> for Finder {
    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        let test_only = super::modules::is_test_only(&syn::Item::Mod(m.clone()));
        if !test_only {
            syn::visit::visit_item_mod(self, m);
        }
    }

    fn visit_lit_str(&mut self, lit: &'ast syn::LitStr) {
        let value = lit.value();
        if spells_ptx(&value, self.bare) {
            self.found.push(format!("{value:?}"));
        }
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        // `format!("shfl.sync.{m}", …)`, `vec![…]`: a body of expressions is read like code (a
        // body of another shape, `matches!(x, "a" | "b")`, is the pattern-literal case below).
        type Exprs = Punctuated<syn::Expr, syn::Token![,]>;
        if let Ok(exprs) = mac.parse_body_with(Exprs::parse_terminated) {
            for e in &exprs {
                self.visit_expr(e);
            }
        } else if let Ok(arms) = mac.parse_body_with(MatchesBody::parse) {
            for p in &arms.0 {
                self.visit_pat(p);
            }
        }
    }
}

/// The patterns of `matches!(expr, pattern)`.
struct MatchesBody(Vec<syn::Pat>);

impl Parse for MatchesBody {
    fn parse(input: ParseStream) -> syn::Result<MatchesBody> {
        input.parse::<syn::Expr>()?;
        input.parse::<syn::Token![,]>()?;
        let pat = syn::Pat::parse_multi_with_leading_vert(input)?;
        // an `if` guard, if any, is skipped
        input.step(|cursor| {
            let mut rest = *cursor;
            while let Some((_, next)) = rest.token_tree() {
                rest = next;
            }
            Ok(((), rest))
        })?;
        Ok(MatchesBody(vec![pat]))
    }
}
