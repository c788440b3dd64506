//! Errors: what the parser says about text that is not PTX (where, what it expected, what it
//! found), and that hostile input never makes it panic: random mutations of the corpus files
//! (truncations, byte flips, deletions, duplications, inserted punctuation) and random token soup
//! either parse — and then print and parse back to an equal AST — or give an error whose line is
//! inside the text. `PROPTEST_CASES` sets the number of cases per property (default 512).

use crate::support;

use proptest::prelude::*;
use proptest::test_runner::{TestCaseError, TestRunner};
use warpforge_ptx::parse::{parse, ParseError};

const HEADER: &str = ".version 7.0\n.target sm_80\n.address_size 64\n";

fn error_of(src: &str) -> ParseError {
    match parse(src) {
        Ok(m) => panic!("accepted:\n{src}\nas {m:#?}"),
        Err(e) => e,
    }
}

fn assert_error(src: &str, line: u32, column: u32, message: &str) {
    let e = error_of(src);
    assert_eq!(
        (e.line, e.column, e.message.as_str()),
        (line, column, message),
        "{src}"
    );
}

fn kernel(body: &str) -> String {
    format!("{HEADER}.visible .entry k()\n{{\n{body}\n}}\n")
}

#[test]
fn errors_say_where_and_what_was_expected_and_found() {
    assert_error(
        "",
        1,
        1,
        "expected `.version` (a PTX module starts with it), found end of file",
    );
    assert_error(
        "#loc = loc(\"x\")\n",
        1,
        1,
        "unexpected character '#': not part of PTX syntax",
    );
    assert_error(
        ".version 7.0\n.address_size 64\n",
        2,
        1,
        "expected `.target` after `.version`, found `.address_size`",
    );
    // Lines 1–3 header, 4 `.visible .entry`, 5 `{`, 6 onwards the body.
    assert_error(
        &kernel("    add.u32 %r1, %r2\n    ret;"),
        7,
        5,
        "expected `,` or `;` after operand 2 of `add`, found `ret`",
    );
    assert_error(
        &kernel("    ld.shared.u32 %r1, [%r2+;"),
        6,
        29,
        "expected an integer offset in the address, found `;`",
    );
    assert_error(
        &kernel("    ld .global.u32 %r1, [%r2];"),
        6,
        8,
        "expected an operand, found `.global`",
    );
    assert_error(
        &kernel("    mov.f32 %f1, 0f3F80;"),
        6,
        18,
        "malformed float literal `0f3F80`: `0f` takes exactly 8 hex digits",
    );
    assert_error(
        &kernel("    mov.u64 %rd1, 99999999999999999999;"),
        6,
        19,
        "malformed integer `99999999999999999999`: expected decimal digits that fit in 64 bits",
    );
    assert_error(
        &kernel("    .loc 1 2\n    ret;"),
        7,
        5,
        "expected the column of `.loc` on its line, found `ret`",
    );
    assert_error(
        &kernel("    mov.u32 %r1, %tid.q;"),
        6,
        22,
        "expected a vector component (`.x`, `.y`, `.z`, `.w`) after `%tid`, found `.q`",
    );
    assert_error(
        &format!("{HEADER}.visible .entry k()\n{{\n    ret;\n"),
        6,
        9,
        "expected `}` to close the block opened at line 5, found end of file",
    );
    assert_error(
        &format!("{HEADER}.file 1 \"/tmp/a.cu\n"),
        4,
        9,
        "unterminated string: expected `\"` before the end of the line",
    );
    assert_error(
        &format!("{HEADER}.entry k() .maxntid 1, 2, 3, 4 {{ ret; }}"),
        4,
        12,
        "`.maxntid` takes 1 to 3 dimensions, found 4",
    );
    assert_error(
        &format!("{HEADER}.tex .u32 t;"),
        4,
        1,
        "expected a module-scope declaration (`.entry`, `.func`, `.global`, `.shared`, …), `.file` or `.section`, found `.tex`",
    );
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let deep = kernel(&"{".repeat(100_000));
    let e = error_of(&deep);
    assert_eq!(e.message, "blocks nested deeper than 64");
    assert_eq!(e.line, 6);
    let init = format!("{HEADER}.global .u32 x[1] = {};", "{".repeat(100_000));
    assert_eq!(
        error_of(&init).message,
        "initializer lists nested deeper than 64"
    );
}

