//! Every word of the text form in one table. The parser matches the constants below and the operator
//! tables' `from_name` (types, access modes, special values, operators, casts, atomic operations,
//! shuffle and vote modes); [`all`] lists both, so tools and the language reference's test
//! (`kernel-ir/tests/it/ir_doc.rs`, against `docs/ir.md`) read the table the parser itself uses.
//!
//! Keywords are not reserved: a kernel, parameter, array or local may be named like one.

use crate::expr::{BinaryOp, CastKind, CmpOp, Special, UnaryOp};
use crate::stmt::{AtomicOp, ShuffleMode, VoteMode};
use crate::types::{Access, ScalarType};

/// A word the parser accepts, and its role there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Keyword {
    /// The word as written.
    pub word: &'static str,
    /// What it does, in a few words (`statement`, `binary operator`, …).
    pub role: &'static str,
}

macro_rules! fixed_words {
    ($($name:ident = $word:literal, $role:literal;)*) => {
        $(pub(crate) const $name: &str = $word;)*
        /// The words the parser matches directly, with their roles.
        const FIXED: &[Keyword] = &[$(Keyword { word: $word, role: $role }),*];
    };
}

fixed_words! {
    KERNEL = "kernel", "kernel header";
    BLOCK_SIZE = "block_size", "declaration";
    BLOCK_SHAPE = "block_shape", "declaration";
    PARAM = "param", "declaration; expression";
    SHARED = "shared", "declaration; address space";
    ALIGN = "align", "shared array alignment";
    LOCAL = "local", "declaration; expression";
    GLOBAL = "global", "buffer parameter; address space";
    IF = "if", "statement";
    ELSE = "else", "statement";
    LOOP = "loop", "statement";
    BREAK = "break", "statement";
    CONTINUE = "continue", "statement";
    RETURN = "return", "statement";
    BARRIER = "barrier", "statement";
    SET = "set", "statement";
    STORE = "store", "statement";
    WARP_SYNC = "warp_sync", "statement";
    LOAD = "load", "value-defining statement";
    ATOMIC = "atomic", "value-defining statement";
    SHUFFLE = "shuffle", "value-defining statement";
    BALLOT = "ballot", "value-defining statement";
    VOTE = "vote", "value-defining statement";
    MATCH_ANY = "match_any", "value-defining statement";
    V2 = "v2", "wide access width";
    V4 = "v4", "wide access width";
    BYTE = "u8", "byte access (`load.u8`, `store.u8`)";
    MASK = "mask", "lane mask";
    CONST = "const", "expression";
    SPECIAL = "special", "expression";
    CMP = "cmp", "expression";
    SELECT = "select", "expression";
    MUL_WIDE = "mul_wide", "expression";
    MUL_ADD = "mul_add", "expression";
    FUNNEL_SHR = "funnel_shr", "expression";
    TRUE = "true", "bool literal";
    FALSE = "false", "bool literal";
    BITS = "bits", "f32 literal by its bits";
}

/// Every keyword the parser accepts, each with its role: the fixed words, then the words of the
/// operator tables. A word with several roles (`and` is a binary operator and an atomic operation)
/// appears once per table.
pub fn all() -> Vec<Keyword> {
    let tables = [
        ("scalar type", names(&ScalarType::ALL, ScalarType::name)),
        ("buffer access mode", names(Access::ALL, Access::name)),
        ("special value", names(Special::ALL, Special::name)),
        ("unary operator", names(UnaryOp::ALL, UnaryOp::name)),
        ("binary operator", names(BinaryOp::ALL, BinaryOp::name)),
        ("comparison", names(CmpOp::ALL, CmpOp::name)),
        ("conversion", names(CastKind::ALL, CastKind::name)),
        ("atomic operation", names(AtomicOp::ALL, AtomicOp::name)),
        ("shuffle mode", names(ShuffleMode::ALL, ShuffleMode::name)),
        ("vote mode", names(VoteMode::ALL, VoteMode::name)),
    ];
    let mut words = FIXED.to_vec();
    for (role, table) in tables {
        words.extend(table.into_iter().map(|word| Keyword { word, role }));
    }
    words
}

fn names<T: Copy>(items: &[T], name: fn(T) -> &'static str) -> Vec<&'static str> {
    items.iter().map(|&item| name(item)).collect()
}
