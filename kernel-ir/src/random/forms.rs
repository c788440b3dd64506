//! Which statement forms a kernel uses, by name: how a random-kernel test shows that the kernels it
//! checked cover the whole statement language.

use crate::expr::Expr;
use crate::kernel::Kernel;
use crate::stmt::{Block, MemRef, Stmt, WarpOp};

/// Every statement form [`statement_forms`] names.
pub const ALL_FORMS: &[&str] = &[
    "let literal",
    "let param",
    "let special",
    "let local",
    "unary",
    "binary",
    "mul_wide",
    "mul_add",
    "funnel_shr",
    "compare",
    "select",
    "cast",
    "assign",
    "load global",
    "load shared",
    "store global",
    "store shared",
    "load_wide",
    "store_wide",
    "load_byte",
    "store_byte",
    "atomic global",
    "atomic shared",
    "if",
    "if-else",
    "loop",
    "break",
    "continue",
    "return",
    "barrier",
    "shuffle",
    "ballot",
    "vote",
    "match_any",
    "warp_sync",
];

/// The statement forms `kernel` uses (names from [`ALL_FORMS`]), each once, in [`ALL_FORMS`] order.
pub fn statement_forms(kernel: &Kernel) -> Vec<&'static str> {
    let mut found = Vec::new();
    walk(&kernel.body, &mut found);
    ALL_FORMS
        .iter()
        .copied()
        .filter(|f| found.contains(f))
        .collect()
}

fn space(array: &MemRef, global: &'static str, shared: &'static str) -> &'static str {
    match array {
        MemRef::Global(_) => global,
        MemRef::Shared(_) => shared,
    }
}

fn walk(block: &Block, found: &mut Vec<&'static str>) {
    for stmt in block {
        let form = match stmt {
            Stmt::Let { expr, .. } => match expr {
                Expr::Literal(_) => "let literal",
                Expr::Param(_) => "let param",
                Expr::Special(_) => "let special",
                Expr::Local(_) => "let local",
                Expr::Unary(..) => "unary",
                Expr::Binary(..) => "binary",
                Expr::MulWide(..) => "mul_wide",
                Expr::MulAdd(..) => "mul_add",
                Expr::FunnelShr(..) => "funnel_shr",
                Expr::Compare(..) => "compare",
                Expr::Select { .. } => "select",
                Expr::Cast(..) => "cast",
            },
            Stmt::Assign { .. } => "assign",
            Stmt::Load { array, .. } => space(array, "load global", "load shared"),
            Stmt::Store { array, .. } => space(array, "store global", "store shared"),
            Stmt::LoadWide { .. } => "load_wide",
            Stmt::LoadByte { .. } => "load_byte",
            Stmt::StoreByte { .. } => "store_byte",
            Stmt::StoreWide { .. } => "store_wide",
            Stmt::Atomic { array, .. } => space(array, "atomic global", "atomic shared"),
            Stmt::If {
                then_block,
                else_block,
                ..
            } => {
                walk(then_block, found);
                walk(else_block, found);
                if else_block.is_empty() {
                    "if"
                } else {
                    "if-else"
                }
            }
            Stmt::Loop { body } => {
                walk(body, found);
                "loop"
            }
            Stmt::Break => "break",
            Stmt::Continue => "continue",
            Stmt::Return => "return",
            Stmt::Barrier => "barrier",
            Stmt::Warp(op) => match op {
                WarpOp::Shuffle { .. } => "shuffle",
                WarpOp::Ballot { .. } => "ballot",
                WarpOp::Vote { .. } => "vote",
                WarpOp::MatchAny { .. } => "match_any",
                WarpOp::Sync { .. } => "warp_sync",
            },
        };
        if !found.contains(&form) {
            found.push(form);
        }
    }
}
