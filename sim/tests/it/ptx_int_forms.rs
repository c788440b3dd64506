//! The integer instruction forms compilers emit beyond plain arithmetic — `mul24`/`mad24`,
//! `mad.hi.sat`, `bmsk`, `szext`, `fns`, `dp4a`, `dp2a`, `prmt` in every mode, `shf`, `lop3`,
//! `sad`, and the 64-bit bit counts — run on the PTX simulator, every lane compared with a reference
//! written here from the PTX ISA's description of each instruction (not the simulator's code), over
//! every pair of edge values (0, 1, −1, `i32::MIN`, `u32::MAX`, shift counts 0/31/32/large, …) and
//! random operands. The carry chains are `ptx_int_carry.rs`'s.

use crate::common;

use common::int::{check, operands, refusal, Rng};

/// Bits 31..0 of `v`.
fn lo(v: u64) -> u32 {
    v as u32
}

/// The reference for `mul24`: the 48-bit product of the operands' low 24 bits (two's complement
/// 24-bit values for `.s32`), bits 31..0 or 47..16.
fn mul24(hi: bool, signed: bool, a: u32, b: u32) -> u32 {
    let v = |x: u32| -> i128 {
        let low = i128::from(x & 0xff_ffff);
        if signed && low >= 0x80_0000 {
            low - 0x100_0000
        } else {
            low
        }
    };
    let t48 = (v(a) * v(b)) as u128 & ((1u128 << 48) - 1);
    if hi {
        (t48 >> 16) as u32
    } else {
        t48 as u32
    }
}

fn sat_i32(v: i64) -> u32 {
    v.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32 as u32
}

#[test]
fn mul24_and_mad24_every_form() {
    let inputs = operands(1500);
    for (mode, hi) in [("lo", false), ("hi", true)] {
        for (ty, signed) in [("u32", false), ("s32", true)] {
            let form = format!("mul24.{mode}.{ty}");
            let body = format!("{form} %r5, %r1, %r2;\ncvt.u64.u32 %rd9, %r5;");
            check(&form, &body, &inputs, |x| {
                [u64::from(mul24(hi, signed, lo(x[0]), lo(x[1]))), 0, 0]
            });
            let form = format!("mad24.{mode}.{ty}");
            let body = format!("{form} %r5, %r1, %r2, %r3;\ncvt.u64.u32 %rd9, %r5;");
            check(&form, &body, &inputs, |x| {
                let p = mul24(hi, signed, lo(x[0]), lo(x[1]));
                [u64::from(p.wrapping_add(lo(x[2]))), 0, 0]
            });
        }
    }
    let body = "mad24.hi.sat.s32 %r5, %r1, %r2, %r3;\ncvt.u64.u32 %rd9, %r5;";
    check("mad24.hi.sat.s32", body, &inputs, |x| {
        let p = mul24(true, true, lo(x[0]), lo(x[1])) as i32;
        [
            u64::from(sat_i32(i64::from(p) + i64::from(lo(x[2]) as i32))),
            0,
            0,
        ]
    });
    let body = "mad.hi.sat.s32 %r5, %r1, %r2, %r3;\ncvt.u64.u32 %rd9, %r5;";
    check("mad.hi.sat.s32", body, &inputs, |x| {
        let p = i64::from(lo(x[0]) as i32) * i64::from(lo(x[1]) as i32);
        let hi = (p >> 32) as i32;
        [
            u64::from(sat_i32(i64::from(hi) + i64::from(lo(x[2]) as i32))),
            0,
            0,
        ]
    });
    for bad in [
        "mad24.lo.sat.s32 %r5, %r1, %r2, %r3;",
        "mad24.hi.sat.u32 %r5, %r1, %r2, %r3;",
        "mul24.hi.sat.s32 %r5, %r1, %r2;",
        "mul24.lo.u64 %rd5, %rd1, %rd2;",
        "mul24.u32 %r5, %r1, %r2;",
        "mad.lo.sat.s32 %r5, %r1, %r2, %r3;",
        "mad.hi.sat.u32 %r5, %r1, %r2, %r3;",
    ] {
        assert!(refusal(bad).contains("line 33"), "{bad}");
    }
}

