"""Launches of src/atomics64.cu (written for warpforge's corpus)."""
import numpy as np
from corpus import Case, buf, out, scalar, ints, bits

LANG = "cuda"
HELDOUT = False

U64_MAX = np.full(37, 2**64 - 1, np.uint64)


def minmax(a):
    k = a["keys"]
    b = (k % np.uint64(37)).astype(np.int64)
    lo, hi = np.full(37, 2**64 - 1, np.uint64), np.zeros(37, np.uint64)
    np.minimum.at(lo, b, k)
    np.maximum.at(hi, b, k)
    return {"lo": lo, "hi": hi}


def bitmap(a):
    m = np.zeros(64, np.uint64)
    for k in np.unique(a["keys"]):
        m[k >> 6] |= np.uint64(1) << np.uint64(k & 63)
    return {"bitmap": m, "distinct": [len(np.unique(a["keys"]))]}


def intersect(a):
    both = a["a"] & a["b"]
    return {"both": both, "count": [sum(bin(int(w)).count("1") for w in both)]}


def stats(a):
    x = a["fixed"].astype(np.float64) / 1024
    # x = k / 2^10 with |k| <= 1000: x, x*x and every partial sum are exact in f64, so the
    # order of the atomicAdds does not matter
    return {"stats": [x.sum(), (x * x).sum(), x.max()]}


CASES = [
    # 32-bit words summed in 64 bits: exact, wraps nowhere (5000 * 2^32 < 2^64)
    Case("sum_u64", "sum_u64_atomic", (4,), (256,),
         [buf("words", "u32", 5000, bits(208)), out("total", "u64", 1), scalar("n", "i32", 5000)],
         lambda a: {"total": [int(a["words"].astype(np.uint64).sum())]}),
    Case("bucket_minmax_u64", "bucket_minmax_u64", (8,), (256,),
         [buf("keys", "u64", 2000, bits(209)), out("lo", "u64", 37, data=U64_MAX), out("hi", "u64", 37),
          scalar("buckets", "i32", 37), scalar("n", "i32", 2000)],
         minmax),
    Case("bitmap_build", "bitmap_build", (12,), (256,),
         [buf("keys", "i32", 3000, ints(0, 4096, 211)), out("bitmap", "u64", 64), out("distinct", "u64", 1),
          scalar("n", "i32", 3000)],
         bitmap),
    Case("bitmap_intersect", "bitmap_intersect", (4,), (256,),
         [buf("a", "u64", 1000, bits(212)), buf("b", "u64", 1000, bits(213)), out("both", "u64", 1000),
          out("count", "u64", 1), scalar("words", "i32", 1000)],
         intersect),
    Case("f64_stats", "f64_stats", (8,), (256,),
         [buf("fixed", "i32", 2000, ints(-1000, 1001, 214)),
          out("stats", "f64", 3, data=np.array([0.0, 0.0, -np.inf])), scalar("n", "i32", 2000)],
         stats),
]
