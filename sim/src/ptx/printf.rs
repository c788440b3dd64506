//! Device `printf` as the CUDA runtime formats it: nvcc calls `vprintf(format, args)` with the
//! format string's generic address and the address of a buffer in the thread's local memory holding
//! the arguments one after another, each at a multiple of its size (`int`, `unsigned`, `char` as 4
//! bytes; `long`, `long long`, `size_t` and pointers as 8; `float` promoted to `double`, 8). This
//! file turns a format and a reader of that buffer into the text; `exec_printf.rs` runs the call.
//!
//! Conversions: `d i u x X o c s p f F e E g G a A %`, with the flags `- + space # 0`, a width and a
//! precision (a `*` width or precision takes an `int` argument, as in C), and the length modifiers
//! `hh h l ll z j t L`. A conversion the C standard does not define (`%n`, or an unknown letter) is
//! printed as written, and reads no argument.

/// Reads the next argument of `size` bytes (4 or 8), aligned to its size; `None` past the buffer.
pub(crate) trait Args {
    fn next(&mut self, size: u32) -> Option<u64>;
    /// The C string at `addr` (for `%s`).
    fn string(&mut self, addr: u64) -> String;
}

/// A parsed conversion specification.
#[derive(Default)]
struct Spec {
    left: bool,
    plus: bool,
    space: bool,
    alt: bool,
    zero: bool,
    width: Option<usize>,
    precision: Option<usize>,
    /// 8-byte integer argument (`l`, `ll`, `z`, `j`, `t`).
    long: bool,
    /// `h` (16 bits) or `hh` (8 bits) narrowing of the integer.
    narrow: Option<u32>,
}

