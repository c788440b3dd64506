//! The text form round-trips: print → parse → print is the identity, and parse gives back the same IR.

use proptest::prelude::*;
use warpforge_ir::{parse_kernel, random::random_kernel, samples, verify};

fn assert_round_trip(kernel: &warpforge_ir::Kernel) {
    let text = kernel.to_string();
    let parsed = parse_kernel(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(
        parsed.to_string(),
        text,
        "print → parse → print changed the text"
    );
    assert_eq!(&parsed, kernel, "parse did not give back the same IR");
    verify(&parsed).expect("a parsed verified kernel still verifies");
}

#[test]
fn every_sample_round_trips() {
    for sample in samples::ALL {
        let kernel = (sample.build)();
        verify(&kernel).unwrap_or_else(|e| panic!("{}: {e}", sample.name));
        assert_round_trip(&kernel);
    }
}

#[test]
fn sample_text_is_stable() {
    // The printed form is what snapshots and fixtures hold; pin one completely.
    let expected = "\
kernel vector_add {
    block_size 128
    param a: global f32 read
    param b: global f32 read
    param out: global f32 read_write
    param n: u32
    %0: u32 = special block_index
    %1: u32 = special block_size
    %2: u32 = mul %0, %1
    %3: u32 = special thread_index
    %4: u32 = add %2, %3
    %5: u32 = param n
    %6: bool = cmp lt %4, %5
    if %6 {
        %7: f32 = load global a[%4]
        %8: f32 = load global b[%4]
        %9: f32 = add %7, %8
        store global out[%4], %9
    }
}
";
    // The sample is written with `#[kernel]`: its statements carry Rust positions, set aside here.
    let mut kernel = samples::vector_add();
    kernel.locs = Default::default();
    assert_eq!(kernel.to_string(), expected);
}

#[test]
fn comments_and_whitespace_are_ignored() {
    let src = "// a fixture\nkernel k {  block_size 32 // full warp\n param x: global u8 read_write\n%0: u32 = const 0x10\n%1: u8 = const 255 store global x[%0], %1 }";
    let kernel = parse_kernel(src).expect("parses");
    verify(&kernel).expect("verifies");
    assert_round_trip(&kernel);
}

#[test]
fn parse_errors_name_line_and_column() {
    let cases = [
        (
            "kernel k {\n    block_size 32\n    %0: u32 = frobnicate %1\n}\n",
            3,
            "unknown operation `frobnicate`",
        ),
        (
            "kernel k {\n    block_size 32\n    %0: u8 = const 256\n}\n",
            3,
            "not a valid u8 constant",
        ),
        (
            "kernel k {\n    block_size 32\n    %0: u32 = add %0, %7\n}\n",
            3,
            "%7 is used but never defined",
        ),
        (
            "kernel k {\n    block_size 32\n    %1: u32 = const 1\n}\n",
            3,
            "%0 is never defined before %1",
        ),
        (
            "kernel k {\n    block_size 32\n    store global nowhere[%0], %0\n}\n",
            3,
            "`nowhere` is not a global array",
        ),
        (
            "kernel k {\n    block_size 32\n    %0: u32 = const 1\n    %0: u32 = const 2\n}\n",
            4,
            "defined twice",
        ),
        ("kernel k {\n    block_size 32\n", 3, "expected `}`"),
        ("kernel k { block_size 32 } trailing", 1, "end of input"),
    ];
    for (src, line, needle) in cases {
        let err = parse_kernel(src).expect_err(src);
        assert_eq!(err.line, line, "{src}: {err}");
        assert!(err.to_string().contains(needle), "{src}: {err}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Random well-typed kernels verify and round-trip through the text form.
    #[test]
    fn random_kernels_round_trip(choices in proptest::collection::vec(any::<u8>(), 0..2048)) {
        let kernel = random_kernel(&choices);
        if let Err(e) = verify(&kernel) {
            panic!("the generator made an invalid kernel: {e}\n{kernel}");
        }
        assert_round_trip(&kernel);
    }

    /// Arbitrary edits of valid text never panic the parser or the verifier.
    #[test]
    fn mangled_text_never_panics(
        choices in proptest::collection::vec(any::<u8>(), 0..512),
        edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..8),
    ) {
        let mut bytes = random_kernel(&choices).to_string().into_bytes();
        for (at, byte) in edits {
            let at = at % bytes.len();
            match byte % 3 {
                0 => { bytes.remove(at); }
                1 => bytes.insert(at, b"%0123456789 {}[]:,=.-xabq\n"[usize::from(byte) % 26]),
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
