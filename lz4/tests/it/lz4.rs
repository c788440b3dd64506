//! The LZ4 CPU reference: every block decodes byte-exact with our decoder, lz4_flex and liblz4; our
//! decoder decodes theirs; the end-of-block rules hold; hostile blocks never panic the decoder.

use proptest::prelude::*;
use warpforge_lz4::kernels::lz4::pages::{page, PageKind};
use warpforge_lz4::kernels::lz4::*;

/// liblz4's `LZ4_decompress_safe` (the reference decoder): the decoded bytes, or `None` if it rejects.
fn liblz4_decompress(block: &[u8], capacity: usize) -> Option<Vec<u8>> {
    let mut out = vec![0u8; capacity];
    // SAFETY: both pointers are valid for the lengths passed; liblz4 never writes past `capacity`.
    let n = unsafe {
        lz4_sys::LZ4_decompress_safe(
            block.as_ptr().cast(),
            out.as_mut_ptr().cast(),
            block.len() as i32,
            capacity as i32,
        )
    };
    (n >= 0).then(|| {
        out.truncate(n as usize);
        out
    })
}

/// liblz4's default block compression.
fn liblz4_compress(input: &[u8]) -> Vec<u8> {
    let mut out = vec![0u8; lz4_compress_bound(input.len())];
    // SAFETY: both pointers are valid for the lengths passed.
    let n = unsafe {
        lz4_sys::LZ4_compress_default(
            input.as_ptr().cast(),
            out.as_mut_ptr().cast(),
            input.len() as i32,
            out.len() as i32,
        )
    };
    assert!(n > 0 || input.is_empty(), "liblz4 failed to compress");
    out.truncate(n.max(0) as usize);
    out
}

fn compress(input: &[u8]) -> Vec<u8> {
    let mut out = vec![0u8; lz4_compress_bound(input.len())];
    let n = lz4_compress_block(input, &mut out).expect("compresses");
    out.truncate(n);
    out
}

fn compress_at(input: &[u8], level: Lz4Level) -> Vec<u8> {
    let mut out = vec![0u8; lz4_compress_bound(input.len())];
    let n = lz4_compress_block_level(input, &mut out, level).expect("compresses");
    out.truncate(n);
    out
}

/// Walks a block's sequences and checks liblz4's end-of-block rules: the last sequence is literals only,
/// the last 5 bytes are literals, and the last match starts at least 12 bytes before the end.
fn check_end_rules(block: &[u8], n: usize) {
    let (mut s, mut d, mut last_match_start) = (0usize, 0usize, None);
    let last_literals = loop {
        let token = block[s];
        s += 1;
        let mut lit = usize::from(token >> 4);
        if lit == 15 {
            while block[s] == 255 {
                lit += 255;
                s += 1;
            }
            lit += usize::from(block[s]);
            s += 1;
        }
        s += lit;
        d += lit;
        if s == block.len() {
            break lit;
        }
        s += 2;
        let mut ml = usize::from(token & 15);
        if ml == 15 {
            while block[s] == 255 {
                ml += 255;
                s += 1;
            }
            ml += usize::from(block[s]);
            s += 1;
        }
        last_match_start = Some(d);
        d += ml + LZ4_MIN_MATCH;
    };
    assert_eq!(d, n);
    if n >= LZ4_LAST_LITERALS {
        assert!(
            last_literals >= LZ4_LAST_LITERALS,
            "the last {LZ4_LAST_LITERALS} bytes must be literals"
        );
    }
    if let Some(start) = last_match_start {
        assert!(
            start + LZ4_MF_LIMIT <= n,
            "a match starts at {start}, within the last 12 bytes of {n}"
        );
    }
}