#[test]
fn bmsk_clamp_and_wrap() {
    let inputs = operands(1500);
    for (mode, clamp) in [("clamp", true), ("wrap", false)] {
        let form = format!("bmsk.{mode}.b32");
        let body = format!("{form} %r5, %r1, %r2;\ncvt.u64.u32 %rd9, %r5;");
        check(&form, &body, &inputs, |x| {
            // A mask of `width` ones from bit `pos`, cut at bit 31: with `.clamp` the position as
            // given and the width at most 32, with `.wrap` both modulo 32.
            let (a, b) = (u64::from(lo(x[0])), u64::from(lo(x[1])));
            let (pos, width) = if clamp {
                (a, b.min(32))
            } else {
                (a % 32, b % 32)
            };
            let d = (0..32u64)
                .filter(|i| *i >= pos && *i < pos + width)
                .fold(0u32, |d, i| d | 1 << i);
            [u64::from(d), 0, 0]
        });
    }
}

#[test]
fn szext_every_form() {
    let inputs = operands(1500);
    for (mode, clamp) in [("clamp", true), ("wrap", false)] {
        for (ty, signed) in [("u32", false), ("s32", true)] {
            let form = format!("szext.{mode}.{ty}");
            let body = format!("{form} %r5, %r1, %r2;\ncvt.u64.u32 %rd9, %r5;");
            check(&form, &body, &inputs, |x| {
                // The low N bits of `a`, N = `b` clamped to 32 or modulo 32, extended.
                let (a, b) = (lo(x[0]), lo(x[1]));
                let n = if clamp { b.min(32) } else { b % 32 };
                let d = match n {
                    0 => 0,
                    32 => a,
                    n => {
                        let field = a & ((1u32 << n) - 1);
                        if signed && field >> (n - 1) == 1 {
                            field | !((1u32 << n) - 1)
                        } else {
                            field
                        }
                    }
                };
                [u64::from(d), 0, 0]
            });
        }
    }
}

#[test]
fn fns_with_positive_and_negative_offsets() {
    // Masks from the edges and random; every base from −2 to 34, offsets −34..=34.
    let mut rng = Rng(7);
    let mut inputs = Vec::new();
    for m in 0..24u64 {
        let mask = match m {
            0 => 0,
            1 => u64::from(u32::MAX),
            2 => 0xaaaa_aaaa,
            3 => 0x8000_0001,
            _ => rng.next(),
        };
        for base in -2i64..=34 {
            for offset in [-34i64, -33, -32, -5, -2, -1, 0, 1, 2, 3, 17, 32, 33] {
                inputs.push([mask, base as u64, offset as u64, 0]);
            }
        }
    }
    let body = "fns.b32 %r5, %r1, %r2, %r3;\ncvt.u64.u32 %rd9, %r5;";
    check("fns.b32", body, &inputs, |x| {
        let (mask, base, offset) = (lo(x[0]), lo(x[1]) as i32, lo(x[2]) as i32);
        let set: Vec<i32> = (0..32).filter(|i| mask >> i & 1 == 1).collect();
        let d = if !(0..32).contains(&base) {
            // Undefined in the ISA; the simulator finds nothing.
            u32::MAX
        } else if offset == 0 {
            if set.contains(&base) {
                base as u32
            } else {
                u32::MAX
            }
        } else if offset > 0 {
            let up: Vec<&i32> = set.iter().filter(|p| **p >= base).collect();
            up.get(offset as usize - 1).map_or(u32::MAX, |p| **p as u32)
        } else {
            let down: Vec<&i32> = set.iter().rev().filter(|p| **p <= base).collect();
            let k = offset.unsigned_abs() as usize - 1;
            down.get(k).map_or(u32::MAX, |p| **p as u32)
        };
        [u64::from(d), 0, 0]
    });
}

/// `v`'s `count` parts of `bits` each, lowest first, as signed or unsigned values.
fn parts(v: u32, bits: u32, count: u32, signed: bool) -> Vec<i64> {
    (0..count)
        .map(|i| {
            let p = i64::from((v >> (i * bits)) & ((1 << bits) - 1));
            if signed && p >> (bits - 1) == 1 {
                p - (1 << bits)
            } else {
                p
            }
        })
        .collect()
}

