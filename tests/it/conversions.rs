//! Conversions between integers and `f32` (Rust's `as` in a `#[kernel]`, the IR's `itof` and
//! `ftoi`) on every backend that runs here — the IR simulator, the emitted PTX on the PTX
//! simulator for sm_70, sm_80 and sm_90, the emitted WGSL on WebGPU (lavapipe in CI) — against the
//! host's own `as`, bit for bit, on edge cases: zeros, subnormals, values just below, at and above
//! each type's bounds and each rounding tie, infinities, NaNs of both signs, and random bits.

use crate::backends_support::{assembles_everywhere, mix, on_ptx_sim, on_sim, on_webgpu};

use warpforge_ir::{kernel, Kernel};

/// Conversions per thread.
const EACH: usize = 6;
const BLOCK: u32 = 64;
const BLOCKS: u32 = 4;
const N: usize = (BLOCK * BLOCKS) as usize;

#[kernel(block_size = 64)]
fn conversions(
    ints: &[u32],
    wides: &[u64],
    floats: &[f32],
    to_float: &mut [f32],
    to_int: &mut [u64],
) {
    let t = block_index() * block_size() + thread_index();
    let x = ints[t];
    let w = wides[t];
    let f = floats[t];
    let o = t * 6;
    to_float[o] = x as f32;
    to_float[o + 1] = (x as i32) as f32;
    to_float[o + 2] = (x as u8) as f32;
    to_float[o + 3] = (x as u16) as f32;
    to_float[o + 4] = w as f32;
    to_float[o + 5] = (w as i64) as f32;
    to_int[o] = (f as u8) as u64;
    to_int[o + 1] = (f as u16) as u64;
    to_int[o + 2] = (f as u32) as u64;
    to_int[o + 3] = (f as i32) as u64;
    to_int[o + 4] = f as u64;
    to_int[o + 5] = (f as i64) as u64;
}

/// The inputs: edge cases first, random bits after.
fn inputs() -> (Vec<u32>, Vec<u64>, Vec<f32>) {
    let mut ints: Vec<u32> = vec![
        0,
        1,
        255,
        256,
        65535,
        (1 << 24) - 1,
        1 << 24,
        (1 << 24) + 1, // a tie: to even (down)
        (1 << 24) + 3, // a tie: to even (up)
        (1 << 25) + 2,
        (1 << 25) + 6,
        0x7fff_ffbf,
        0x7fff_ffc0, // a tie below 2^31: to even
        0x7fff_ffff,
        0x8000_0000,
        0x8000_0080,
        0xffff_ff7f,
        0xffff_ff80, // a tie below 2^32 (and -128 as i32)
        0xffff_ffff,
        0xfeff_ffff,
    ];
    let mut wides: Vec<u64> = vec![
        0,
        1,
        u64::MAX,
        1 << 63,
        (1 << 63) - 1,
        (1 << 53) + 1,
        (1 << 40) + (1 << 16), // a tie: to even
        (1 << 40) + (3 << 16),
        (1 << 40) + (1 << 16) + 1,
        0xffff_ff80_0000_0000,
        0xffff_ff7f_ffff_ffff,
        (-1i64) as u64,
        (-(1i64 << 24) - 1) as u64,
        0x0000_0001_0000_0000,
        0x0000_0000_ffff_ffff,
        0x8000_0000_0000_0001,
    ];
    let edge_floats: Vec<f32> = vec![
        0.0,
        -0.0,
        f32::from_bits(1),
        -f32::from_bits(0x007f_ffff),
        0.5,
        0.999_999_94,
        1.0,
        1.5,
        -1.5,
        -0.9,
        255.9,
        256.0,
        -255.0,
        65535.99,
        65536.0,
        2_147_483_520.0,
        2_147_483_648.0,
        -2_147_483_648.0,
        -2_147_483_904.0,
        4_294_967_040.0,
        4_294_967_296.0,
        9.223_371_5e18,
        9.223_372e18,
        -9.223_372e18,
        -9.223_373e18,
        1.844_674_3e19,
        1.844_674_4e19,
        1e30,
        -1e30,
        f32::MAX,
        f32::MIN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        -f32::NAN,
        f32::from_bits(0x7f80_0001),
        f32::from_bits(0xffc0_1234),
        16_777_217.0,
        8_388_608.5,
    ];
    let mut floats = edge_floats;
    let mut k = 0u64;
    while ints.len() < N {
        k += 1;
        let r = mix(k);
        ints.push(r as u32);
        // Also small magnitudes shifted up, so the top bits vary and ties come up.
        ints.push(((r >> 32) as u32) >> (r % 24));
    }
    while wides.len() < N {
        k += 1;
        let r = mix(k);
        wides.push(r);
        wides.push(mix(k + 1000) >> (r % 60));
    }
    while floats.len() < N {
        k += 1;
        let r = mix(k);
        floats.push(f32::from_bits(r as u32));
        // Magnitudes around every integer width: exponents 0..=66 above 1.
        let e = 127 + (r >> 40) as u32 % 67;
        floats.push(f32::from_bits(((r >> 32) as u32 & 0x807f_ffff) | e << 23));
    }
    ints.truncate(N);
    wides.truncate(N);
    floats.truncate(N);
    (ints, wides, floats)
}

