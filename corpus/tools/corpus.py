"""The case language of the simulator corpus (corpus/): what a launch is, how its inputs are generated
and how its expected outputs are computed (numpy, independently of the simulator).

A cases/<source>.py module describes one source file of src/: SOURCE, LANG ("cuda" or
"triton"), PROVENANCE (repository, path, commit, license, what was changed), HELDOUT and CASES, a
list of Case. tools/build.py compiles the source with every build of its language and writes, per
(case, build), launch/<source>.<case>.<build>.json and, per case, expected/<source>.<case>.<param>.bin.

Input generators (the "init" object of a buffer in the JSON; sim/tests/it/corpus_run.rs implements
the same):
  {"zeros": true}                      all bytes 0
  {"fill": V}                          every element V
  {"iota": START, "step": S}           START, START+S, ...
  {"splitmix64": SEED, "dist": "int", "lo": L, "hi": H}
        element i = L + (z_i mod (H - L)), z_i the i-th output of splitmix64 seeded with SEED
        (state += 0x9e3779b97f4a7c15; z = state; z = (z ^ z>>30) * 0xbf58476d1ce4e5b9;
         z = (z ^ z>>27) * 0x94d049bb133111eb; z ^= z>>31), converted to the element type
  {"splitmix64": SEED, "dist": "uniform", "lo": L, "hi": H}
        element i = L + (H - L) * ((z_i >> 11) / 2^53), computed in f64, then rounded to the type
  {"splitmix64": SEED, "dist": "bits"}  element i = the low bytes of z_i (little-endian)
  {"file": "inputs/NAME.bin"}          the bytes of that file (for inputs no generator above gives)

Half-precision elements ("f16", "bf16": bfloat16, stored as its 16 bits; numpy has no bfloat16, so
its arrays are uint16 bit patterns here, see bf16_values / bf16_bits) are generated as above in
f64, rounded to f32 (nearest even) and then to the type (nearest even), as corpus_run.rs does
with the `half` crate. Expected f16 outputs are rounded once from the f64 reference (numpy), bf16
ones likewise (bf16_bits).
"""
import numpy as np

MASK = (1 << 64) - 1

TYPES = {
    "u8": np.uint8, "i8": np.int8, "u16": np.uint16, "i16": np.int16,
    "u32": np.uint32, "i32": np.int32, "u64": np.uint64, "i64": np.int64,
    "f16": np.float16, "f32": np.float32, "f64": np.float64,
    "bf16": np.uint16,   # bit patterns (numpy has no bfloat16)
}


def bf16_values(bits):
    """bfloat16 bit patterns -> their values (f64)."""
    b = np.asarray(bits, np.uint16).astype(np.uint32) << 16
    return b.view(np.float32).astype(np.float64)


def bf16_bits(x):
    """Values -> the nearest bfloat16 (ties to even), rounded once from the given values (f64 or
    f32, finite, within bfloat16's normal range or zero) as bit patterns."""
    x = np.asarray(x, np.float64)
    m, e = np.frexp(x)                       # x = m * 2^e, 0.5 <= |m| < 1: 8 significant bits
    q = np.ldexp(np.round(np.ldexp(m, 8)), e - 8)   # np.round: ties to even; exact scalings
    assert np.all(np.isfinite(q)) and np.all((q == 0) | (np.abs(q) >= 2.0 ** -126)), "bf16 range"
    f = q.astype(np.float32)                 # exact: 8 significant bits
    return (f.view(np.uint32) >> 16).astype(np.uint16)


def to_type(v, ty):
    """f64 values -> elements of `ty` (half types through f32, as the generators do)."""
    v = np.asarray(v, np.float64)
    if ty == "f16":
        return v.astype(np.float32).astype(np.float16)
    if ty == "bf16":
        return bf16_bits(v.astype(np.float32))
    return v.astype(TYPES[ty])


def values(a, ty):
    """Elements of `ty` (as stored in a buffer's array) -> f64 values."""
    return bf16_values(a) if ty == "bf16" else np.asarray(a).astype(np.float64)


def splitmix64(seed, n):
    state, out = seed & MASK, []
    for _ in range(n):
        state = (state + 0x9E3779B97F4A7C15) & MASK
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        out.append(z ^ (z >> 31))
    return out


def ints(lo, hi, seed):
    return {"splitmix64": seed, "dist": "int", "lo": lo, "hi": hi}


def uniform(lo, hi, seed):
    return {"splitmix64": seed, "dist": "uniform", "lo": lo, "hi": hi}


def bits(seed):
    return {"splitmix64": seed, "dist": "bits"}


def zeros():
    return {"zeros": True}


def fill(v):
    return {"fill": v}


def iota(start=0, step=1):
    return {"iota": start, "step": step}


def generate(init, ty, n):
    """The elements `init` describes, as a numpy array of type `ty` (mirrors corpus_run.rs)."""
    dt = TYPES[ty]
    if "zeros" in init:
        return np.zeros(n, dt)
    half = ty in ("f16", "bf16")
    if "fill" in init:
        return to_type(np.full(n, init["fill"], np.float64), ty) if half else np.full(n, init["fill"], dt)
    if "iota" in init:
        v = [init["iota"] + i * init["step"] for i in range(n)]
        return to_type(np.array(v, np.float64), ty) if half else np.array(v, dt)
    if "file" in init:
        raise ValueError("file inputs are given as arrays (Buffer.data)")
    zs = splitmix64(init["splitmix64"], n)
    d = init["dist"]
    if d == "int":
        span = init["hi"] - init["lo"]
        v = np.array([init["lo"] + (z % span) for z in zs], dtype=np.float64 if ty[0] in "fb" else np.int64)
        return to_type(v, ty) if half else v.astype(dt)
    if d == "uniform":
        lo, hi = float(init["lo"]), float(init["hi"])
        v = np.array([lo + (hi - lo) * ((z >> 11) / 9007199254740992.0) for z in zs], np.float64)
        return to_type(v, ty) if half else v.astype(dt)
    if d == "bits":
        width = np.dtype(dt).itemsize
        raw = b"".join((z & ((1 << (8 * width)) - 1)).to_bytes(width, "little") for z in zs)
        return np.frombuffer(raw, dt).copy()
    raise ValueError(f"unknown init {init}")