#[test]
fn dp4a_and_dp2a_every_signedness_and_mode() {
    let inputs = operands(1500);
    let types = [("u32", false), ("s32", true)];
    for (at, a_signed) in types {
        for (bt, b_signed) in types {
            let form = format!("dp4a.{at}.{bt}");
            let body = format!("{form} %r5, %r1, %r2, %r3;\ncvt.u64.u32 %rd9, %r5;");
            check(&form, &body, &inputs, |x| {
                let va = parts(lo(x[0]), 8, 4, a_signed);
                let vb = parts(lo(x[1]), 8, 4, b_signed);
                let dot: i64 = va.iter().zip(&vb).map(|(a, b)| a * b).sum();
                [u64::from((i64::from(lo(x[2])) + dot) as u32), 0, 0]
            });
            for (mode, first) in [("lo", 0), ("hi", 2)] {
                let form = format!("dp2a.{mode}.{at}.{bt}");
                let body = format!("{form} %r5, %r1, %r2, %r3;\ncvt.u64.u32 %rd9, %r5;");
                check(&form, &body, &inputs, |x| {
                    let va = parts(lo(x[0]), 16, 2, a_signed);
                    let vb = parts(lo(x[1]), 8, 4, b_signed);
                    let dot = va[0] * vb[first] + va[1] * vb[first + 1];
                    [u64::from((i64::from(lo(x[2])) + dot) as u32), 0, 0]
                });
            }
        }
    }
    for bad in [
        "dp4a.u32 %r5, %r1, %r2, %r3;",
        "dp4a.u32.u64 %r5, %r1, %r2, %r3;",
        "dp2a.u32.u32 %r5, %r1, %r2, %r3;",
        "dp4a.s32.s32 %r5, %r1, %r2;",
    ] {
        assert!(refusal(bad).contains("line 33"), "{bad}");
    }
}

/// The ISA's table of `prmt`'s modes: for each mode and selector `c[1:0]`, the source bytes of
/// `d.b3`, `d.b2`, `d.b1`, `d.b0`.
const PRMT_MODES: [(&str, [[u32; 4]; 4]); 6] = [
    (
        "f4e",
        [[3, 2, 1, 0], [4, 3, 2, 1], [5, 4, 3, 2], [6, 5, 4, 3]],
    ),
    (
        "b4e",
        [[5, 6, 7, 0], [6, 7, 0, 1], [7, 0, 1, 2], [0, 1, 2, 3]],
    ),
    (
        "rc8",
        [[0, 0, 0, 0], [1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3]],
    ),
    (
        "ecl",
        [[3, 2, 1, 0], [3, 2, 1, 1], [3, 2, 2, 2], [3, 3, 3, 3]],
    ),
    (
        "ecr",
        [[0, 0, 0, 0], [1, 1, 1, 0], [2, 2, 1, 0], [3, 2, 1, 0]],
    ),
    (
        "rc16",
        [[1, 0, 1, 0], [3, 2, 3, 2], [1, 0, 1, 0], [3, 2, 3, 2]],
    ),
];

#[test]
fn prmt_every_mode() {
    let inputs = operands(1500);
    let byte = |a: u32, b: u32, i: u32| -> u32 {
        let src = [a.to_le_bytes(), b.to_le_bytes()].concat();
        u32::from(src[i as usize])
    };
    check(
        "prmt.b32",
        "prmt.b32 %r5, %r1, %r2, %r3;\ncvt.u64.u32 %rd9, %r5;",
        &inputs,
        |x| {
            let (a, b, c) = (lo(x[0]), lo(x[1]), lo(x[2]));
            let d = (0..4).fold(0u32, |d, i| {
                let sel = (c >> (4 * i)) & 0xf;
                let v = byte(a, b, sel & 7);
                let v = if sel & 8 == 0 { v } else { (v >> 7) * 0xff };
                d | v << (8 * i)
            });
            [u64::from(d), 0, 0]
        },
    );
    for (mode, table) in PRMT_MODES {
        let form = format!("prmt.b32.{mode}");
        let body = format!("{form} %r5, %r1, %r2, %r3;\ncvt.u64.u32 %rd9, %r5;");
        check(&form, &body, &inputs, |x| {
            let (a, b, c) = (lo(x[0]), lo(x[1]), lo(x[2]));
            let row = table[(c & 3) as usize];
            let d = (0..4).fold(0u32, |d, i| d | byte(a, b, row[3 - i]) << (8 * i));
            [u64::from(d), 0, 0]
        });
    }
    assert!(refusal("prmt.b32.f4e.rc8 %r5, %r1, %r2, %r3;").contains("line 33"));
    assert!(refusal("prmt.b64.f4e %rd5, %rd1, %rd2, %rd3;").contains("line 33"));
}

