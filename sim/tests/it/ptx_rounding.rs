//! Directed rounding (`.rz`, `.rm`, `.rp`, and `.rn`) of `f64` and `f32` arithmetic and of the
//! conversions that round, on the PTX simulator, against bits computed independently with Python's
//! exact rationals. `rnd(x, k, m)` below is this helper (x a `fractions.Fraction`, k `'d'` for f64 or
//! `'f'` for f32, m the mode), `val(bits)` the exact value of a float's bits, `F` `Fraction`:
//!
//! ```python
//! def rnd(x, k, m):
//!     p, e, bias = {'d': (52, 11, 1023), 'f': (23, 8, 127)}[k]
//!     s, a = x < 0, abs(x)
//!     E = a.numerator.bit_length() - a.denominator.bit_length()
//!     while F(2)**E > a: E -= 1
//!     while F(2)**(E + 1) <= a: E += 1
//!     q = F(2)**(max(E, 1 - bias) - p)          # the ulp
//!     n = a / q; fl = math.floor(n); rem = n - fl
//!     N = {'rz': fl, 'rn': fl + (rem > F(1, 2) or rem == F(1, 2) and fl % 2)}.get(m,
//!         fl + (rem != 0) if (m == 'rp') != s else fl)
//!     # then N * q encoded, beyond MAX: inf or MAX by mode; the sign bit set for s
//! ```

use crate::common;
use common::float::{hex, run};

const MAX: u64 = 0x7fef_ffff_ffff_ffff;
const MODES: [&str; 4] = ["rn", "rz", "rm", "rp"];

/// `op` on each operand set in each mode: the results, mode by mode.
fn each_mode(line: impl Fn(&str) -> String, inputs: &[[u64; 3]]) -> Vec<Vec<u64>> {
    MODES.iter().map(|m| run(&line(m), inputs)).collect()
}

