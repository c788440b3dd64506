//! The PTX ISA's extended-precision instructions (`add.cc`, `addc`, `sub.cc`, `subc`, `mad.cc`,
//! `madc`) on the PTX simulator: every form on every type against a reference written here from
//! the ISA's semantics, multi-word additions, subtractions and products against `u128`
//! arithmetic, and the condition code as per-thread state (each lane its own carry, through
//! guards and divergent branches).

use crate::common;

use common::int::{check, operands, refusal, run, Rng};

/// Sets `CC.CF` to bit 0 of the fourth operand word (`%r4`), before the instruction under test.
const SET_CF: &str = "and.b32 %r16, %r4, 1;\nadd.cc.u32 %r17, %r16, 0xffffffff;";
/// Reads `CC.CF` into `%rd10`.
const GET_CF: &str = "addc.u32 %r18, 0, 0;\ncvt.u64.u32 %rd10, %r18;";

/// The reference: `d` and `CC.CF` after `form` (`add.cc`, `madc.hi`, …) on `bits`-bit operands
/// `a`, `b`, `c` with `CC.CF` = `cf` before it.
fn reference(form: &str, bits: u32, signed: bool, x: [u64; 4], cf: bool) -> (u64, bool) {
    let m: u128 = (1u128 << bits) - 1;
    let (a, b, c) = (
        u128::from(x[0]) & m,
        u128::from(x[1]) & m,
        u128::from(x[2]) & m,
    );
    let carry_in = form.starts_with("addc") || form.starts_with("subc") || form.starts_with("madc");
    let cin = u128::from(carry_in && cf);
    let value = |v: u128| -> i128 {
        if signed && v >> (bits - 1) == 1 {
            v as i128 - (1i128 << bits)
        } else {
            v as i128
        }
    };
    let (d, out) = if form.starts_with("sub") {
        let d = a.wrapping_sub(b).wrapping_sub(cin) & m;
        (d, a < b + cin)
    } else {
        let term = if form.starts_with("add") {
            b
        } else {
            // The product's low or high half, as bits of the full two's-complement product.
            let p = if signed {
                (value(a) * value(b)) as u128
            } else {
                a * b
            };
            let half = if form.contains(".hi") { p >> bits } else { p };
            (half & m) + c
        };
        let s = a * u128::from(form.starts_with("add")) + term + cin;
        (s & m, s > m)
    };
    let cf_after = if form.ends_with(".cc") { out } else { cf };
    (d as u64, cf_after)
}

#[test]
fn every_carry_form_on_every_type() {
    let inputs = operands(1500);
    let forms = [
        "add.cc",
        "addc",
        "addc.cc",
        "sub.cc",
        "subc",
        "subc.cc",
        "mad.lo.cc",
        "mad.hi.cc",
        "madc.lo",
        "madc.hi",
        "madc.lo.cc",
        "madc.hi.cc",
    ];
    for form in forms {
        for (ty, bits, signed) in [
            ("u32", 32, false),
            ("s32", 32, true),
            ("u64", 64, false),
            ("s64", 64, true),
        ] {
            let mad = form.starts_with("mad");
            let ops = match (bits, mad) {
                (32, false) => "%r5, %r1, %r2",
                (32, true) => "%r5, %r1, %r2, %r3",
                (_, false) => "%rd9, %rd1, %rd2",
                (_, true) => "%rd9, %rd1, %rd2, %rd3",
            };
            let widen = if bits == 32 {
                "cvt.u64.u32 %rd9, %r5;"
            } else {
                ""
            };
            let body = format!("{SET_CF}\n{form}.{ty} {ops};\n{widen}\n{GET_CF}");
            let name = format!("{form}.{ty}");
            check(&name, &body, &inputs, |x| {
                let (d, cf) = reference(form, bits, signed, x, x[3] & 1 == 1);
                [d, u64::from(cf), 0]
            });
        }
    }
}