class Buffer:
    """A pointer parameter: `n` elements of `ty`, initialised by `init` (or `data`, stored as a
    file); an output when `cmp` is given (exact for integers unless stated)."""

    def __init__(self, name, ty, n, init=None, cmp=None, data=None, writable=False):
        self.name, self.ty, self.n = name, ty, n
        self.init = init if init is not None else zeros()
        self.cmp, self.data = cmp, data
        self.output = cmp is not None
        self.writable = writable

    def values(self):
        if self.data is not None:
            a = np.asarray(self.data, TYPES[self.ty]).reshape(-1)
            assert a.size == self.n, (self.name, a.size, self.n)
            return a
        return generate(self.init, self.ty, self.n)


class Scalar:
    def __init__(self, name, ty, value):
        self.name, self.ty, self.value = name, ty, value


def buf(name, ty, n, init=None, data=None):
    return Buffer(name, ty, n, init, data=data)


def out(name, ty, n, init=None, cmp=None, data=None):
    if cmp is None:
        cmp = exact() if ty[0] not in "fb" else tol(0, 0)
    return Buffer(name, ty, n, init, cmp=cmp, data=data)


def scratch(name, ty, n, init=None):
    """A buffer the kernel writes but whose contents are not compared (order-dependent)."""
    return Buffer(name, ty, n, init, writable=True)


def scalar(name, ty, value):
    return Scalar(name, ty, value)


def exact(ignore=()):
    """Byte for byte; the elements in `ignore` are not compared (order-dependent atomics)."""
    return {"mode": "exact", "ignore": list(ignore)}


def multiset():
    """The same elements in any order (outputs appended through atomics)."""
    return {"mode": "multiset"}


def tol(abs_=0.0, rel=0.0, ulp=0, ignore=()):
    """Floats: |got - want| <= abs + rel * |want|, or at most `ulp` units in the last place apart
    (both NaN counts as equal)."""
    return {"mode": "float", "abs": abs_, "rel": rel, "ulp": ulp, "ignore": list(ignore)}


class Case:
    """One launch of one entry. `entry`: a name that identifies the .entry (exact, else the only
    entry containing it). `ref(a)` gets every buffer (numpy arrays, copies) and scalar by name and
    returns {output name: expected array}."""

    def __init__(self, name, entry, grid, block, params, ref, shared=0):
        self.name, self.entry = name, entry
        self.grid = tuple(grid) + (1,) * (3 - len(grid))
        self.block = tuple(block) + (1,) * (3 - len(block))
        self.params, self.ref, self.shared = params, ref, shared


def load_src(case_file, name):
    """The module src/NAME of the corpus (next to the cases/ folder of `case_file`)."""
    import importlib.util
    import os
    path = os.path.join(os.path.dirname(os.path.abspath(case_file)), "..", "src", name)
    path = os.path.normpath(path)
    spec = importlib.util.spec_from_file_location(name[:-3], path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


TRITON_TYPES = {"f32": "fp32", "f16": "fp16", "bf16": "bf16", "f64": "fp64", "i32": "i32", "u32": "u32",
                "i64": "i64", "u64": "u64", "i8": "i8", "u8": "u8", "i16": "i16"}


def triton_case(table, name, fn, grid, num_warps, params, ref, constexprs, num_stages=None,
                divisible_by_16=()):
    """A Case for the @triton.jit `fn`, registered in `table` (the cases module's TRITON dict, which
    analysis/tests/corpus/tools/triton_ptx.py compiles): the signature comes from the parameters' types
    (a buffer of f32 is *fp32), `constexprs` are compiled in; blocks are num_warps * 32 threads.
    `divisible_by_16`: arguments compiled as multiples of 16 (Triton's launcher specialises
    aligned pointers and integers so; the launch must keep the promise)."""
    by_name = {p.name: p for p in params}
    sig = {}
    for arg in fn.arg_names:
        if arg in constexprs:
            sig[arg] = "constexpr"
        else:
            p = by_name[arg]
            t = TRITON_TYPES[p.ty]
            sig[arg] = ("*" + t) if isinstance(p, Buffer) else t
    table[name] = dict(kernel=fn, signature=sig, constexprs=constexprs, num_warps=num_warps)
    if num_stages is not None:
        table[name]["num_stages"] = num_stages
    if divisible_by_16:
        table[name]["divisible_by_16"] = list(divisible_by_16)
        for a in divisible_by_16:
            p = by_name[a]
            assert isinstance(p, Buffer) or p.value % 16 == 0, f"{name}: {a} = {p.value} is not a multiple of 16"
    ordered = [by_name[a] for a in fn.arg_names if a not in constexprs]
    return Case(name, fn.__name__, grid, (num_warps * 32,), ordered, ref)


def fma64(a, b, c):
    """fma.rn.f64: a*b+c exactly, rounded once to the nearest double (Python's int/int true
    division, behind Fraction.__float__, rounds correctly)."""
    from fractions import Fraction
    return float(Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c)))


def f32(x):
    return np.float32(x)


def i32(x):
    """Python int -> the int32 it wraps to."""
    x &= 0xFFFFFFFF
    return x - (1 << 32) if x >> 31 else x