/// The text `printf(format, …)` prints, and the number of arguments it read.
pub(crate) fn format(format: &[u8], args: &mut impl Args) -> (String, u32) {
    let mut out = String::new();
    let mut read = 0u32;
    let mut i = 0;
    while i < format.len() {
        let c = format[i];
        if c != b'%' {
            let end = format[i..]
                .iter()
                .position(|&b| b == b'%')
                .map_or(format.len(), |p| i + p);
            out.push_str(&String::from_utf8_lossy(&format[i..end]));
            i = end;
            continue;
        }
        let start = i;
        i += 1;
        let mut spec = Spec::default();
        while let Some(&f) = format.get(i) {
            match f {
                b'-' => spec.left = true,
                b'+' => spec.plus = true,
                b' ' => spec.space = true,
                b'#' => spec.alt = true,
                b'0' => spec.zero = true,
                _ => break,
            }
            i += 1;
        }
        let number = |i: &mut usize, read: &mut u32, args: &mut dyn FnMut() -> Option<u64>| {
            if format.get(*i) == Some(&b'*') {
                *i += 1;
                *read += 1;
                return Some(args().unwrap_or(0) as u32 as i32);
            }
            let digits = format[*i..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count();
            let n = std::str::from_utf8(&format[*i..*i + digits])
                .ok()
                .and_then(|s| s.parse::<i32>().ok());
            *i += digits;
            n
        };
        let mut int_arg = || args.next(4);
        if let Some(w) = number(&mut i, &mut read, &mut int_arg) {
            if w < 0 {
                spec.left = true;
            }
            spec.width = Some(w.unsigned_abs().min(4096) as usize);
        }
        if format.get(i) == Some(&b'.') {
            i += 1;
            let p = number(&mut i, &mut read, &mut int_arg).unwrap_or(0);
            spec.precision = (p >= 0).then_some(p.min(4096) as usize);
        }
        loop {
            match format.get(i) {
                Some(b'h') if spec.narrow == Some(16) => spec.narrow = Some(8),
                Some(b'h') => spec.narrow = Some(16),
                Some(b'l' | b'z' | b'j' | b't' | b'q') => spec.long = true,
                Some(b'L') => {}
                _ => break,
            }
            i += 1;
        }
        let Some(&conv) = format.get(i) else {
            out.push_str(&String::from_utf8_lossy(&format[start..]));
            break;
        };
        i += 1;
        let int_size = if spec.long { 8 } else { 4 };
        let text = match conv {
            b'%' => "%".to_owned(),
            b'd' | b'i' => {
                read += 1;
                let v = args.next(int_size).unwrap_or(0);
                let v = signed(
                    v,
                    if spec.long {
                        64
                    } else {
                        spec.narrow.unwrap_or(32)
                    },
                );
                integer(&spec, v < 0, v.unsigned_abs().to_string(), "")
            }
            b'u' | b'x' | b'X' | b'o' => {
                read += 1;
                let v = args.next(int_size).unwrap_or(0);
                let bits = if spec.long {
                    64
                } else {
                    spec.narrow.unwrap_or(32)
                };
                let v = if bits >= 64 { v } else { v & ((1 << bits) - 1) };
                let (digits, prefix) = match conv {
                    b'u' => (v.to_string(), ""),
                    b'x' => (format!("{v:x}"), if spec.alt && v != 0 { "0x" } else { "" }),
                    b'X' => (format!("{v:X}"), if spec.alt && v != 0 { "0X" } else { "" }),
                    _ => (format!("{v:o}"), if spec.alt && v != 0 { "0" } else { "" }),
                };
                let unsigned = Spec {
                    plus: false,
                    space: false,
                    ..spec
                };
                integer(&unsigned, false, digits, prefix)
            }
            b'c' => {
                read += 1;
                let v = args.next(4).unwrap_or(0) as u8;
                pad(&spec, String::from_utf8_lossy(&[v]).into_owned(), false)
            }
            b's' => {
                read += 1;
                let addr = args.next(8).unwrap_or(0);
                let s = if addr == 0 {
                    "(null)".to_owned()
                } else {
                    args.string(addr)
                };
                let s: String = match spec.precision {
                    Some(p) => s.chars().take(p).collect(),
                    None => s,
                };
                pad(&spec, s, false)
            }
            b'p' => {
                read += 1;
                let v = args.next(8).unwrap_or(0);
                pad(&spec, format!("{v:#x}"), false)
            }
            b'f' | b'F' | b'e' | b'E' | b'g' | b'G' | b'a' | b'A' => {
                read += 1;
                let v = f64::from_bits(args.next(8).unwrap_or(0));
                float(&spec, conv, v)
            }
            _ => String::from_utf8_lossy(&format[start..i]).into_owned(),
        };
        out.push_str(&text);
    }
    (out, read)
}

/// `v`'s low `bits` bits as a signed number.
fn signed(v: u64, bits: u32) -> i64 {
    if bits >= 64 {
        v as i64
    } else {
        let shift = 64 - bits;
        ((v << shift) as i64) >> shift
    }
}

/// An integer's text: sign, prefix, digits at the precision, padded to the width.
fn integer(spec: &Spec, negative: bool, digits: String, prefix: &str) -> String {
    let digits = match spec.precision {
        Some(0) if digits == "0" => String::new(),
        Some(p) if digits.len() < p => format!("{}{digits}", "0".repeat(p - digits.len())),
        _ => digits,
    };
    let sign = sign(spec, negative);
    let body = format!("{prefix}{digits}");
    // The 0 flag is ignored with a precision, as in C.
    let zero = spec.zero && spec.precision.is_none();
    with_sign(spec, sign, body, zero)
}

fn sign(spec: &Spec, negative: bool) -> &'static str {
    if negative {
        "-"
    } else if spec.plus {
        "+"
    } else if spec.space {
        " "
    } else {
        ""
    }
}

/// `sign` then `body`, padded to the width: spaces on the left (or the right with `-`), or zeros
/// between the sign and the body with `zero`.
fn with_sign(spec: &Spec, sign: &str, body: String, zero: bool) -> String {
    let len = sign.len() + body.chars().count();
    let width = spec.width.unwrap_or(0);
    if len >= width {
        return format!("{sign}{body}");
    }
    let fill = width - len;
    if spec.left {
        format!("{sign}{body}{}", " ".repeat(fill))
    } else if zero {
        format!("{sign}{}{body}", "0".repeat(fill))
    } else {
        format!("{}{sign}{body}", " ".repeat(fill))
    }
}

fn pad(spec: &Spec, s: String, zero: bool) -> String {
    with_sign(spec, "", s, zero)
}