#[test]
fn f64_arithmetic_rounds_in_every_direction() {
    // (op, operands, [rn, rz, rm, rp]); the Python for each in the comment.
    let cases: [(&str, [u64; 3], [u64; 4]); 21] = [
        // 1 + 2^-53, a tie: [rnd(F(1)+F(2)**-53, 'd', m) for m in modes]
        (
            "add",
            [0x3ff0000000000000, 0x3ca0000000000000, 0],
            [
                0x3ff0000000000000,
                0x3ff0000000000000,
                0x3ff0000000000000,
                0x3ff0000000000001,
            ],
        ),
        // 1 + 3*2^-54: rnd(F(1)+3*F(2)**-54, 'd', m)
        (
            "add",
            [0x3ff0000000000000, 0x3ca8000000000000, 0],
            [
                0x3ff0000000000001,
                0x3ff0000000000000,
                0x3ff0000000000000,
                0x3ff0000000000001,
            ],
        ),
        // -1 - 2^-53: rnd(-F(1)-F(2)**-53, 'd', m)
        (
            "add",
            [0xbff0000000000000, 0xbca0000000000000, 0],
            [
                0xbff0000000000000,
                0xbff0000000000000,
                0xbff0000000000001,
                0xbff0000000000000,
            ],
        ),
        // MAX + MAX: rnd(2*val(MAX), 'd', m)
        (
            "add",
            [MAX, MAX, 0],
            [0x7ff0000000000000, MAX, MAX, 0x7ff0000000000000],
        ),
        // -MAX - MAX: rnd(-2*val(MAX), 'd', m)
        (
            "add",
            [MAX | 1 << 63, MAX | 1 << 63, 0],
            [
                0xfff0000000000000,
                0xffefffffffffffff,
                0xfff0000000000000,
                0xffefffffffffffff,
            ],
        ),
        // 1.5 - 1.5 = 0 exactly: +0, but -0 rounding down (IEEE 754 §6.3)
        (
            "sub",
            [0x3ff8000000000000, 0x3ff8000000000000, 0],
            [0, 0, 1 << 63, 0],
        ),
        // (1+2^-52)^2: rnd((F(1)+F(2)**-52)**2, 'd', m)
        (
            "mul",
            [0x3ff0000000000001, 0x3ff0000000000001, 0],
            [
                0x3ff0000000000002,
                0x3ff0000000000002,
                0x3ff0000000000002,
                0x3ff0000000000003,
            ],
        ),
        // 2^-600 * -2^-600, underflow: rnd(-F(2)**-1200, 'd', m)
        (
            "mul",
            [0x1a70000000000000, 0x9a70000000000000, 0],
            [
                0x8000000000000000,
                0x8000000000000000,
                0x8000000000000001,
                0x8000000000000000,
            ],
        ),
        // 3*2^-1074 * 0.5, a subnormal tie: rnd(3*F(2)**-1075, 'd', m)
        ("mul", [3, 0x3fe0000000000000, 0], [2, 1, 1, 2]),
        // (1+2^-52)(1-2^-53) - 1: rnd((F(1)+F(2)**-52)*(F(1)-F(2)**-53)-1, 'd', m)
        (
            "fma",
            [0x3ff0000000000001, 0x3fefffffffffffff, 0xbff0000000000000],
            [0x3c9ffffffffffffe; 4],
        ),
        // 0.1 * 10 + 2^-60: rnd(val(0x3fb999999999999a)*10+F(2)**-60, 'd', m)
        (
            "fma",
            [0x3fb999999999999a, 0x4024000000000000, 0x3c30000000000000],
            [
                0x3ff0000000000000,
                0x3ff0000000000000,
                0x3ff0000000000000,
                0x3ff0000000000001,
            ],
        ),
        // 2^-1074 * 0.5 + 0, a tie below the least subnormal: rnd(F(2)**-1075, 'd', m)
        ("fma", [1, 0x3fe0000000000000, 0], [0, 0, 0, 1]),
        // -MAX * 2 + 1, overflow: rnd(-2*val(MAX)+1, 'd', m)
        (
            "fma",
            [MAX | 1 << 63, 0x4000000000000000, 0x3ff0000000000000],
            [
                0xfff0000000000000,
                0xffefffffffffffff,
                0xfff0000000000000,
                0xffefffffffffffff,
            ],
        ),
        // 2 * 3 - 6 = 0 exactly: -0 rounding down
        (
            "fma",
            [0x4000000000000000, 0x4008000000000000, 0xc018000000000000],
            [0, 0, 1 << 63, 0],
        ),
        // 1 / 3: rnd(F(1,3), 'd', m)
        (
            "div",
            [0x3ff0000000000000, 0x4008000000000000, 0],
            [
                0x3fd5555555555555,
                0x3fd5555555555555,
                0x3fd5555555555555,
                0x3fd5555555555556,
            ],
        ),
        // -2 / 3: rnd(F(-2,3), 'd', m)
        (
            "div",
            [0xc000000000000000, 0x4008000000000000, 0],
            [
                0xbfe5555555555555,
                0xbfe5555555555555,
                0xbfe5555555555556,
                0xbfe5555555555555,
            ],
        ),
        // 1 / MAX, subnormal: rnd(1/val(MAX), 'd', m)
        (
            "div",
            [0x3ff0000000000000, MAX, 0],
            [
                0x0004000000000000,
                0x0004000000000000,
                0x0004000000000000,
                0x0004000000000001,
            ],
        ),
        // MAX / 0.5, overflow: rnd(2*val(MAX), 'd', m)
        (
            "div",
            [MAX, 0x3fe0000000000000, 0],
            [0x7ff0000000000000, MAX, MAX, 0x7ff0000000000000],
        ),
        // 2^-1074 / -2, a tie at zero: rnd(-F(2)**-1075, 'd', m)
        (
            "div",
            [1, 0xc000000000000000, 0],
            [
                0x8000000000000000,
                0x8000000000000000,
                0x8000000000000001,
                0x8000000000000000,
            ],
        ),
        // 7 / -0.1: rnd(7/val(0xbfb999999999999a), 'd', m)
        (
            "div",
            [0x401c000000000000, 0xbfb999999999999a, 0],
            [
                0xc051800000000000,
                0xc0517fffffffffff,
                0xc051800000000000,
                0xc0517fffffffffff,
            ],
        ),
        // rcp(3) = 1/3: rnd(F(1,3), 'd', m)
        (
            "rcp",
            [0x4008000000000000, 0, 0],
            [
                0x3fd5555555555555,
                0x3fd5555555555555,
                0x3fd5555555555555,
                0x3fd5555555555556,
            ],
        ),
    ];
    for (op, operands, want) in cases {
        let got = each_mode(
            |m| match op {
                "fma" => {
                    format!("    fma.{m}.f64 %fd4, %fd1, %fd2, %fd3;\n    mov.b64 %rd9, %fd4;")
                }
                "rcp" => format!("    rcp.{m}.f64 %fd4, %fd1;\n    mov.b64 %rd9, %fd4;"),
                _ => format!("    {op}.{m}.f64 %fd4, %fd1, %fd2;\n    mov.b64 %rd9, %fd4;"),
            },
            &[operands],
        );
        let got: Vec<u64> = got.iter().map(|r| r[0]).collect();
        assert_eq!(hex(&got), hex(&want), "{op} {operands:x?} in {MODES:?}");
    }
    // `mad.rnd.f64` is `fma.rnd.f64`.
    let mad = run(
        "    mad.rp.f64 %fd4, %fd1, %fd2, %fd3;\n    mov.b64 %rd9, %fd4;",
        &[[0x3fb999999999999a, 0x4024000000000000, 0x3c30000000000000]],
    );
    assert_eq!(mad, [0x3ff0000000000001]);
}