#[test]
fn shf_every_direction_and_mode() {
    let inputs = operands(1500);
    for (dir, left) in [("l", true), ("r", false)] {
        for (mode, clamp) in [("clamp", true), ("wrap", false)] {
            let form = format!("shf.{dir}.{mode}.b32");
            let body = format!("{form} %r5, %r1, %r2, %r3;\ncvt.u64.u32 %rd9, %r5;");
            check(&form, &body, &inputs, |x| {
                let (a, b, c) = (lo(x[0]), lo(x[1]), lo(x[2]));
                let n = if clamp { c.min(32) } else { c % 32 };
                let joined = u128::from(b) << 32 | u128::from(a);
                let d = if left {
                    (joined << n) >> 32
                } else {
                    joined >> n
                };
                [u64::from(d as u32), 0, 0]
            });
        }
    }
    assert!(refusal("shf.l.b32 %r5, %r1, %r2, %r3;").contains("`.clamp` or `.wrap`"));
    assert!(refusal("shf.wrap.b32 %r5, %r1, %r2, %r3;").contains("`.l` or `.r`"));
}

fn lut3(lut: u8, a: u32, b: u32, c: u32) -> u32 {
    (0..32).fold(0, |d, i| {
        let index = (a >> i & 1) << 2 | (b >> i & 1) << 1 | (c >> i & 1);
        d | u32::from(lut >> index & 1) << i
    })
}

#[test]
fn lop3_every_lut_and_the_predicate_forms() {
    let inputs = operands(0)[..400].to_vec();
    for lut in 0..=255u8 {
        let form = format!("lop3.b32 {lut:#x}");
        let body = format!("lop3.b32 %r5, %r1, %r2, %r3, {lut:#x};\ncvt.u64.u32 %rd9, %r5;");
        check(&form, &body, &inputs, |x| {
            [u64::from(lut3(lut, lo(x[0]), lo(x[1]), lo(x[2]))), 0, 0]
        });
    }
    // `p = (d != 0) BoolOp q`, `q` from the fourth word's bit 0, maybe negated.
    let inputs = operands(1000);
    for (op, negate) in [("and", ""), ("or", ""), ("and", "!"), ("or", "!")] {
        let form = format!("lop3.{op}.b32 d|p, …, {negate}q");
        let body = format!(
            "and.b32 %r6, %r4, 1;\nsetp.ne.u32 %p2, %r6, 0;\n\
             lop3.{op}.b32 %r5|%p1, %r1, %r2, %r3, 0x96, {negate}%p2;\n\
             cvt.u64.u32 %rd9, %r5;\nselp.u64 %rd10, 1, 0, %p1;"
        );
        check(&form, &body, &inputs, |x| {
            let d = lut3(0x96, lo(x[0]), lo(x[1]), lo(x[2]));
            let q = (x[3] & 1 == 1) != (negate == "!");
            let p = if op == "and" {
                d != 0 && q
            } else {
                d != 0 || q
            };
            [u64::from(d), u64::from(p), 0]
        });
    }
    // The result discarded: `_|p` (nvcc writes this when only the predicate is used).
    for op in ["and", "or"] {
        let form = format!("lop3.{op}.b32 _|p");
        let body = format!(
            "and.b32 %r6, %r4, 1;\nsetp.ne.u32 %p2, %r6, 0;\n\
             lop3.{op}.b32 _|%p1, %r1, %r2, %r3, 0xe8, %p2;\nselp.u64 %rd10, 1, 0, %p1;"
        );
        check(&form, &body, &inputs, |x| {
            let d = lut3(0xe8, lo(x[0]), lo(x[1]), lo(x[2]));
            let q = x[3] & 1 == 1;
            let p = if op == "and" {
                d != 0 && q
            } else {
                d != 0 || q
            };
            [0, u64::from(p), 0]
        });
    }
    for bad in [
        "lop3.b32 %r5, %r1, %r2, %r3, %r4;",
        "lop3.b32 %r5, %r1, %r2, %r3, 256;",
        "lop3.b32 %r5, %r1, %r2, %r3;",
        "lop3.and.b32 %r5, %r1, %r2, %r3, 0x80, %p1;",
        "lop3.or.b32 %r5|%p1, %r1, %r2, %r3, 0x80;",
        "lop3.b64 %rd5, %rd1, %rd2, %rd3, 0x80;",
    ] {
        assert!(refusal(bad).contains("line 33"), "{bad}");
    }
}

