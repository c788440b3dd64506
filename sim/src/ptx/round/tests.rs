//! The rounding core against independent references: `f32` operations computed exactly (or
//! provably innocuously) in `f64` hardware arithmetic, then rounded to `f32` by comparison; the
//! IEEE rules for the signs of zero results. (The `f64` cases, computed with Python's exact
//! `fractions`, are in `tests/it/ptx_rounding.rs`, through the decoder.)

use super::*;

/// xorshift64: a reproducible stream of test inputs.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A finite `f32`: any bits (subnormals, huge values) or near 1, and sometimes close to
    /// `-near` (cancellation).
    fn f32(&mut self, near: f32) -> f32 {
        let r = self.next();
        let x = match r % 4 {
            0 => f32::from_bits(self.next() as u32 & 0x7f7f_ffff),
            1 if near.is_finite() => -f32::from_bits(near.to_bits() ^ (self.next() as u32 & 0xff)),
            _ => f32::from_bits(
                (self.next() as u32 & 0x007f_ffff) | ((127 + (r >> 8) % 24) << 23) as u32,
            ),
        };
        if self.next() % 2 == 0 {
            -x
        } else {
            x
        }
    }
}

const DIRS: [Rnd; 4] = [Rnd::Nearest, Rnd::Zero, Rnd::Down, Rnd::Up];

/// `x` (exact, or within far less than an `f32` ulp without landing on an `f32`) rounded to `f32`.
fn reference(x: f64, dir: Rnd) -> f32 {
    narrow(x, dir)
}

#[test]
fn f32_operations_round_as_an_exact_wider_computation_does() {
    let mut g = Rng(0x9e37_79b9_7f4a_7c15);
    let mut checked = 0;
    for i in 0..200_000 {
        let a = g.f32(1.0);
        let b = g.f32(a);
        let c = g.f32(a * b);
        let dir = DIRS[i % 4];
        let (x, y, z) = (f64::from(a), f64::from(b), f64::from(c));
        // A product of two f32 is exact in f64.
        assert_eq!(
            mul(a, b, dir),
            reference(x * y, dir),
            "{a:e} * {b:e} {dir:?}"
        );
        // A quotient or root is never within an f64 rounding of an f32 it is not equal to.
        if b != 0.0 {
            assert_eq!(
                div(a, b, dir),
                reference(x / y, dir),
                "{a:e} / {b:e} {dir:?}"
            );
        }
        assert_eq!(
            sqrt(a.abs(), dir),
            reference(x.abs().sqrt(), dir),
            "sqrt {a:e}"
        );
        // Sums where f64 is exact (its TwoSum error is zero).
        let s = x + y;
        if s - x == y && s - y == x && s != 0.0 {
            assert_eq!(add(a, b, dir), reference(s, dir), "{a:e} + {b:e} {dir:?}");
            checked += 1;
        }
        let p = x * y;
        let t = p + z;
        if t - p == z && t - z == p && t != 0.0 {
            assert_eq!(
                fma(a, b, c, dir),
                reference(t, dir),
                "fma {a:e} {b:e} {c:e} {dir:?}"
            );
            checked += 1;
        }
    }
    assert!(checked > 100_000, "{checked} sums checked");
}

#[test]
fn integers_round_to_the_neighbouring_floats() {
    let two53 = 1i128 << 53;
    let bits = |v: i128, dir| from_int::<f64>(v, dir).to_bits();
    // 2^53 + 1 is halfway between 2^53 and 2^53 + 2: to even (2^53) for `.rn`.
    assert_eq!(bits(two53 + 1, Rnd::Nearest), 0x4340_0000_0000_0000);
    assert_eq!(bits(two53 + 1, Rnd::Zero), 0x4340_0000_0000_0000);
    assert_eq!(bits(two53 + 1, Rnd::Up), 0x4340_0000_0000_0001);
    assert_eq!(bits(-(two53 + 1), Rnd::Down), 0xc340_0000_0000_0001);
    assert_eq!(bits(-(two53 + 1), Rnd::Up), 0xc340_0000_0000_0000);
    // u64::MAX: 2^64 to nearest, 2^64 − 2048 toward zero.
    assert_eq!(
        bits(i128::from(u64::MAX), Rnd::Nearest),
        0x43f0_0000_0000_0000
    );
    assert_eq!(bits(i128::from(u64::MAX), Rnd::Zero), 0x43ef_ffff_ffff_ffff);
    assert_eq!(from_int::<f32>(16_777_217, Rnd::Up).to_bits(), 0x4b80_0001);
    assert_eq!(from_int::<f32>(0, Rnd::Down).to_bits(), 0, "+0, never −0");
}

#[test]
fn zero_results_have_the_ieee_signs() {
    let neg_zero = |x: f64| x == 0.0 && x.is_sign_negative();
    let pos_zero = |x: f64| x == 0.0 && !x.is_sign_negative();
    for dir in DIRS {
        let down = dir == Rnd::Down;
        // An exact zero sum of opposite signs: −0 only rounding down.
        assert_eq!(neg_zero(add(1.5, -1.5, dir)), down, "{dir:?}");
        assert_eq!(neg_zero(add(0.0, -0.0, dir)), down, "{dir:?}");
        assert!(pos_zero(add(0.0, 0.0, dir)), "{dir:?}");
        assert!(neg_zero(add(-0.0, -0.0, dir)), "{dir:?}");
        assert_eq!(neg_zero(fma(2.0, 3.0, -6.0, dir)), down, "{dir:?}");
        assert_eq!(
            neg_zero(fma(0.0, -3.0, 0.0, dir)),
            down,
            "(−0) + (+0), {dir:?}"
        );
        assert!(neg_zero(fma(0.0, -3.0, -0.0, dir)), "(−0) + (−0), {dir:?}");
        // A zero product keeps the product's sign.
        assert!(neg_zero(mul(-0.0, 5.0, dir)), "{dir:?}");
        // An inexact result rounding to zero keeps the exact value's sign.
        let tiny = mul(1e-300, -1e-300, dir);
        assert!(tiny <= 0.0 && tiny.is_sign_negative(), "{dir:?}: {tiny:e}");
        let tiny = fma(1e-300, 1e-300, 0.0, dir);
        assert!(tiny >= 0.0 && !tiny.is_sign_negative(), "{dir:?}: {tiny:e}");
    }
    assert_eq!(
        mul(1e-300f64, -1e-300, Rnd::Down).to_bits(),
        0x8000_0000_0000_0001
    );
    assert_eq!(fma(1e-300f64, 1e-300, 0.0, Rnd::Up).to_bits(), 1);
}

#[test]
fn steps_cross_zero_and_reach_infinity() {
    assert_eq!(step(f64::MAX, true), f64::INFINITY);
    assert_eq!(step(-f64::MAX, false), f64::NEG_INFINITY);
    assert_eq!(step(0.0f64, false).to_bits(), 0x8000_0000_0000_0001);
    assert_eq!(
        step(-f64::from_bits(1), true).to_bits(),
        0x8000_0000_0000_0000
    );
    assert_eq!(step(f32::from_bits(1), false).to_bits(), 0);
}