/// A floating-point conversion.
fn float(spec: &Spec, conv: u8, v: f64) -> String {
    let upper = conv.is_ascii_uppercase();
    let negative = v.is_sign_negative() && !v.is_nan();
    let sign = sign(spec, negative);
    let a = v.abs();
    if !a.is_finite() {
        let text = if a.is_nan() { "nan" } else { "inf" };
        let text = if upper {
            text.to_uppercase()
        } else {
            text.to_owned()
        };
        return with_sign(spec, sign, text, false);
    }
    let p = spec.precision.unwrap_or(6);
    let body = match conv.to_ascii_lowercase() {
        b'f' => fixed(a, p, spec.alt),
        b'e' => exponent(a, p, spec.alt),
        b'g' => general(a, p, spec.alt),
        _ => hex_float(a, spec.precision),
    };
    let body = if upper { body.to_uppercase() } else { body };
    with_sign(spec, sign, body, spec.zero)
}

fn fixed(a: f64, p: usize, alt: bool) -> String {
    let s = format!("{a:.p$}");
    if alt && p == 0 {
        s + "."
    } else {
        s
    }
}

/// `d.ddde±XX`.
fn exponent(a: f64, p: usize, alt: bool) -> String {
    let s = format!("{a:.p$e}");
    let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let dot = if alt && p == 0 { "." } else { "" };
    format!(
        "{mantissa}{dot}e{}{:02}",
        if exp < 0 { '-' } else { '+' },
        exp.unsigned_abs()
    )
}

/// `%g`: `%e` when the exponent is below -4 or at least the precision, else `%f`; trailing zeros
/// removed unless `#`.
fn general(a: f64, p: usize, alt: bool) -> String {
    let p = p.max(1);
    let e = format!("{a:.*e}", p - 1);
    let exp: i32 = e
        .split_once('e')
        .and_then(|(_, x)| x.parse().ok())
        .unwrap_or(0);
    let s = if exp < -4 || exp >= p as i32 {
        exponent(a, p - 1, alt)
    } else {
        fixed(a, (p as i32 - 1 - exp).max(0) as usize, alt)
    };
    if alt {
        return s;
    }
    match s.split_once('e') {
        Some((m, x)) => format!("{}e{x}", trim_zeros(m)),
        None => trim_zeros(&s).to_owned(),
    }
}

fn trim_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

/// `%a`: `0x1.hhhp±d`.
fn hex_float(a: f64, precision: Option<usize>) -> String {
    if a == 0.0 {
        return "0x0p+0".to_owned();
    }
    let bits = a.to_bits();
    let (mut exp, mut mantissa) = ((bits >> 52) as i64, bits & ((1 << 52) - 1));
    let lead = if exp == 0 {
        exp = -1022;
        0
    } else {
        exp -= 1023;
        1
    };
    let mut digits = format!("{mantissa:013x}");
    if let Some(p) = precision.filter(|&p| p < 13) {
        let shift = 4 * (13 - p as u32);
        let round = (mantissa >> (shift - 1)) & 1;
        mantissa = (mantissa >> shift) + round;
        digits = if p == 0 {
            String::new()
        } else {
            format!("{mantissa:0p$x}")
        };
    } else {
        digits = digits.trim_end_matches('0').to_owned();
    }
    let dot = if digits.is_empty() { "" } else { "." };
    format!("0x{lead}{dot}{digits}p{exp:+}")
}

#[cfg(test)]
mod tests {
    use super::{format, Args};

    /// Arguments packed as nvcc packs them.
    struct Packed {
        bytes: Vec<u8>,
        at: usize,
    }

    impl Packed {
        fn new(items: &[(u32, u64)]) -> Self {
            let mut bytes = Vec::new();
            for &(size, v) in items {
                while bytes.len() % size as usize != 0 {
                    bytes.push(0);
                }
                bytes.extend_from_slice(&v.to_le_bytes()[..size as usize]);
            }
            Packed { bytes, at: 0 }
        }
    }