#[test]
fn a_128_bit_add_and_sub_in_32_bit_words_equal_u128_arithmetic() {
    let inputs = operands(2000);
    let split = "mov.b64 {%r5, %r6}, %rd1;\nmov.b64 {%r7, %r8}, %rd2;\n\
                 mov.b64 {%r9, %r10}, %rd3;\nmov.b64 {%r11, %r12}, %rd4;";
    let join = "mov.b64 %rd9, {%r5, %r6};\nmov.b64 %rd10, {%r7, %r8};\n\
                addc.u32 %r13, 0, 0;\ncvt.u64.u32 %rd11, %r13;";
    let u128_of = |lo: u64, hi: u64| u128::from(hi) << 64 | u128::from(lo);
    let add = format!(
        "{split}\nadd.cc.u32 %r5, %r5, %r9;\naddc.cc.u32 %r6, %r6, %r10;\n\
         addc.cc.u32 %r7, %r7, %r11;\naddc.cc.u32 %r8, %r8, %r12;\n{join}"
    );
    check("128-bit add.cc/addc.cc chain", &add, &inputs, |x| {
        let (a, b) = (u128_of(x[0], x[1]), u128_of(x[2], x[3]));
        let (s, carry) = a.overflowing_add(b);
        [s as u64, (s >> 64) as u64, u64::from(carry)]
    });
    // The ISA's own example ends the chain with a plain `addc`: no carry out, the same sum.
    let plain = add.replace("addc.cc.u32 %r8", "addc.u32 %r8");
    check("128-bit add ending in addc", &plain, &inputs, |x| {
        let (a, b) = (u128_of(x[0], x[1]), u128_of(x[2], x[3]));
        let s = a.wrapping_add(b);
        // CC.CF is still the carry out of the third word.
        let low96 = (a & ((1 << 96) - 1)) + (b & ((1 << 96) - 1));
        [s as u64, (s >> 64) as u64, (low96 >> 96) as u64]
    });
    let sub = format!(
        "{split}\nsub.cc.u32 %r5, %r5, %r9;\nsubc.cc.u32 %r6, %r6, %r10;\n\
         subc.cc.u32 %r7, %r7, %r11;\nsubc.cc.u32 %r8, %r8, %r12;\n{join}"
    );
    check("128-bit sub.cc/subc.cc chain", &sub, &inputs, |x| {
        let (a, b) = (u128_of(x[0], x[1]), u128_of(x[2], x[3]));
        let (s, borrow) = a.overflowing_sub(b);
        [s as u64, (s >> 64) as u64, u64::from(borrow)]
    });
    // The same in 64-bit words.
    let add64 =
        "add.cc.u64 %rd9, %rd1, %rd3;\naddc.cc.u64 %rd10, %rd2, %rd4;\naddc.u64 %rd11, 0, 0;";
    check("128-bit add.cc.u64 chain", add64, &inputs, |x| {
        let (s, carry) = u128_of(x[0], x[1]).overflowing_add(u128_of(x[2], x[3]));
        [s as u64, (s >> 64) as u64, u64::from(carry)]
    });
}

#[test]
fn a_64x64_to_128_product_from_mad_lo_cc_and_madc_hi_equals_u128() {
    // The ISA's example: [r3,r2,r1,r0] = [r5,r4] * [r7,r6].
    let body = "mov.b64 {%r4, %r5}, %rd1;\nmov.b64 {%r6, %r7}, %rd2;\n\
                mul.lo.u32 %r10, %r4, %r6;\nmul.hi.u32 %r11, %r4, %r6;\n\
                mad.lo.cc.u32 %r11, %r5, %r6, %r11;\nmadc.hi.u32 %r12, %r5, %r6, 0;\n\
                mad.lo.cc.u32 %r11, %r4, %r7, %r11;\nmadc.hi.cc.u32 %r12, %r4, %r7, %r12;\n\
                addc.u32 %r13, 0, 0;\nmad.lo.cc.u32 %r12, %r5, %r7, %r12;\n\
                madc.hi.u32 %r13, %r5, %r7, %r13;\n\
                mov.b64 %rd9, {%r10, %r11};\nmov.b64 %rd10, {%r12, %r13};";
    let inputs = operands(3000);
    check("64x64->128 with 32-bit mad.cc chains", body, &inputs, |x| {
        let p = u128::from(x[0]) * u128::from(x[1]);
        [p as u64, (p >> 64) as u64, 0]
    });
    // A 128×64 → 192-bit product in 64-bit words.
    let body = "mul.lo.u64 %rd9, %rd1, %rd3;\nmul.hi.u64 %rd10, %rd1, %rd3;\n\
                mad.lo.cc.u64 %rd10, %rd2, %rd3, %rd10;\nmadc.hi.u64 %rd11, %rd2, %rd3, 0;";
    check(
        "128x64->192 with 64-bit mad.cc chains",
        body,
        &inputs,
        |x| {
            let (low, high) = (
                u128::from(x[0]) * u128::from(x[2]),
                u128::from(x[1]) * u128::from(x[2]),
            );
            let middle = (low >> 64) + (high & u128::from(u64::MAX));
            [
                low as u64,
                middle as u64,
                ((high >> 64) + (middle >> 64)) as u64,
            ]
        },
    );
}

