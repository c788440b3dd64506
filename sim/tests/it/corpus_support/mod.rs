//! The corpus's launch files (`corpus/launch/<id>.json`) and what the tests do with them: the model
//! ([`Entry`], [`Param`], [`Init`], [`Compare`]), the seeded input generators (mirrored by
//! `corpus/tools/corpus.py`) and the output comparison. Shared by `sim/tests/it/corpus_run.rs` (the
//! simulator), `sim/benches/corpus_speed.rs` (its speed) and the root crate's
//! `tests/it/corpus_cuda.rs` (a GPU against the simulator).

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

#[derive(Deserialize)]
pub struct Entry {
    pub id: String,
    pub ptx: String,
    pub compiler: String,
    pub arch: String,
    pub heldout: bool,
    pub entry: String,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub dynamic_shared: u32,
    pub params: Vec<Param>,
}

#[derive(Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Param {
    Scalar {
        #[serde(rename = "type")]
        ty: String,
        value: serde_json::Number,
    },
    Buffer {
        name: String,
        #[serde(rename = "type")]
        ty: String,
        len: usize,
        init: Init,
        output: bool,
        #[serde(default)]
        writable: bool,
        expected: Option<String>,
        compare: Option<Compare>,
    },
}

/// How a buffer is filled (see `corpus/tools/corpus.py`, which mirrors this).
#[derive(Deserialize)]
#[serde(untagged)]
pub enum Init {
    Zeros {
        #[allow(dead_code)]
        zeros: bool,
    },
    Fill {
        fill: f64,
    },
    Iota {
        iota: f64,
        step: f64,
    },
    File {
        file: String,
    },
    Random {
        splitmix64: u64,
        dist: String,
        #[serde(default)]
        lo: f64,
        #[serde(default)]
        hi: f64,
    },
}

/// How an output is compared: `exact` (bytes), or `float` (see [`mismatch`]); elements listed in
/// `ignore` are not compared (their value depends on the order of atomics).
#[derive(Deserialize, Default)]
pub struct Compare {
    pub mode: String,
    #[serde(default, rename = "abs")]
    pub abs_tol: f64,
    #[serde(default)]
    pub rel: f64,
    #[serde(default)]
    pub ulp: u64,
    #[serde(default)]
    pub ignore: Vec<usize>,
}

/// A splitmix64 stream.
pub struct SplitMix(pub u64);

