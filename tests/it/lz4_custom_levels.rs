//! The chain levels' kernel at settings other than the four named levels (`Lz4Level::custom`, which
//! `examples/level_sweep.rs` measures): one round of 32 chain entries and several, depths that are not
//! a multiple of 32, lazy steps from 0 to 3, nice lengths that are not a multiple of 4 and up to the
//! largest (128, a whole warp of words). On the IR simulator (sanitizer on) and the PTX simulator,
//! every record equals the CPU reference's at the same setting, byte for byte.

use warpforge::codec::{KernelCodec, PageCodec, ReferenceCodec};
use warpforge::kernels::lz4::pages::{page, PageKind};
use warpforge::kernels::lz4::Lz4Level;
use warpforge::ptx::Sm;
use warpforge::runtime::sim::SimOptions;
use warpforge::runtime::Launcher;
use warpforge::PAGE_SIZE;

type Page = [u8; PAGE_SIZE];

/// Real pages of the embedded sample and one of every synthetic kind: long runs and repeats reach the
/// nice length and the page's end, text and mixed pages walk long chains.
fn pages() -> Vec<Page> {
    let sample = warpforge::sample_pages().expect("the embedded sample reads");
    let mut out: Vec<Page> = sample.iter().step_by(61).take(6).copied().collect();
    for (seed, kind) in PageKind::ALL.iter().enumerate() {
        out.push(page(*kind, seed as u64 + 7));
    }
    out
}

/// `(depth, lazy, nice)`: each exercises a different edge of the search.
const SETTINGS: [(u32, u32, u32); 6] = [
    (1, 0, 4),     // one entry, the shortest nice: every compare stops at the first word
    (8, 0, 30),    // one round; a nice length that ends inside a word
    (33, 1, 32),   // two rounds, the second with one entry
    (40, 2, 7),    // a depth past one round that is not a multiple of 32; nice under two words
    (100, 1, 128), // four rounds, the last partial; lanes compare up to 32 words
    (64, 3, 61),   // two full rounds, three lazy steps
];

fn check(launcher: impl Fn() -> Launcher, name: &str, settings: &[(u32, u32, u32)]) {
    let pages = pages();
    for &(depth, lazy, nice) in settings {
        let level = Lz4Level::custom(depth, lazy, nice).expect("a valid setting");
        let want = ReferenceCodec::at_level(level)
            .compress(&pages)
            .expect("the reference compresses");
        let got = KernelCodec::at_level(launcher(), level)
            .expect("the kernel builds")
            .compress(&pages)
            .unwrap_or_else(|e| panic!("{name}, {level}: {e:#}"));
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert!(
                g == w,
                "{name}, {level}: page {i} differs from the reference"
            );
        }
        assert_eq!(got.len(), pages.len());
    }
}

#[test]
fn custom_levels_match_the_reference_on_the_simulator() {
    check(|| Launcher::Sim(SimOptions::default()), "sim", &SETTINGS);
}

#[test]
fn custom_levels_match_the_reference_on_the_ptx_simulator() {
    // The settings whose PTX differs most (one round; the partial last round and 32-word compares).
    check(
        || Launcher::PtxSim(SimOptions::default(), Sm::Sm90),
        "ptx-sim sm_90",
        &[SETTINGS[1], SETTINGS[4]],
    );
}