/// Where a mutation strikes and what it does.
#[derive(Clone, Debug)]
struct Mutation {
    kind: u8,
    at: usize,
    len: usize,
    byte: u8,
}

const INSERTS: &[&str] = &[
    "{", "}", "[", "]", "(", ")", ";", ",", "\"", "/*", "%", ".", "@!", "\n",
];

fn mutate(text: &str, m: &Mutation) -> String {
    let mut bytes = text.as_bytes().to_vec();
    let at = m.at % (bytes.len() + 1);
    let end = (at + m.len).min(bytes.len());
    match m.kind % 5 {
        0 => bytes.truncate(at),
        1 => {
            if let Some(b) = bytes.get_mut(at) {
                *b ^= m.byte | 1;
            }
        }
        2 => {
            bytes.drain(at..end);
        }
        3 => {
            let copy = bytes[at..end].to_vec();
            bytes.splice(at..at, copy);
        }
        _ => {
            let insert = INSERTS[usize::from(m.byte) % INSERTS.len()].as_bytes();
            bytes.splice(at..at, insert.iter().copied());
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Parses `src` (no panic may escape): an error must name a line and column inside the text; an
/// accepted text must print and parse back to an equal AST.
fn check_hostile(src: &str) -> Result<(), TestCaseError> {
    match parse(src) {
        Err(e) => {
            let lines = src.lines().count().max(1) as u32;
            let inside = (1..=lines).contains(&e.line) && e.column >= 1;
            prop_assert!(inside, "{e} outside a text of {lines} lines");
            prop_assert!(!e.message.is_empty());
        }
        Ok(module) => {
            let printed = module.to_string();
            let mut again = parse(&printed)
                .map_err(|e| TestCaseError::fail(format!("printed text fails: {e}\n{printed}")))?;
            let mut first = module;
            first.erase_positions();
            again.erase_positions();
            prop_assert_eq!(first, again, "print → parse changed the AST of\n{}", src);
        }
    }
    Ok(())
}

fn runner() -> TestRunner {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(512);
    TestRunner::new(ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    })
}

#[test]
fn mutated_corpus_files_never_panic_and_errors_stay_inside_the_file() {
    let files = support::corpus_files();
    let strategy = (
        0..files.len(),
        proptest::collection::vec((any::<u8>(), any::<usize>(), 0usize..64, any::<u8>()), 1..4),
    );
    let result = runner().run(&strategy, |(file, mutations)| {
        let mut text = files[file].1.clone();
        for (kind, at, len, byte) in mutations {
            text = mutate(
                &text,
                &Mutation {
                    kind,
                    at,
                    len,
                    byte,
                },
            );
        }
        check_hostile(&text)
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

const SOUP: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    "(",
    ")",
    ";",
    ",",
    ":",
    "<",
    ">",
    "+",
    "-",
    "@",
    "!",
    "|",
    "=",
    "\n",
    ".reg .b32 %r<4>;",
    "%r1",
    "r0",
    "_",
    "0x1f",
    "0f3F800000",
    "-7",
    "ld.global.v2.u32",
    "$L__BB0_1",
    ".loc 1 2 3",
    ".callprototype",
    ".param .b32 _",
    ".branchtargets",
];

#[test]
fn random_token_soup_never_panics() {
    let strategy = proptest::collection::vec(0..SOUP.len(), 0..200);
    let result = runner().run(&strategy, |picks| {
        let body: Vec<&str> = picks.iter().map(|&i| SOUP[i]).collect();
        check_hostile(&kernel(&body.join(" ")))?;
        check_hostile(&body.join(""))
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}
