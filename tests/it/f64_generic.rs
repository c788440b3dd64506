//! `f64` in kernels and element types as generic parameters.
//!
//! - `f64` arithmetic, the exact functions and the conversions on the IR simulator and on the emitted
//!   PTX (PTX simulator, sm_70/80/90; ptxas), bit for bit against the host's `f64`, and the WGSL
//!   emitters' refusal naming the place and the capability.
//! - One generic kernel (`fn axpby<F: Float>`) instantiated at `f32`, `f64`, `f16` and `bf16`, each
//!   instantiation against a reference computed in that type's rules.

use crate::backends_support::{assembles_everywhere, mix, on_ptx_sim, on_sim, on_webgpu};

use half::{bf16 as Bf16, f16 as F16};
use warpforge_ir::{kernel, verify, Kernel};

const BLOCK: u32 = 64;
const BLOCKS: u32 = 2;
const N: usize = (BLOCK * BLOCKS) as usize;
const EACH: usize = 14;

#[kernel(block_size = 64)]
fn doubles(xs: &[f64], ys: &[f64], ints: &[i64], out: &mut [f64], bits: &mut [u64]) {
    let t = block_index() * block_size() + thread_index();
    let x = xs[t];
    let y = ys[t];
    let o = t * 14;
    out[o] = x + y;
    out[o + 1] = x - y;
    out[o + 2] = x * y;
    out[o + 3] = x / y;
    out[o + 4] = x.sqrt();
    out[o + 5] = x.mul_add(y, 0.25);
    out[o + 6] = x.floor();
    out[o + 7] = x.round_ties_even();
    out[o + 8] = x.max(y);
    out[o + 9] = -x.abs();
    out[o + 10] = x.recip();
    out[o + 11] = ints[t] as f64;
    out[o + 12] = (x as f32) as f64;
    out[o + 13] = x.copysign(y);
    let b = t * 5;
    bits[b] = (x as i64) as u64;
    bits[b + 1] = (x as u8) as u64;
    bits[b + 2] = ((x as i32) as u32) as u64;
    bits[b + 3] = (bitcast::<u16>(x as f16)) as u64;
    bits[b + 4] = (bitcast::<u16>(x as bf16)) as u64;
}

fn inputs() -> (Vec<f64>, Vec<f64>, Vec<i64>) {
    let mut xs: Vec<f64> = vec![
        0.0,
        -0.0,
        1.0,
        -2.5,
        0.5,
        1.5,
        2.5,
        f64::from_bits(1),
        f64::MIN_POSITIVE,
        f64::MAX,
        -f64::MAX,
        1e300,
        3.0e38,
        3.5e38, // past f32's range: ∞ as f32
        255.9,
        -129.0,
        2_147_483_647.5,
        9.3e18,
        -9.3e18,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        1.0 + 2f64.powi(-11) + 2f64.powi(-40), // just above an f16 tie
        1.0 + 2f64.powi(-11),                  // an f16 tie: to even
        1.0 + 2f64.powi(-8) + 2f64.powi(-45),  // just above a bf16 tie
        65_519.999_999,
        65520.0,
        2f64.powi(-25),
        2f64.powi(-25) * (1.0 + 2f64.powi(-50)),
        1e-320,
    ];
    let mut ys: Vec<f64> = vec![3.0, -0.0, 0.0, 1e-300, f64::NAN, -7.25, 1e308, 0.1];
    let mut ints: Vec<i64> = vec![
        0,
        -1,
        i64::MAX,
        i64::MIN,
        (1 << 53) + 1,
        (1 << 54) + 2, // a tie: to even
        (1 << 54) + 6,
    ];
    let mut k = 0u64;
    while xs.len() < N {
        k += 1;
        let r = mix(k);
        xs.push(f64::from_bits(r));
        let e = 1000 + (r >> 52) % 60;
        xs.push(f64::from_bits(
            (mix(k + 7) & 0x800f_ffff_ffff_ffff) | e << 52,
        ));
    }
    while ys.len() < N {
        k += 1;
        ys.push(f64::from_bits(mix(k + 99)));
        ys.push((mix(k) % 1000) as f64 / 7.0 - 70.0);
    }
    while ints.len() < N {
        k += 1;
        ints.push(mix(k) as i64 >> (mix(k + 3) % 63));
    }
    xs.truncate(N);
    ys.truncate(N);
    ints.truncate(N);
    (xs, ys, ints)
}