#[test]
fn sad_every_type() {
    let inputs = operands(1500);
    for (ty, bits, signed) in [
        ("u16", 16, false),
        ("u32", 32, false),
        ("u64", 64, false),
        ("s16", 16, true),
        ("s32", 32, true),
        ("s64", 64, true),
    ] {
        let form = format!("sad.{ty}");
        let (regs, widen) = match bits {
            16 => ("%rs5, %rs1, %rs2, %rs3", "cvt.u64.u16 %rd9, %rs5;"),
            32 => ("%r5, %r1, %r2, %r3", "cvt.u64.u32 %rd9, %r5;"),
            _ => ("%rd9, %rd1, %rd2, %rd3", ""),
        };
        let body = format!("{form} {regs};\n{widen}");
        check(&form, &body, &inputs, |x| {
            let m = if bits == 64 {
                u64::MAX
            } else {
                (1u64 << bits) - 1
            };
            let val = |v: u64| -> i128 {
                let v = i128::from(v & m);
                if signed && v >> (bits - 1) == 1 {
                    v - (1i128 << bits)
                } else {
                    v
                }
            };
            let diff = (val(x[0]) - val(x[1])).abs();
            [((i128::from(x[2] & m) + diff) as u64) & m, 0, 0]
        });
    }
}

#[test]
fn bit_counts_and_cnot_on_every_width() {
    let inputs = operands(1500);
    let w = |d: u32| u64::from(d);
    check(
        "popc.b64 clz.b64 brev.b64",
        "popc.b64 %r5, %rd1;\ncvt.u64.u32 %rd9, %r5;\nclz.b64 %r6, %rd1;\n\
         cvt.u64.u32 %rd10, %r6;\nbrev.b64 %rd11, %rd1;",
        &inputs,
        |x| {
            let popc = (0..64).filter(|i| x[0] >> i & 1 == 1).count() as u32;
            let clz = (0..64).rev().take_while(|i| x[0] >> i & 1 == 0).count() as u32;
            let brev = (0..64).fold(0u64, |d, i| d | (x[0] >> i & 1) << (63 - i));
            [w(popc), w(clz), brev]
        },
    );
    for (ty, bits, signed) in [
        ("u32", 32, false),
        ("s32", 32, true),
        ("u64", 64, false),
        ("s64", 64, true),
    ] {
        let src = if bits == 32 { "%r1" } else { "%rd1" };
        let form = format!("bfind(.shiftamt).{ty}");
        let body = format!(
            "bfind.{ty} %r5, {src};\ncvt.u64.u32 %rd9, %r5;\n\
             bfind.shiftamt.{ty} %r6, {src};\ncvt.u64.u32 %rd10, %r6;"
        );
        check(&form, &body, &inputs, |x| {
            let v = if bits == 32 { x[0] & 0xffff_ffff } else { x[0] };
            let negative = signed && v >> (bits - 1) & 1 == 1;
            // The most significant bit that differs from the sign (from 0 for unsigned types).
            let found = (0..bits).rev().find(|i| (v >> i & 1 == 1) != negative);
            match found {
                Some(i) => [w(i), w(bits - 1 - i), 0],
                None => [w(u32::MAX), w(u32::MAX), 0],
            }
        });
    }
    check(
        "cnot.b16 cnot.b32 cnot.b64",
        "cnot.b16 %rs5, %rs1;\ncvt.u64.u16 %rd9, %rs5;\ncnot.b32 %r5, %r1;\n\
         cvt.u64.u32 %rd10, %r5;\ncnot.b64 %rd11, %rd1;",
        &inputs,
        |x| {
            let c = |m: u64| u64::from(x[0] & m == 0);
            [c(0xffff), c(0xffff_ffff), c(u64::MAX)]
        },
    );
}
