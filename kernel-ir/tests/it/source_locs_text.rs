//! Source positions in the `.wfir` text form: `@ "file":line:column` after a statement (before the `{`
//! of an `if` or `loop`) round-trips, and hostile positions are refused with their line.

use proptest::prelude::*;
use warpforge_ir::builder::{KernelBuilder, U32};
use warpforge_ir::text::locate_in_printed_text;
use warpforge_ir::{parse_kernel, random::random_kernel, verify, Access, Kernel, SourceLoc};

fn assert_round_trip(kernel: &Kernel) {
    let text = kernel.to_string();
    let parsed = parse_kernel(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(parsed.to_string(), text, "print → parse → print changed it");
    assert_eq!(&parsed, kernel, "parse did not give back the same IR");
    verify(&parsed).expect("still verifies");
}

fn small() -> Kernel {
    let mut b = KernelBuilder::new("small", 32);
    let data = b.buffer::<U32>("data", Access::ReadWrite);
    b.set_loc("src/small.rs", 3, 5);
    let i = b.thread_index();
    let low = b.lane_id();
    let zero = b.u32(0);
    let first = b.eq(low, zero);
    b.set_loc("src/small.rs", 4, 5);
    b.if_else(
        first,
        |b| {
            b.set_loc("src/small.rs", 5, 9);
            b.store(data, i, i);
        },
        |b| {
            b.clear_loc();
            b.store(data, i, zero);
        },
    );
    b.loop_(|b| {
        b.set_loc("src/small.rs", 8, 9);
        b.break_();
    });
    b.finish().expect("verifies")
}

#[test]
fn positions_print_after_the_statement_and_before_a_block() {
    let text = small().to_string();
    let expected = r#"kernel small {
    block_size 32
    param data: global u32 read_write
    %0: u32 = special thread_index @ "src/small.rs":3:5
    %1: u32 = special lane_id @ "src/small.rs":3:5
    %2: u32 = const 0 @ "src/small.rs":3:5
    %3: bool = cmp eq %1, %2 @ "src/small.rs":3:5
    if %3 @ "src/small.rs":4:5 {
        store global data[%0], %0 @ "src/small.rs":5:9
    } else {
        store global data[%0], %2
    }
    loop @ "src/small.rs":4:5 {
        break @ "src/small.rs":8:9
    }
}
"#;
    assert_eq!(text, expected);
    assert_round_trip(&small());
}

#[test]
fn statements_located_at_their_printed_lines() {
    let mut k = warpforge_ir::samples::vector_add();
    // The sample's own Rust positions (`#[kernel]`) set aside: every statement is unpositioned.
    k.locs = Default::default();
    locate_in_printed_text(&mut k, "vector_add.wfir");
    let at = |p: &str| k.locs.get(p).map(ToString::to_string);
    // kernel, block_size, 4 params, then %0..%6 on lines 7..=13, the `if` on 14, %7 inside it on 15.
    assert_eq!(at("body[0]").as_deref(), Some("vector_add.wfir:7:5"));
    assert_eq!(at("body[7]").as_deref(), Some("vector_add.wfir:14:5"));
    assert_eq!(
        at("body[7].then[0]").as_deref(),
        Some("vector_add.wfir:15:9")
    );
    assert_eq!(k.locs.len(), 12);
    let text = k.to_string();
    assert!(
        text.contains("    if %6 @ \"vector_add.wfir\":14:5 {\n"),
        "{text}"
    );
    // A second call keeps what is there.
    let before = k.clone();
    locate_in_printed_text(&mut k, "other.wfir");
    assert_eq!(k, before);
}

#[test]
fn odd_file_names_round_trip() {
    for file in [
        "src/saxpy.rs",
        "C:\\work\\my crate\\src\\lib.rs",
        "quote\"d:12:9",
        "new\nline\ttab\r\u{7f}\u{1}",
        "ünïcødé/ファイル.rs",
        "",
        "@ \"x\":1:2 {",
    ] {
        let mut kernel = small();
        kernel
            .locs
            .insert("body[0]".into(), SourceLoc::new(file, 1, 2));
        kernel
            .locs
            .insert("body[4]".into(), SourceLoc::new(file, u32::MAX, 0));
        assert_round_trip(&kernel);
        let parsed = parse_kernel(&kernel.to_string()).unwrap();
        assert_eq!(&*parsed.locs.get("body[0]").unwrap().file, file);
    }
}

