//! A kernel harness for the integer-form tests: one thread per operand set of four 64-bit words,
//! three 64-bit results; edge values and a deterministic generator for the operands.

// Each test binary uses a part of these helpers.
#![allow(dead_code)]

use warpforge_sim::ptx::{self, PtxArg, PtxKernel, PtxLaunch};
use warpforge_sim::{BufferArg, SimOptions};

/// The PTX of a kernel in which thread `t` (of the whole grid) loads the four 64-bit words
/// `in[4t..4t+4]` into `%rd1`..`%rd4` and their low halves into `%r1`..`%r4` (and `%rs1`..`%rs4`
/// the low 16 bits), zeroes `%rd9`..`%rd11`, runs `body`, and stores `%rd9`, `%rd10`, `%rd11` to
/// `out[3t..3t+3]`. `body` starts on line 33.
pub fn text(body: &str) -> String {
    format!(
        ".version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 in, .param .u64 out)
{{
    .reg .pred %p<8>;
    .reg .b16 %rs<8>;
    .reg .b32 %r<24>;
    .reg .b64 %rd<24>;
    ld.param.u64 %rd20, [in];
    ld.param.u64 %rd21, [out];
    mov.u32 %r20, %tid.x;
    mov.u32 %r21, %ctaid.x;
    mov.u32 %r22, %ntid.x;
    mad.lo.s32 %r20, %r21, %r22, %r20;
    mul.wide.u32 %rd22, %r20, 32;
    add.s64 %rd22, %rd20, %rd22;
    ld.global.u64 %rd1, [%rd22];
    ld.global.u64 %rd2, [%rd22+8];
    ld.global.u64 %rd3, [%rd22+16];
    ld.global.u64 %rd4, [%rd22+24];
    cvt.u32.u64 %r1, %rd1;
    cvt.u32.u64 %r2, %rd2;
    cvt.u32.u64 %r3, %rd3;
    cvt.u32.u64 %r4, %rd4;
    cvt.u16.u64 %rs1, %rd1;
    cvt.u16.u64 %rs2, %rd2;
    cvt.u16.u64 %rs3, %rd3;
    cvt.u16.u64 %rs4, %rd4;
    mov.u64 %rd9, 0;
    mov.u64 %rd10, 0;
    mov.u64 %rd11, 0;
{body}
    mul.wide.u32 %rd22, %r20, 24;
    add.s64 %rd22, %rd21, %rd22;
    st.global.u64 [%rd22], %rd9;
    st.global.u64 [%rd22+8], %rd10;
    st.global.u64 [%rd22+16], %rd11;
    ret;
}}
"
    )
}

/// `body` run on each operand set (blocks of up to 256 threads): `[%rd9, %rd10, %rd11]` of each.
pub fn run(body: &str, inputs: &[[u64; 4]]) -> Vec<[u64; 3]> {
    let kernel = PtxKernel::load(&text(body), "k").unwrap_or_else(|e| panic!("{body}\n{e}"));
    let threads = 256usize;
    let blocks = inputs.len().div_ceil(threads);
    let mut padded = inputs.to_vec();
    padded.resize(blocks * threads, [0; 4]);
    let bytes: Vec<u8> = padded
        .iter()
        .flat_map(|w| w.iter().flat_map(|x| x.to_le_bytes()))
        .collect();
    let mut out = vec![0u8; padded.len() * 24];
    let launch = PtxLaunch {
        grid: [blocks as u32, 1, 1],
        block: [threads as u32, 1, 1],
        dynamic_shared: 0,
    };
    let report = ptx::run(
        &kernel,
        &launch,
        &[PtxArg::Buffer, PtxArg::Buffer],
        &mut [BufferArg::ReadOnly(&bytes), BufferArg::ReadWrite(&mut out)],
        &SimOptions::default(),
    )
    .expect("the launch starts");
    assert!(report.is_clean(), "{body}");
    let words: Vec<u64> = out
        .chunks(8)
        .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
        .collect();
    words[..inputs.len() * 3]
        .chunks(3)
        .map(|w| [w[0], w[1], w[2]])
        .collect()
}

/// The error loading `body` (it must be refused).
pub fn refusal(body: &str) -> String {
    PtxKernel::load(&text(body), "k")
        .expect_err(body)
        .to_string()
}

/// Values at the edges of 8-, 16-, 24-, 32- and 64-bit ranges, shift counts around 0, 31, 32, 63
/// and 64, and a few patterns.
pub const EDGES: &[u64] = &[
    0,
    1,
    2,
    3,
    7,
    8,
    15,
    16,
    23,
    24,
    31,
    32,
    33,
    63,
    64,
    65,
    0x7f,
    0x80,
    0xff,
    0x7fff,
    0x8000,
    0xffff,
    0x7f_ffff,
    0x80_0000,
    0xff_ffff,
    0x100_0000,
    0x7fff_ffff,
    0x8000_0000,
    0xffff_ff80,
    0xffff_fffe,
    0xffff_ffff,
    0x1_0000_0000,
    0xffff_ffff_0000_0001,
    0x7fff_ffff_ffff_ffff,
    0x8000_0000_0000_0000,
    0xffff_ffff_ffff_fffe,
    u64::MAX,
    0xdead_beef,
    0xaaaa_aaaa_aaaa_aaaa,
    0x5555_5555_5555_5555,
    0x1234_5678_9abc_def0,
];

/// SplitMix64: a deterministic stream of 64-bit words.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A word that is random, small, or near a power of two, in turn.
    pub fn word(&mut self) -> u64 {
        let r = self.next();
        match r % 4 {
            0 => self.next(),
            1 => self.next() % 70,
            2 => (1u64 << (self.next() % 64))
                .wrapping_add(self.next() % 3)
                .wrapping_sub(1),
            _ => self.next() as u32 as u64,
        }
    }
}

/// Every pair of [`EDGES`] as the first two words (the third and fourth cycling through them), then
/// `random` sets of random words.
pub fn operands(random: usize) -> Vec<[u64; 4]> {
    let n = EDGES.len();
    let mut v = Vec::with_capacity(n * n + random);
    for (i, &a) in EDGES.iter().enumerate() {
        for (j, &b) in EDGES.iter().enumerate() {
            v.push([a, b, EDGES[(i * 7 + j) % n], EDGES[(i + j * 3) % n]]);
        }
    }
    let mut rng = Rng(0x5eed);
    for _ in 0..random {
        v.push([rng.word(), rng.word(), rng.word(), rng.word()]);
    }
    v
}

/// Runs `body` on `inputs` and compares every lane's three words with `expect` (of the lane's
/// operands); the first mismatch fails naming the form, the operands and both results.
pub fn check(form: &str, body: &str, inputs: &[[u64; 4]], expect: impl Fn([u64; 4]) -> [u64; 3]) {
    let got = run(body, inputs);
    for (x, g) in inputs.iter().zip(&got) {
        let want = expect(*x);
        assert_eq!(
            *g, want,
            "{form}: operands {x:#x?}: simulator {g:#x?}, reference {want:#x?}"
        );
    }
}