#[test]
fn f64_square_roots_round_in_every_direction() {
    // The root rounded by mode: Python's math.isqrt on the value scaled by 4^1200 brackets it
    // between two fractions that round alike (sqrt_round in the development notes).
    let cases: [(u64, [u64; 4]); 4] = [
        (
            0x4000000000000000,
            [
                0x3ff6a09e667f3bcd,
                0x3ff6a09e667f3bcc,
                0x3ff6a09e667f3bcc,
                0x3ff6a09e667f3bcd,
            ],
        ),
        (
            0x4008000000000000,
            [
                0x3ffbb67ae8584caa,
                0x3ffbb67ae8584caa,
                0x3ffbb67ae8584caa,
                0x3ffbb67ae8584cab,
            ],
        ),
        (1, [0x1e60000000000000; 4]),
        (
            MAX,
            [
                0x5fefffffffffffff,
                0x5fefffffffffffff,
                0x5fefffffffffffff,
                0x5ff0000000000000,
            ],
        ),
    ];
    for (x, want) in cases {
        let got = each_mode(
            |m| format!("    sqrt.{m}.f64 %fd4, %fd1;\n    mov.b64 %rd9, %fd4;"),
            &[[x, 0, 0]],
        );
        let got: Vec<u64> = got.iter().map(|r| r[0]).collect();
        assert_eq!(hex(&got), hex(&want), "sqrt {x:#x}");
    }
}

#[test]
fn f32_arithmetic_rounds_in_every_direction() {
    let f = |x: u32| u64::from(x);
    let cases: [(&str, [u64; 3], [u32; 4]); 8] = [
        // rnd(F(1)+F(2)**-24, 'f', m)
        (
            "add",
            [f(0x3f800000), f(0x33800000), 0],
            [0x3f800000, 0x3f800000, 0x3f800000, 0x3f800001],
        ),
        // rnd(val(0x3f800001)**2, 'f', m)
        (
            "mul",
            [f(0x3f800001), f(0x3f800001), 0],
            [0x3f800002, 0x3f800002, 0x3f800002, 0x3f800003],
        ),
        // rnd(F(-1,3), 'f', m)
        (
            "div",
            [f(0xbf800000), f(0x40400000), 0],
            [0xbeaaaaab, 0xbeaaaaaa, 0xbeaaaaab, 0xbeaaaaaa],
        ),
        // rnd(val(0x3f800001)*val(0x3f7fffff)-1, 'f', m): exact
        (
            "fma",
            [f(0x3f800001), f(0x3f7fffff), f(0xbf800000)],
            [0x337ffffe; 4],
        ),
        // rnd(2*val(0x7f7fffff), 'f', m)
        (
            "add",
            [f(0x7f7fffff), f(0x7f7fffff), 0],
            [0x7f800000, 0x7f7fffff, 0x7f7fffff, 0x7f800000],
        ),
        // rnd(-F(2)**-160, 'f', m): 2^-80 * -2^-80
        (
            "mul",
            [f(0x17800000), f(0x97800000), 0],
            [0x80000000, 0x80000000, 0x80000001, 0x80000000],
        ),
        // rnd(F(1,3), 'f', m): rcp(3)
        (
            "rcp",
            [f(0x40400000), 0, 0],
            [0x3eaaaaab, 0x3eaaaaaa, 0x3eaaaaaa, 0x3eaaaaab],
        ),
        // [rnd(F(math.isqrt(2*4**400), 2**400), 'f', m) for m in modes] (the same for isqrt + 1)
        (
            "sqrt",
            [f(0x40000000), 0, 0],
            [0x3fb504f3, 0x3fb504f3, 0x3fb504f3, 0x3fb504f4],
        ),
    ];
    for (op, operands, want) in cases {
        let got = each_mode(
            |m| {
                let line = match op {
                    "fma" => format!("fma.{m}.f32 %f4, %f1, %f2, %f3;"),
                    "rcp" | "sqrt" => format!("{op}.{m}.f32 %f4, %f1;"),
                    _ => format!("{op}.{m}.f32 %f4, %f1, %f2;"),
                };
                format!("    {line}\n    mov.b32 %r4, %f4;\n    cvt.u64.u32 %rd9, %r4;")
            },
            &[operands],
        );
        let got: Vec<u64> = got.iter().map(|r| r[0]).collect();
        let want: Vec<u64> = want.iter().map(|&w| u64::from(w)).collect();
        assert_eq!(hex(&got), hex(&want), "{op}.f32 {operands:x?}");
    }
    // `.ftz` flushes after rounding: 2^-80 * 2^-80 rounded up is the least subnormal, then +0.
    let got = run(
        "    mul.rp.ftz.f32 %f4, %f1, %f2;\n    mov.b32 %r4, %f4;\n    cvt.u64.u32 %rd9, %r4;",
        &[[f(0x17800000), f(0x17800000), 0]],
    );
    assert_eq!(got, [0]);
}