    impl Args for Packed {
        fn next(&mut self, size: u32) -> Option<u64> {
            let size = size as usize;
            self.at = self.at.div_ceil(size) * size;
            let b = self.bytes.get(self.at..self.at + size)?;
            self.at += size;
            let mut v = [0u8; 8];
            v[..size].copy_from_slice(b);
            Some(u64::from_le_bytes(v))
        }

        fn string(&mut self, addr: u64) -> String {
            format!("<string {addr:#x}>")
        }
    }

    fn f(fmt: &str, items: &[(u32, u64)]) -> String {
        format(fmt.as_bytes(), &mut Packed::new(items)).0
    }

    #[test]
    fn formats_as_c_does() {
        // Each expected text is what glibc's printf prints for the same format and values.
        let d = |x: f64| (8, x.to_bits());
        let i = |x: i32| (4, x as u32 as u64);
        assert_eq!(f("tid %d of %u\n", &[i(-7), i(32)]), "tid -7 of 32\n");
        assert_eq!(
            f("%5d|%-5d|%05d|%+d|% d", &[i(42), i(42), i(-42), i(3), i(3)]),
            "   42|42   |-0042|+3| 3"
        );
        assert_eq!(
            f("%x %X %#x %o %#o", &[i(255), i(255), i(255), i(8), i(8)]),
            "ff FF 0xff 10 010"
        );
        assert_eq!(
            f(
                "%lld %lu %zu",
                &[(8, (-5i64) as u64), (8, u64::MAX), (8, 7)]
            ),
            "-5 18446744073709551615 7"
        );
        assert_eq!(f("%hhd %hu", &[i(300), i(70000)]), "44 4464");
        assert_eq!(f("%.3d|%.0d|%8.3d", &[i(5), i(0), i(-5)]), "005||    -005");
        assert_eq!(
            f(
                "%f %.2f %10.3f %-10.1f|",
                &[d(1.5), d(1.23456), d(-2.5), d(0.25)]
            ),
            "1.500000 1.23     -2.500 0.2       |"
        );
        assert_eq!(
            f("%e %.2E %e", &[d(12345.678), d(0.000123), d(0.0)]),
            "1.234568e+04 1.23E-04 0.000000e+00"
        );
        assert_eq!(
            f(
                "%g %g %g %g %g",
                &[d(100000.0), d(1000000.0), d(0.0001), d(0.00001), d(1.5)]
            ),
            "100000 1e+06 0.0001 1e-05 1.5"
        );
        assert_eq!(
            f("%.3g %#g %G", &[d(1.23456), d(1.0), d(1e-10)]),
            "1.23 1.00000 1E-10"
        );
        assert_eq!(
            f(
                "%f %f %F %e",
                &[
                    d(f64::INFINITY),
                    d(-f64::INFINITY),
                    d(f64::NAN),
                    d(f64::NAN)
                ]
            ),
            "inf -inf NAN nan"
        );
        assert_eq!(
            f("%a %a %.1a", &[d(1.0), d(0.5), d(1.75)]),
            "0x1p+0 0x1p-1 0x1.cp+0"
        );
        assert_eq!(f("%c%c%c %%", &[i(104), i(105), i(33)]), "hi! %");
        assert_eq!(
            f("%s and %.3s", &[(8, 0x10), (8, 0x20)]),
            "<string 0x10> and <st"
        );
        assert_eq!(f("%s", &[(8, 0)]), "(null)");
        assert_eq!(
            f("%*d|%-*d|%.*f", &[i(4), i(7), i(3), i(7), i(2), d(1.0)]),
            "   7|7  |1.00"
        );
        assert_eq!(f("%p", &[(8, 0x7f00)]), "0x7f00");
        // Mixed sizes are aligned: an int at 0, a double at 8, an int at 16.
        assert_eq!(f("%d %.1f %d", &[i(1), d(2.0), i(3)]), "1 2.0 3");
    }

    #[test]
    fn what_it_cannot_read_is_printed_as_written_or_zero() {
        assert_eq!(f("100%", &[]), "100%");
        assert_eq!(f("%n %y %5", &[]), "%n %y %5");
        assert_eq!(f("%d %d", &[(4, 1)]), "1 0");
        assert_eq!(format(b"%d %s", &mut Packed::new(&[(4, 9), (8, 0)])).1, 2);
    }
}