impl SplitMix {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

pub fn width(ty: &str) -> usize {
    match ty {
        "u8" | "i8" => 1,
        "u16" | "i16" | "f16" | "bf16" => 2,
        "u32" | "i32" | "f32" => 4,
        "u64" | "i64" | "f64" => 8,
        _ => panic!("unknown element type `{ty}`"),
    }
}

/// `v` as one element of type `ty`, little-endian (integers wrap like numpy's `astype`; floats
/// round to nearest even; f16 and bf16 through f32, as `corpus/tools/corpus.py` does).
pub fn element(ty: &str, v: f64, int: Option<i128>) -> Vec<u8> {
    let i = int.unwrap_or(v as i128);
    match ty {
        "f32" => (v as f32).to_le_bytes().to_vec(),
        "f64" => v.to_le_bytes().to_vec(),
        "f16" => half::f16::from_f32(v as f32).to_le_bytes().to_vec(),
        "bf16" => half::bf16::from_f32(v as f32).to_le_bytes().to_vec(),
        _ => i.to_le_bytes()[..width(ty)].to_vec(),
    }
}

pub fn generate(dir: &Path, init: &Init, ty: &str, len: usize) -> Vec<u8> {
    let w = width(ty);
    match init {
        Init::Zeros { .. } => vec![0; len * w],
        Init::Fill { fill } => (0..len).flat_map(|_| element(ty, *fill, None)).collect(),
        Init::Iota { iota, step } => (0..len)
            .flat_map(|i| element(ty, iota + i as f64 * step, None))
            .collect(),
        Init::File { file } => std::fs::read(dir.join(file)).expect("an input file"),
        Init::Random {
            splitmix64,
            dist,
            lo,
            hi,
        } => {
            let mut rng = SplitMix(*splitmix64);
            (0..len)
                .flat_map(|_| {
                    let z = rng.next();
                    match dist.as_str() {
                        "int" => {
                            let k = *lo as i128 + i128::from(z % ((hi - lo) as u64));
                            element(ty, k as f64, Some(k))
                        }
                        "uniform" => {
                            let u = (z >> 11) as f64 / 9_007_199_254_740_992.0;
                            element(ty, lo + (hi - lo) * u, None)
                        }
                        "bits" => z.to_le_bytes()[..w].to_vec(),
                        other => panic!("unknown distribution `{other}`"),
                    }
                })
                .collect()
        }
    }
}

pub fn scalar_bits(ty: &str, value: &serde_json::Number) -> u64 {
    match ty {
        "f32" => u64::from((value.as_f64().expect("a number") as f32).to_bits()),
        "f64" => value.as_f64().expect("a number").to_bits(),
        _ => {
            let v = value
                .as_i64()
                .map(|v| v as u64)
                .or(value.as_u64())
                .expect("an integer");
            match width(ty) {
                8 => v,
                w => v & ((1u64 << (8 * w)) - 1),
            }
        }
    }
}

/// Where `got` and `want` (elements of `ty`) differ beyond `cmp`: the first such element.
/// `multiset`: the same elements in any order (atomically appended outputs).
pub fn mismatch(ty: &str, got: &[u8], want: &[u8], cmp: &Compare) -> Option<String> {
    let w = width(ty);
    if cmp.mode == "multiset" {
        let sorted = |b: &[u8]| {
            let mut v: Vec<Vec<u8>> = b.chunks(w).map(<[u8]>::to_vec).collect();
            v.sort_unstable();
            v
        };
        return (sorted(got) != sorted(want))
            .then(|| "not the same elements (in any order) as expected".to_owned());
    }
    for (i, (g, e)) in got.chunks(w).zip(want.chunks(w)).enumerate() {
        if cmp.ignore.contains(&i) {
            continue;
        }
        let ok = match (cmp.mode.as_str(), ty) {
            ("multiset", _) => true, // compared as a whole below
            ("float", "f32" | "f64") => {
                let (gv, ev, gi, ei) = if ty == "f32" {
                    let (g, e) = (f32_of(g), f32_of(e));
                    (
                        f64::from(g),
                        f64::from(e),
                        i128::from(ordered32(g)),
                        i128::from(ordered32(e)),
                    )
                } else {
                    let (g, e) = (f64_of(g), f64_of(e));
                    (g, e, ordered64(g), ordered64(e))
                };
                within(cmp, gv, ev, gi, ei)
            }
            ("float", "f16" | "bf16") => {
                let (gv, ev) = (half_of(ty, g), half_of(ty, e));
                within(cmp, gv, ev, ordered16(g), ordered16(e))
            }
            _ => g == e,
        };
        if !ok {
            let show = |b: &[u8]| match ty {
                "f32" => format!("{}", f32_of(b)),
                "f64" => format!("{}", f64_of(b)),
                "f16" | "bf16" => format!("{} ({:#06x})", half_of(ty, b), u16_of(b)),
                _ => format!("{b:02x?}"),
            };
            return Some(format!("element {i}: got {}, want {}", show(g), show(e)));
        }
    }
    None
}

/// Equal, both NaN, within `abs + rel * |want|`, or at most `ulp` apart (`gi`, `ei`: the values'
/// positions in float order).
fn within(cmp: &Compare, gv: f64, ev: f64, gi: i128, ei: i128) -> bool {
    (gv.is_nan() && ev.is_nan())
        || gv == ev
        || (gv - ev).abs() <= cmp.abs_tol + cmp.rel * ev.abs()
        || gi.abs_diff(ei) <= u128::from(cmp.ulp)
}

pub fn u16_of(b: &[u8]) -> u16 {
    u16::from_le_bytes(b.try_into().expect("2 bytes"))
}

/// An f16 or bf16 element's value.
pub fn half_of(ty: &str, b: &[u8]) -> f64 {
    let bits = u16_of(b);
    if ty == "bf16" {
        half::bf16::from_bits(bits).to_f64()
    } else {
        half::f16::from_bits(bits).to_f64()
    }
}

/// 16-bit float bits mapped to integers in the order of the floats (f16 and bf16 alike).
pub fn ordered16(b: &[u8]) -> i128 {
    let v = i128::from(u16_of(b) as i16);
    if v < 0 {
        i128::from(i16::MIN) - v
    } else {
        v
    }
}

pub fn f32_of(b: &[u8]) -> f32 {
    f32::from_le_bytes(b.try_into().expect("4 bytes"))
}

pub fn f64_of(b: &[u8]) -> f64 {
    f64::from_le_bytes(b.try_into().expect("8 bytes"))
}

/// Float bits mapped to integers in the order of the floats (ulp distance = difference).
pub fn ordered32(x: f32) -> i64 {
    let b = i64::from(x.to_bits() as i32);
    if b < 0 {
        i64::from(i32::MIN) - b
    } else {
        b
    }
}

pub fn ordered64(x: f64) -> i128 {
    let b = i128::from(x.to_bits() as i64);
    if b < 0 {
        i128::from(i64::MIN) - b
    } else {
        b
    }
}

/// An entry's buffers: initial bytes, and whether they come back (an output or writable).
pub type Buffers = Vec<(Vec<u8>, bool)>;

/// `e`'s buffers, generated, and its parameters in order: a scalar's bits, or `None` for the next
/// buffer.
pub fn inputs(dir: &Path, e: &Entry) -> (Buffers, Vec<Option<u64>>) {
    let (mut data, mut params) = (Vec::new(), Vec::new());
    for p in &e.params {
        match p {
            Param::Scalar { ty, value } => params.push(Some(scalar_bits(ty, value))),
            Param::Buffer {
                ty,
                len,
                init,
                output,
                writable,
                ..
            } => {
                let bytes = generate(dir, init, ty, *len);
                assert_eq!(bytes.len(), len * width(ty), "{}: buffer size", e.id);
                data.push((bytes, *output || *writable));
                params.push(None);
            }
        }
    }
    (data, params)
}

/// The first output of `e` in `data` (its buffers after a run, in order) outside the bound its
/// launch file states of the expected values: "`name` what".
pub fn expected_mismatch(dir: &Path, e: &Entry, data: &[(Vec<u8>, bool)]) -> Option<String> {
    let buffers = e
        .params
        .iter()
        .filter(|p| matches!(p, Param::Buffer { .. }));
    for (p, (got, _)) in buffers.zip(data) {
        let Param::Buffer {
            name,
            ty,
            output: true,
            expected,
            compare,
            ..
        } = p
        else {
            continue;
        };
        let want = std::fs::read(dir.join(expected.as_ref().expect("expected outputs")))
            .expect("an expected-output file");
        let exact = Compare::default();
        if let Some(m) = mismatch(ty, got, &want, compare.as_ref().unwrap_or(&exact)) {
            return Some(format!("`{name}` {m}"));
        }
    }
    None
}

/// `not_passing.tsv`: id, outcome, instruction, message (tab-separated; `#` comments).
pub fn recorded(dir: &Path) -> BTreeMap<String, (String, String)> {
    let text = std::fs::read_to_string(dir.join("not_passing.tsv")).unwrap_or_default();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let c: Vec<&str> = l.split('\t').collect();
            assert!(c.len() >= 3, "not_passing.tsv: fewer than 3 columns: {l}");
            (c[0].to_owned(), (c[1].to_owned(), c[2].to_owned()))
        })
        .collect()
}