/// What Rust's `as` gives: (the `f32` results' bits, the integer results).
fn expected(ints: &[u32], wides: &[u64], floats: &[f32]) -> (Vec<u32>, Vec<u64>) {
    let mut to_float = Vec::new();
    let mut to_int = Vec::new();
    for t in 0..N {
        let (x, w, f) = (ints[t], wides[t], floats[t]);
        for v in [
            x as f32,
            x as i32 as f32,
            x as u8 as f32,
            x as u16 as f32,
            w as f32,
            w as i64 as f32,
        ] {
            to_float.push(v.to_bits());
        }
        to_int.extend([
            u64::from(f as u8),
            u64::from(f as u16),
            u64::from(f as u32),
            f as i32 as u64,
            f as u64,
            f as i64 as u64,
        ]);
    }
    (to_float, to_int)
}

fn bytes32(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn bytes64(v: &[u64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// The buffers in parameter order: the three inputs, then the two outputs zeroed.
fn buffers() -> Vec<Vec<u8>> {
    let (ints, wides, floats) = inputs();
    let floats: Vec<u32> = floats.iter().map(|f| f.to_bits()).collect();
    vec![
        bytes32(&ints),
        bytes64(&wides),
        bytes32(&floats),
        vec![0; N * EACH * 4],
        vec![0; N * EACH * 8],
    ]
}

/// Compares a backend's outputs with Rust's, naming the first difference.
fn check(backend: &str, out: &[Vec<u8>]) {
    let (ints, wides, floats) = inputs();
    let (want_f, want_i) = expected(&ints, &wides, &floats);
    let got_f: Vec<u32> = (out[3].chunks_exact(4))
        .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
        .collect();
    let got_i: Vec<u64> = (out[4].chunks_exact(8))
        .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
        .collect();
    const FROM: [&str; EACH] = ["u32", "i32", "u8", "u16", "u64", "i64"];
    const TO: [&str; EACH] = ["u8", "u16", "u32", "i32", "u64", "i64"];
    for (k, (g, w)) in got_f.iter().zip(&want_f).enumerate() {
        let (t, c) = (k / EACH, k % EACH);
        let input = if c < 4 {
            format!("{:#x}", ints[t])
        } else {
            format!("{:#x}", wides[t])
        };
        assert_eq!(
            g,
            w,
            "{backend}: {input} as {} as f32 gave {} ({g:#x}), Rust gives {} ({w:#x})",
            FROM[c],
            f32::from_bits(*g),
            f32::from_bits(*w)
        );
    }
    for (k, (g, w)) in got_i.iter().zip(&want_i).enumerate() {
        let (t, c) = (k / EACH, k % EACH);
        let f = floats[t];
        assert_eq!(
            g,
            w,
            "{backend}: {f:e} ({:#x}) as {} gave {g:#x}, Rust gives {w:#x}",
            f.to_bits(),
            TO[c]
        );
    }
}

fn kernel() -> Kernel {
    conversions()
}

#[test]
fn conversions_are_rusts_on_the_ir_simulator() {
    let out = on_sim(&kernel(), BLOCKS, &buffers(), 3);
    check("sim", &out);
}

#[test]
fn conversions_are_rusts_on_the_ptx_simulator() {
    on_ptx_sim(&kernel(), BLOCKS, &buffers(), 3, check);
}

#[test]
fn conversions_are_rusts_on_webgpu() {
    let test = "conversions_are_rusts_on_webgpu";
    if let Some(out) = on_webgpu(test, &kernel(), BLOCKS, &buffers(), 3) {
        check("webgpu", &out);
    }
}

#[test]
fn conversions_assemble_for_every_target() {
    assembles_everywhere("conversions_assemble_for_every_target", &kernel());
}
