"""Launches of src/half_ops.cu (written for warpforge's corpus). f16 buffers are numpy float16,
bf16 buffers bfloat16 bit patterns (corpus.bf16_values / bf16_bits)."""
import numpy as np
from corpus import Case, buf, out, scalar, uniform, ints, tol, generate, values, fma64, bf16_bits

LANG = "cuda"
HELDOUT = False

N2 = 700   # pairs per elementwise launch (64 KiB of data at most)
OUTS = ["sum", "prod", "fused", "mx", "mn", "relu", "neg", "absb"]


def elementwise_ref(ty):
    def ref(a):
        x, y, z = (values(a[k], ty) for k in "abc")
        fused = np.array([fma64(p, q, r) for p, q, r in zip(x, y, z)])
        return {"sum": x + y, "prod": x * y, "fused": fused, "mx": np.maximum(x, y),
                "mn": np.minimum(x, y), "relu": np.maximum(x, 0.0), "neg": -x, "absb": np.abs(y)}
    return ref


def elementwise_case(name, entry, ty, seed, loose):
    # every result is one correctly rounded operation of values in [-2, 2] (sums, products and
    # a*b+c of two f16 or bf16 values are exact in f64, then rounded once to the type). `loose`:
    # bfloat16 add and fma have no instruction before sm_80; NVRTC's sm_70 build computes them in
    # f32 and rounds again to bfloat16, which may land one ulp away: those two allow 1 ulp.
    cmp = {k: tol(ulp=1) if loose and k in ("sum", "fused") else tol() for k in OUTS}
    return Case(name, entry, (4,), (128,),
                [buf("a", ty, 2 * N2, uniform(-2, 2, seed)), buf("b", ty, 2 * N2, uniform(-2, 2, seed + 1)),
                 buf("c", ty, 2 * N2, uniform(-2, 2, seed + 2))]
                + [out(k, ty, 2 * N2, cmp=cmp[k]) for k in OUTS] + [scalar("n2", "i32", N2)],
                elementwise_ref(ty))


def convert_inputs():
    # magnitudes 2^-26 .. 2^17 in turn: f16 subnormals, underflow to zero, overflow to infinity
    u = generate(uniform(-1, 1, 307), "f64", 2048)
    return (u * np.exp2(np.arange(2048) % 44 - 26.0)).astype(np.float32)


def convert_ref(a):
    x = a["x"]
    h = x.astype(np.float16)   # numpy rounds f32 -> f16 to nearest even, overflow to inf
    return {"h": h, "h_back": h.astype(np.float32), "h2": h, "bf2": bf16_bits(x),
            "bf_back": values(bf16_bits(x), "bf16")}


def dot_ref(ty, blocks=8, threads=256, n2=4096):
    def ref(a):
        p = (values(a["x"], ty) * values(a["y"], ty)).reshape(n2, 2).sum(1)
        owner = (np.arange(n2) % (blocks * threads)) // threads
        return {"partial": np.array([p[owner == b].sum() for b in range(blocks)])}
    return ref


def dot_bound(ty, sx, sy):
    # each block fma-accumulates 1024 products in f32 in its own order (then a tree): the
    # classical bound n * 2^-24 * sum |x*y| with the block's own sum, the largest over blocks
    x = values(generate(uniform(-1, 1, sx), ty, 8192), ty)
    y = values(generate(uniform(-1, 1, sy), ty, 8192), ty)
    owner = ((np.arange(8192) // 2) % 2048) // 256
    worst = max(np.abs(x * y)[owner == b].sum() for b in range(8))
    return 1024 * 2.0 ** -24 * worst


def axpy_ref(ty, alpha):
    return lambda a: {"y": alpha * values(a["x"], ty) + values(a["y"], ty)}


CASES = [
    elementwise_case("elementwise_half2", "_Z12elementwise2I7__half2EvPKT_S3_S3_PS1_S4_S4_S4_S4_S4_S4_S4_i",
                     "f16", 301, False),
    elementwise_case("elementwise_bf162", "_Z12elementwise2I14__nv_bfloat162EvPKT_S3_S3_PS1_S4_S4_S4_S4_S4_S4_S4_i",
                     "bf16", 304, True),
    # every conversion is one rounding to nearest even (or exact), checked bit for bit
    Case("convert", "convert_halves", (8,), (128,),
         [buf("x", "f32", 2048, data=convert_inputs()), out("h", "f16", 2048), out("h_back", "f32", 2048),
          out("h2", "f16", 2048), out("bf2", "bf16", 2048), out("bf_back", "f32", 2048),
          scalar("n", "i32", 2048)],
         convert_ref),
    # small integers: every product and partial sum is exact in f32, in any order
    Case("dot_half2", "_Z12dot2_partialI7__half2EvPKT_S3_Pfi", (8,), (256,),
         [buf("x", "f16", 8192, ints(-8, 9, 311)), buf("y", "f16", 8192, ints(-8, 9, 312)),
          out("partial", "f32", 8), scalar("n2", "i32", 4096)],
         dot_ref("f16")),
    Case("dot_bf162", "_Z12dot2_partialI14__nv_bfloat162EvPKT_S3_Pfi", (8,), (256,),
         [buf("x", "bf16", 8192, uniform(-1, 1, 313)), buf("y", "bf16", 8192, uniform(-1, 1, 314)),
          out("partial", "f32", 8, cmp=tol(abs_=dot_bound("bf16", 313, 314))), scalar("n2", "i32", 4096)],
         dot_ref("bf16")),
    # alpha * x + y in f32 (an fma, or a product and a sum), rounded to the storage type: the f32
    # rounding first may move the final rounding by one ulp of the type
    Case("axpy_half", "_Z10axpy_mixedI6__halfEvfPKT_PS1_i", (12,), (256,),
         [scalar("alpha", "f32", 0.75), buf("x", "f16", 3001, uniform(-4, 4, 315)),
          out("y", "f16", 3001, uniform(-4, 4, 316), cmp=tol(ulp=1)), scalar("n", "i32", 3001)],
         axpy_ref("f16", 0.75)),
    Case("axpy_bf16", "_Z10axpy_mixedI13__nv_bfloat16EvfPKT_PS1_i", (12,), (256,),
         [scalar("alpha", "f32", -1.5), buf("x", "bf16", 3001, uniform(-4, 4, 317)),
          out("y", "bf16", 3001, uniform(-4, 4, 318), cmp=tol(ulp=1)), scalar("n", "i32", 3001)],
         axpy_ref("bf16", -1.5)),
]