#[test]
fn each_lane_keeps_its_own_carry_through_guards_and_divergence() {
    // Every lane sets CF from its operand; odd lanes then take a branch that overwrites it with the
    // carry of a + b, lanes 2 mod 4 overwrite it with a guarded borrow of a − b, lanes 0 mod 4 (the
    // guard false) keep their first CF; after reconverging every lane reads its own.
    let body = "and.b32 %r16, %r4, 1;\nadd.cc.u32 %r17, %r16, 0xffffffff;\n\
                and.b32 %r8, %r20, 1;\nsetp.eq.u32 %p1, %r8, 0;\n@%p1 bra EVEN;\n\
                add.cc.u32 %r9, %r1, %r2;\nbra JOIN;\nEVEN:\nand.b32 %r10, %r20, 2;\n\
                setp.ne.u32 %p2, %r10, 0;\n@%p2 sub.cc.u32 %r9, %r1, %r2;\nJOIN:\n\
                addc.u32 %r11, 0, 0;\ncvt.u64.u32 %rd9, %r11;";
    let mut rng = Rng(11);
    let inputs: Vec<[u64; 4]> = (0..1024)
        .map(|_| {
            let a = rng.next() >> (rng.next() % 2 * 32);
            [a, rng.next(), 0, rng.next()]
        })
        .collect();
    let got = run(body, &inputs);
    let mut seen = [0usize; 2];
    for (t, (x, g)) in inputs.iter().zip(&got).enumerate() {
        let (a, b) = (x[0] as u32, x[1] as u32);
        let cf = match t % 4 {
            1 | 3 => a.checked_add(b).is_none(),
            2 => a < b,
            _ => x[3] & 1 == 1,
        };
        seen[usize::from(cf)] += 1;
        assert_eq!(g[0], u64::from(cf), "thread {t}: operands {x:#x?}");
    }
    assert!(
        seen[0] > 100 && seen[1] > 100,
        "both carries occur: {seen:?}"
    );
}

#[test]
fn malformed_carry_forms_are_refused_with_their_line() {
    for (bad, says) in [
        (
            "add.cc.u16 %rs5, %rs1, %rs2;",
            "`.u32`, `.s32`, `.u64`, `.s64`",
        ),
        ("addc.f32 %r5, %r1, %r2;", "not `.f32`"),
        (
            "sub.cc.u32 %r5, %r1, %r2, %r3;",
            "expected 3 operands, found 4",
        ),
        ("madc.u32 %r5, %r1, %r2, %r3;", "`.lo` or `.hi`"),
        ("mad.wide.cc.u32 %rd5, %r1, %r2, %rd3;", "`.wide`"),
        (
            "mad.lo.cc.u32 %r5, %r1, %r2;",
            "expected 4 operands, found 3",
        ),
        ("add.cc.sat.s32 %r5, %r1, %r2;", "`.sat`"),
        ("addc.cc %r5, %r1, %r2;", "no type modifier"),
        ("subc.cc.u32 5, %r1, %r2;", "destination"),
    ] {
        let e = refusal(bad);
        assert!(e.contains("line 33") && e.contains(says), "{bad}: {e}");
    }
}
