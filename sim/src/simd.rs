//! Lane-wise arithmetic with the host CPU's vector instructions, chosen at run time: the simulator
//! is built for any x86-64, but where the CPU has FMA and AVX2 a warp's 32 lanes go through them
//! eight at a time. Results are the same either way (the operations are correctly rounded).

/// `out[l] = x[l] * y[l] + z[l]` on the `f32` bits of 32 lanes, rounded once; a NaN result is
/// `nan`; each result masked with `keep`.
#[inline]
pub(crate) fn fma_f32_lanes(
    x: &[u64; 32],
    y: &[u64; 32],
    z: &[u64; 32],
    out: &mut [u64; 32],
    keep: u64,
    nan: u32,
) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("fma") && std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has the `fma` and `avx2` features (checked on the line above), the only
        // requirement of calling a function compiled with them enabled.
        unsafe { fma_f32_hw(x, y, z, out, keep, nan) };
        return;
    }
    fma_f32(x, y, z, out, keep, nan);
}

#[inline(always)]
fn fma_f32(x: &[u64; 32], y: &[u64; 32], z: &[u64; 32], out: &mut [u64; 32], keep: u64, nan: u32) {
    let f = |bits: u64| f32::from_bits(bits as u32);
    for l in 0..32 {
        let r = f(x[l]).mul_add(f(y[l]), f(z[l]));
        out[l] = u64::from(if r.is_nan() { nan } else { r.to_bits() }) & keep;
    }
}

/// [`fma_f32`] compiled for CPUs with FMA and AVX2 (without FMA each `mul_add` is a call into a
/// software routine).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "fma,avx2")]
fn fma_f32_hw(
    x: &[u64; 32],
    y: &[u64; 32],
    z: &[u64; 32],
    out: &mut [u64; 32],
    keep: u64,
    nan: u32,
) {
    fma_f32(x, y, z, out, keep, nan);
}