/// Every level's block decodes with all three decoders and keeps the end-of-block rules; our decoder
/// reads lz4_flex's and liblz4's blocks.
fn check_everywhere(input: &[u8]) {
    assert_eq!(compress(input), compress_at(input, Lz4Level::DEFAULT));
    for level in Lz4Level::ALL {
        let block = compress_at(input, level);
        let mut ours = vec![0u8; input.len()];
        assert_eq!(
            lz4_decompress_block(&block, &mut ours),
            Ok(input.len()),
            "{level}"
        );
        assert_eq!(ours, input, "our decoder, {level}");
        assert_eq!(
            lz4_flex::block::decompress(&block, input.len()).expect("lz4_flex decodes it"),
            input,
            "lz4_flex, {level}"
        );
        assert_eq!(
            liblz4_decompress(&block, input.len()).expect("liblz4 accepts it"),
            input,
            "liblz4, {level}"
        );
        check_end_rules(&block, input.len());
    }
    // And the other direction: our decoder reads what the other encoders write.
    let mut back = vec![0u8; input.len()];
    let theirs = lz4_flex::block::compress(input);
    assert_eq!(
        lz4_decompress_block(&theirs, &mut back),
        Ok(input.len()),
        "lz4_flex's block"
    );
    assert_eq!(back, input);
    let theirs = liblz4_compress(input);
    assert_eq!(
        lz4_decompress_block(&theirs, &mut back),
        Ok(input.len()),
        "liblz4's block"
    );
    assert_eq!(back, input);
}

#[test]
fn every_page_kind_round_trips_through_three_decoders() {
    for kind in PageKind::ALL {
        for seed in 0..8 {
            check_everywhere(&page(kind, seed));
        }
    }
}

#[test]
fn short_and_edge_inputs_round_trip() {
    for n in 0..=64 {
        check_everywhere(&vec![7u8; n]);
        check_everywhere(&(0..n as u8).collect::<Vec<u8>>());
    }
    // Matches of every length class around the 15 / 15+255 boundaries.
    for run in [3, 4, 5, 18, 19, 20, 273, 274, 275, 528, 529, 530] {
        let mut input = b"0123456789abcdef".to_vec();
        input.extend(std::iter::repeat_n(b'x', run));
        input.extend_from_slice(b"tail-literals");
        check_everywhere(&input);
    }
}

#[test]
fn compressed_sizes_of_page_kinds_are_what_a_zram_user_expects() {
    let size = |kind| compress(&page(kind, 1)).len();
    // One literal, one 4090-byte match (16 length bytes), five final literals: 26 bytes.
    assert_eq!(size(PageKind::Zero), 26, "a zero page is one match");
    // Eight literals (the pattern), then the same match and final literals: 33 bytes.
    assert_eq!(
        size(PageKind::SameFilled),
        33,
        "a same-filled page is one match"
    );
    assert!(size(PageKind::Text) < PAGE_SIZE / 2);
    assert!(
        size(PageKind::Random) > PAGE_SIZE,
        "random data does not shrink"
    );
}

#[test]
fn levels_are_numbered_zero_to_three_and_others_are_refused_by_name() {
    for (n, level) in (0..).zip(Lz4Level::ALL) {
        assert_eq!(Lz4Level::from_number(n), Ok(level));
        assert_eq!(level.number(), n);
    }
    assert_eq!(Lz4Level::default(), Lz4Level::DEFAULT);
    assert!(!Lz4Level::THROUGHPUT.uses_chains());
    assert!(Lz4Level::ALL[1..].iter().all(|l| l.uses_chains()));
    let custom = Lz4Level::custom(16, 1, 32).expect("a valid setting");
    assert_eq!(custom.number(), Lz4Level::CUSTOM_NUMBER);
    assert!(custom.to_string().starts_with("custom level"), "{custom}");
    for n in [4, 9, Lz4Level::CUSTOM_NUMBER] {
        let err = Lz4Level::from_number(n)
            .expect_err("not a level")
            .to_string();
        assert!(
            err.contains(&format!("no LZ4 level {n}")) && err.contains("0 (throughput)"),
            "{err}"
        );
    }
}