fn bytes64(v: impl IntoIterator<Item = u64>) -> Vec<u8> {
    v.into_iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn buffers() -> Vec<Vec<u8>> {
    let (xs, ys, ints) = inputs();
    vec![
        bytes64(xs.iter().map(|x| x.to_bits())),
        bytes64(ys.iter().map(|y| y.to_bits())),
        bytes64(ints.iter().map(|&i| i as u64)),
        vec![0; N * EACH * 8],
        vec![0; N * 5 * 8],
    ]
}

/// An `f64` narrowed to a half: `half_floats.rs`'s reference (the nearest half by search over the
/// format's values).
fn half_of(x: f64, bf: bool) -> u64 {
    u64::from(crate::half_floats::nearest_half(x, bf))
}

fn same(g: u64, w: u64) -> bool {
    g == w || (f64::from_bits(g).is_nan() && f64::from_bits(w).is_nan())
}

fn check(backend: &str, out: &[Vec<u8>]) {
    let (xs, ys, ints) = inputs();
    let words = |b: &[u8]| -> Vec<u64> {
        b.chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
            .collect()
    };
    let (got, bits) = (words(&out[3]), words(&out[4]));
    const NAMES: [&str; EACH] = [
        "x + y",
        "x - y",
        "x * y",
        "x / y",
        "sqrt",
        "mul_add",
        "floor",
        "round_ties_even",
        "max",
        "-|x|",
        "recip",
        "i as f64",
        "x as f32 as f64",
        "copysign",
    ];
    for t in 0..N {
        let (x, y) = (xs[t], ys[t]);
        let want = [
            x + y,
            x - y,
            x * y,
            x / y,
            x.sqrt(),
            x.mul_add(y, 0.25),
            x.floor(),
            x.round_ties_even(),
            x.max(y),
            -x.abs(),
            1.0 / x,
            ints[t] as f64,
            f64::from(x as f32),
            x.copysign(y),
        ];
        for (c, w) in want.iter().enumerate() {
            let g = got[t * EACH + c];
            let ok = if c == 8 && x == 0.0 && y == 0.0 {
                f64::from_bits(g) == 0.0 // max of two zeros: either
            } else {
                same(g, w.to_bits())
            };
            assert!(
                ok,
                "{backend}: {} of x = {x:e} ({:#x}), y = {y:e} gave {:e} ({g:#x}), Rust gives {w:e}",
                NAMES[c],
                x.to_bits(),
                f64::from_bits(g)
            );
        }
        let want_bits = [
            x as i64 as u64,
            u64::from(x as u8),
            u64::from(x as i32 as u32),
            half_of(x, false),
            half_of(x, true),
        ];
        for (c, w) in want_bits.iter().enumerate() {
            let g = bits[t * 5 + c];
            let name = ["as i64", "as u8", "as i32", "as f16", "as bf16"][c];
            assert_eq!(
                g,
                *w,
                "{backend}: x = {x:e} ({:#x}) {name} gave {g:#x}, the reference {w:#x}",
                x.to_bits()
            );
        }
    }
}

#[test]
fn doubles_are_ieee_on_the_ir_simulator() {
    check("sim", &on_sim(&doubles(), BLOCKS, &buffers(), 3));
}

#[test]
fn doubles_are_ieee_on_the_ptx_simulator() {
    on_ptx_sim(&doubles(), BLOCKS, &buffers(), 3, check);
    assembles_everywhere("doubles_are_ieee_on_the_ptx_simulator", &doubles());
}

#[test]
fn wgsl_refuses_f64_naming_the_place_and_the_capability() {
    let k = doubles();
    let verified = verify(&k).expect("verifies");
    let err = warpforge::wgsl::emit(&verified).expect_err("WGSL has no f64");
    let text = err.to_string();
    assert!(text.contains("parameter `xs`"), "{text}");
    assert!(text.contains("f64 is not a WGSL type"), "{text}");
    for target in [
        warpforge::wgsl::ShaderTarget::SpirV,
        warpforge::wgsl::ShaderTarget::Msl,
        warpforge::wgsl::ShaderTarget::Hlsl,
    ] {
        let err = warpforge::wgsl::emit_target(&verified, target).expect_err("no f64");
        assert!(err.to_string().contains("f64 is not a WGSL type"), "{err}");
    }
    // A kernel whose f64 lives only in a statement is named by that statement and its Rust line.
    let k = f64_inside();
    let verified = verify(&k).expect("verifies");
    let text = warpforge::wgsl::emit(&verified)
        .expect_err("WGSL has no f64")
        .to_string();
    assert!(text.contains("statement body["), "{text}");
    assert!(text.contains("f64_generic.rs:"), "{text}");
}

#[kernel(block_size = 32)]
fn f64_inside(out: &mut [f32], x: &[f32]) {
    let i = thread_index();
    let wide = x[i] as f64;
    out[i] = (wide * 3.0) as f32;
}

// ---- a generic kernel ----

#[kernel(block_size = 64)]
fn axpby<F: Float>(x: &[F], y: &[F], out: &mut [F]) {
    let i = block_index() * block_size() + thread_index();
    let a = 1.5;
    let scaled = a * x[i] + 0.5 * y[i];
    out[i] = scaled.max(-y[i]).mul_add(a, ((i % 8) as u16) as F);
}

/// The inputs (exact in every type: small dyadic numbers).
fn generic_inputs() -> (Vec<f64>, Vec<f64>) {
    let x = (0..N).map(|i| (i as f64 - 40.0) / 8.0).collect();
    let y = (0..N).map(|i| ((i * 7) % 23) as f64 / 4.0 - 3.0).collect();
    (x, y)
}

/// One element of `axpby` with every operation rounded by `round` (the type's nearest value): the
/// products and sums of these inputs are exact in `f64`, so rounding each once is the type's IEEE
/// result; `mul_add` rounds once for f32/f64 and twice (in f32, then to the half) for the halves.
fn axpby_reference(x: f64, y: f64, i: usize, round: &dyn Fn(f64) -> f64, half: bool) -> f64 {
    let a = 1.5;
    let ax = round(a * x);
    let hy = round(0.5 * y);
    let scaled = round(ax + hy);
    let m = scaled.max(-y);
    let fused = m * a + (i % 8) as f64;
    if half {
        round(f64::from(fused as f32))
    } else {
        round(fused)
    }
}

/// Runs an instantiation of `axpby` on the simulators (and WebGPU unless `f64`) against the reference.
fn run_generic(
    name: &str,
    kernel: Kernel,
    width: usize,
    encode: impl Fn(f64) -> u64,
    decode: impl Fn(u64) -> f64,
    round: &dyn Fn(f64) -> f64,
) {
    let (x, y) = generic_inputs();
    let bytes = |v: &[f64]| -> Vec<u8> {
        v.iter()
            .flat_map(|&e| encode(e).to_le_bytes()[..width].to_vec())
            .collect()
    };
    let bufs = vec![bytes(&x), bytes(&y), vec![0; N * width]];
    let half = width == 2;
    let check = |backend: &str, out: &[Vec<u8>]| {
        for i in 0..N {
            let mut word = [0u8; 8];
            word[..width].copy_from_slice(&out[2][i * width..(i + 1) * width]);
            let got = decode(u64::from_le_bytes(word));
            let want = axpby_reference(x[i], y[i], i, round, half);
            assert_eq!(
                got, want,
                "axpby::<{name}> on {backend}: element {i} (x = {}, y = {})",
                x[i], y[i]
            );
        }
    };
    check("sim", &on_sim(&kernel, BLOCKS, &bufs, 2));
    on_ptx_sim(&kernel, BLOCKS, &bufs, 2, check);
    if name != "f64" {
        if let Some(out) = on_webgpu(&format!("generic_{name}"), &kernel, BLOCKS, &bufs, 2) {
            check("webgpu", &out);
        }
    }
}

#[test]
fn a_generic_kernel_instantiates_at_every_float_type() {
    use warpforge_ir::{bf16, f16};
    run_generic(
        "f32",
        axpby::<f32>(),
        4,
        |v| u64::from((v as f32).to_bits()),
        |b| f64::from(f32::from_bits(b as u32)),
        &|v| f64::from(v as f32),
    );
    run_generic(
        "f64",
        axpby::<f64>(),
        8,
        f64::to_bits,
        f64::from_bits,
        &|v| v,
    );
    run_generic(
        "f16",
        axpby::<f16>(),
        2,
        |v| half_of(v, false),
        |b| F16::from_bits(b as u16).to_f64(),
        &|v| F16::from_bits(half_of(v, false) as u16).to_f64(),
    );
    run_generic(
        "bf16",
        axpby::<bf16>(),
        2,
        |v| half_of(v, true),
        |b| f64::from(Bf16::from_bits(b as u16).to_f32()),
        &|v| f64::from(Bf16::from_bits(half_of(v, true) as u16).to_f32()),
    );
}

/// On a GPU machine (`scripts/gpu-check.sh`): `f64` arithmetic and conversions on hardware.
#[test]
fn doubles_are_ieee_on_cuda() {
    let test = "doubles_are_ieee_on_cuda";
    if let Some((device, out)) =
        crate::backends_support::on_cuda(test, &doubles(), BLOCKS, &buffers(), 3)
    {
        check(&device, &out);
    }
}