#[test]
fn hand_written_positions_parse() {
    // Escapes the printer does not write (`\u{41}` for a printable character) still read back.
    let text = "kernel k {\n block_size 32\n %0: u32 = const 1 @ \"a\\u{41}.rs\" : 2 : 3\n\
                loop @\"l.rs\":9:1{ break }\n}";
    let k = parse_kernel(text).expect("parses");
    assert_eq!(k.locs.get("body[0]").unwrap().to_string(), "aA.rs:2:3");
    assert_eq!(k.locs.get("body[1]").unwrap().to_string(), "l.rs:9:1");
    assert_eq!(k.locs.get("body[1].loop[0]"), None);
}

#[test]
fn hostile_positions_are_refused_with_their_line() {
    let head = "kernel k {\n    block_size 32\n";
    let cases: &[(&str, usize, &str)] = &[
        (
            "    %0: u32 = const 1 @\n}",
            4,
            "expected a quoted file name",
        ),
        (
            "    %0: u32 = const 1 @ main:1:2\n}",
            3,
            "expected a quoted file name",
        ),
        (
            "    %0: u32 = const 1 @ \"a.rs\n\":1:2\n}",
            3,
            "control character",
        ),
        ("    %0: u32 = const 1 @ \"a.rs", 3, "unterminated string"),
        ("    %0: u32 = const 1 @ \"a.rs\\", 3, "unterminated string"),
        (
            "    %0: u32 = const 1 @ \"a\\q.rs\":1:2\n}",
            3,
            "unknown escape `\\q`",
        ),
        (
            "    %0: u32 = const 1 @ \"a\\u{110000}\":1:2\n}",
            3,
            "is not a character",
        ),
        (
            "    %0: u32 = const 1 @ \"a\\u{}\":1:2\n}",
            3,
            "is not a character",
        ),
        (
            "    %0: u32 = const 1 @ \"a\\u{d800}\":1:2\n}",
            3,
            "is not a character",
        ),
        (
            "    %0: u32 = const 1 @ \"a\\u41\":1:2\n}",
            3,
            "expected `\\u{HEX}`",
        ),
        (
            "    %0: u32 = const 1 @ \"a\\u{0000000041}\":1:2\n}",
            3,
            "expected `\\u{HEX}`",
        ),
        ("    %0: u32 = const 1 @ \"a.rs\"\n}", 4, "expected `:`"),
        ("    %0: u32 = const 1 @ \"a.rs\":1\n}", 4, "expected `:`"),
        (
            "    %0: u32 = const 1 @ \"a.rs\":1:\n}",
            4,
            "expected a column number",
        ),
        (
            "    %0: u32 = const 1 @ \"a.rs\":-1:2\n}",
            3,
            "line number `-1`",
        ),
        (
            "    %0: u32 = const 1 @ \"a.rs\":4294967296:2\n}",
            3,
            "line number",
        ),
        (
            "    %0: u32 = const 1\n    @ \"a.rs\":1:2 @ \"b.rs\":1:2\n}",
            4,
            "expected a statement, found `@`",
        ),
        ("    @ \"a.rs\":1:2\n}", 3, "expected a statement"),
        (
            "    %0: bool = const true\n    if %0 {\n    } @ \"a.rs\":1:2\n}",
            5,
            "expected a statement",
        ),
        (
            "    loop {\n    @ \"a.rs\":1:2 }\n}",
            4,
            "expected a statement",
        ),
    ];
    for (body, line, needle) in cases {
        let src = format!("{head}{body}");
        let e = parse_kernel(&src).expect_err(&src);
        assert_eq!(e.line, *line, "{src}: {e}");
        assert!(e.message.contains(needle), "{src}: {e}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Random kernels with a position on every statement round-trip.
    #[test]
    fn random_located_kernels_round_trip(choices in proptest::collection::vec(any::<u8>(), 0..2048)) {
        let mut kernel = random_kernel(&choices);
        locate_in_printed_text(&mut kernel, "src/random.rs");
        assert_round_trip(&kernel);
    }

    /// Arbitrary edits of located text (quotes, backslashes and `@` included) never panic.
    #[test]
    fn mangled_located_text_never_panics(
        choices in proptest::collection::vec(any::<u8>(), 0..512),
        edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..8),
    ) {
        let mut kernel = random_kernel(&choices);
        locate_in_printed_text(&mut kernel, "src/r\"\\.rs");
        let mut bytes = kernel.to_string().into_bytes();
        for (at, byte) in edits {
            let at = at % bytes.len();
            let alphabet = b"@\"\\u{}:0123456789 %[]\n";
            match byte % 3 {
                0 => { bytes.remove(at); }
                1 => bytes.insert(at, alphabet[usize::from(byte) % alphabet.len()]),
                _ => bytes[at] = byte,
            }
        }
        let text = String::from_utf8_lossy(&bytes);
        if let Ok(kernel) = parse_kernel(&text) {
            let _verdict = verify(&kernel).is_ok();
            let _printed = kernel.to_string();
        }
    }
}