#[test]
fn conversions_round_in_every_direction() {
    let cvt = |line: &str, operand: u64| -> Vec<u64> {
        each_mode(|m| line.replace("{m}", m), &[[operand, 0, 0]])
            .iter()
            .map(|r| r[0])
            .collect()
    };
    let to_f32 =
        "    cvt.{m}.f32.f64 %f4, %fd1;\n    mov.b32 %r4, %f4;\n    cvt.u64.u32 %rd9, %r4;";
    // [rnd(val(bits), 'f', m) for m in modes]
    for (x, want) in [
        (
            0x3fd5555555555555u64,
            [0x3eaaaaabu32, 0x3eaaaaaa, 0x3eaaaaaa, 0x3eaaaaab],
        ),
        (
            0xbfd5555555555555,
            [0xbeaaaaab, 0xbeaaaaaa, 0xbeaaaaab, 0xbeaaaaaa],
        ),
        (MAX, [0x7f800000, 0x7f7fffff, 0x7f7fffff, 0x7f800000]),
        (
            MAX | 1 << 63,
            [0xff800000, 0xff7fffff, 0xff800000, 0xff7fffff],
        ),
        // 2^-150: a tie between 0 and the least subnormal
        (0x3690000000000000, [0, 0, 0, 1]),
        // 3 * 2^-150: a tie between 1 and 2 least subnormals
        (0x36a8000000000000, [2, 1, 1, 2]),
        // NaN: its sign and upper payload bits, quiet (as an H100 gives)
        (0x7ff8000020000000, [0x7fc00001; 4]),
    ] {
        assert_eq!(
            hex(&cvt(to_f32, x)),
            hex(&want.map(u64::from)),
            "cvt.f32.f64 {x:#x}"
        );
    }
    let s64_to_f64 = "    cvt.{m}.f64.s64 %fd4, %rd1;\n    mov.b64 %rd9, %fd4;";
    let u64_to_f64 = "    cvt.{m}.f64.u64 %fd4, %rd1;\n    mov.b64 %rd9, %fd4;";
    // [rnd(F(v), 'd', m) for m in modes]
    assert_eq!(
        hex(&cvt(s64_to_f64, (1 << 53) + 1)),
        hex(&[
            0x4340000000000000,
            0x4340000000000000,
            0x4340000000000000,
            0x4340000000000001
        ])
    );
    assert_eq!(
        hex(&cvt(s64_to_f64, (-(1i64 << 53) - 1) as u64)),
        hex(&[
            0xc340000000000000,
            0xc340000000000000,
            0xc340000000000001,
            0xc340000000000000
        ])
    );
    assert_eq!(
        hex(&cvt(u64_to_f64, u64::MAX)),
        hex(&[
            0x43f0000000000000,
            0x43efffffffffffff,
            0x43efffffffffffff,
            0x43f0000000000000
        ])
    );
    // [rnd(F(v), 'f', m) for m in modes]
    let s32_to_f32 =
        "    cvt.{m}.f32.s32 %f4, %r1;\n    mov.b32 %r4, %f4;\n    cvt.u64.u32 %rd9, %r4;";
    assert_eq!(
        hex(&cvt(s32_to_f32, (1 << 24) + 1)),
        hex(&[0x4b800000, 0x4b800000, 0x4b800000, 0x4b800001])
    );
    assert_eq!(
        hex(&cvt(s32_to_f32, u64::from(-(i32::MAX) as u32))),
        hex(&[0xcf000000, 0xceffffff, 0xcf000000, 0xceffffff])
    );
}