/// On the synthetic page kinds, each higher level writes smaller blocks in total (the real-page figures
/// are in docs/lz4.md).
#[test]
fn higher_levels_write_smaller_blocks_on_page_kinds() {
    let total = |level| -> usize {
        PageKind::ALL
            .iter()
            .flat_map(|&kind| (0..8).map(move |seed| page(kind, seed)))
            .map(|p| compress_at(&p, level).len())
            .sum()
    };
    let [throughput, fast, default, high] = Lz4Level::ALL.map(total);
    assert!(
        fast <= throughput && default < fast && high <= default,
        "L0 {throughput}, L1 {fast}, L2 {default}, L3 {high} bytes"
    );
}

#[test]
fn malformed_blocks_name_the_offending_byte() {
    let mut out = [0u8; 64];
    let cases: [(&[u8], usize, &str); 6] = [
        (&[], 0, "empty block"),
        (&[0xF0], 1, "length continues past the end"),
        (&[0x30, b'a'], 1, "literals run past the end"),
        (&[0x10, b'a', 0x01], 2, "offset cut off"),
        (&[0x10, b'a', 0x00, 0x00, 0x00], 2, "offset 0"),
        (
            &[0x10, b'a', 0x05, 0x00, 0x00],
            2,
            "before the start of the output",
        ),
    ];
    for (block, at, reason) in cases {
        match lz4_decompress_block(block, &mut out) {
            Err(Lz4Error::Malformed { at: got, reason: r }) => {
                assert_eq!(got, at, "{block:?}: {r}");
                assert!(r.contains(reason), "{block:?}: {r}");
            }
            other => panic!("{block:?}: expected a malformed-block error, got {other:?}"),
        }
    }
    let ends_in_match = [0x10, b'a', 0x01, 0x00];
    assert!(matches!(
        lz4_decompress_block(&ends_in_match, &mut out),
        Err(Lz4Error::Malformed { .. })
    ));
    assert!(matches!(
        lz4_decompress_block(&compress(&[1u8; 100]), &mut [0u8; 99]),
        Err(Lz4Error::OutputTooSmall { .. })
    ));
}

/// Inputs with structure (runs, repeats, text) as well as noise.
fn input_strategy() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..64),
        (any::<u8>(), 0usize..600).prop_map(|(b, n)| vec![b; n]),
        (0usize..6, 0u64..4).prop_map(|(k, seed)| page(PageKind::ALL[k], seed)[..1024].to_vec()),
    ];
    proptest::collection::vec(piece, 0..8).prop_map(|pieces| {
        let mut v: Vec<u8> = pieces.concat();
        v.truncate(PAGE_SIZE);
        v
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn random_inputs_round_trip_through_three_decoders(input in input_strategy()) {
        check_everywhere(&input);
    }

    /// Mutated blocks: our decoder returns Ok or Err, never panics or writes past its buffer, and what it
    /// accepts liblz4 decodes to the same bytes when liblz4 accepts it too.
    #[test]
    fn mutated_blocks_never_panic_the_decoder(
        input in input_strategy(),
        edits in proptest::collection::vec((any::<usize>(), any::<u8>(), 0u8..3), 1..6),
        capacity in 0usize..5000,
    ) {
        let level = Lz4Level::ALL[edits.len() % Lz4Level::ALL.len()];
        let mut block = compress_at(&input, level);
        for (at, byte, how) in edits {
            let at = at % (block.len() + 1);
            match how {
                0 if at < block.len() => block[at] = byte,
                1 => block.insert(at, byte),
                _ if at < block.len() => { block.remove(at); }
                _ => {}
            }
        }
        let mut out = vec![0u8; capacity];
        if let Ok(n) = lz4_decompress_block(&block, &mut out) {
            prop_assert!(n <= capacity);
            if let Some(theirs) = liblz4_decompress(&block, capacity) {
                prop_assert_eq!(&out[..n], &theirs[..]);
            }
        }
    }
}
