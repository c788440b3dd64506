"""Launches of src/reductions.cu (written for warpforge's corpus)."""
import numpy as np
from corpus import Case, buf, out, scalar, uniform, ints, tol

LANG = "cuda"
HELDOUT = False
U32, U64 = 2.0 ** -24, 2.0 ** -53


def blocks(x, per, fn, count):
    return np.array([fn(x[b * per:(b + 1) * per]) for b in range(count)])


CASES = [
    # small integers as floats: every partial sum is exact, so any order gives the same result
    Case("sum_shared", "reduce_sum_shared", (10,), (256,),
         [buf("in", "f32", 5000, ints(-8, 8, 31)), out("out", "f32", 10), scalar("n", "i32", 5000)],
         lambda a: {"out": blocks(a["in"].astype(np.float64), 512, np.sum, 10)}),
    Case("sum_atomic", "reduce_sum_atomic", (4,), (256,),
         [buf("in", "i32", 10000, ints(-1000, 1000, 32)), out("total", "i32", 1), scalar("n", "i32", 10000)],
         lambda a: {"total": [a["in"].sum()]}),
    Case("max_i32", "_Z9block_maxIiEvPKT_PS0_i", (8,), (256,),
         [buf("in", "i32", 2000, ints(-1000000, 1000000, 33)), out("out", "i32", 8), scalar("n", "i32", 2000)],
         lambda a: {"out": blocks(a["in"], 256, np.max, 8)}),
    Case("max_f32", "_Z9block_maxIfEvPKT_PS0_i", (8,), (256,),
         [buf("in", "f32", 2000, uniform(-100, 100, 34)), out("out", "f32", 8), scalar("n", "i32", 2000)],
         lambda a: {"out": blocks(a["in"], 256, np.max, 8)}),
    Case("max_f64", "_Z9block_maxIdEvPKT_PS0_i", (6,), (256,),
         [buf("in", "f64", 1500, uniform(-1e6, 1e6, 35)), out("out", "f64", 6), scalar("n", "i32", 1500)],
         lambda a: {"out": blocks(a["in"], 256, np.max, 6)}),
    # 4000 values in [-1, 1], each block sums ~1000 of them in its own order: the classical bound
    # n * u * sum|x| <= 1000 * 2^-53 * 1000 ~ 1.1e-10 on each block's sum.
    Case("sum_f64_dyn", "reduce_sum_f64_dyn", (4,), (256,),
         [buf("in", "f64", 4000, uniform(-1, 1, 36)), out("out", "f64", 4, cmp=tol(abs_=1.2e-10)),
          scalar("n", "i32", 4000)],
         lambda a: {"out": [sum(a["in"][s:s + 256].sum() for s in range(b * 256, 4000, 1024))
                            for b in range(4)]},
         shared=2048),
    # 100 values in [-1, 1] per row summed in f32 in another order: |error| <= 100 * 2^-24 * 100
    Case("row_sums", "row_sums", (1, 8), (32, 4),
         [buf("m", "f32", 3000, uniform(-1, 1, 37)), out("sums", "f32", 30, cmp=tol(abs_=100 * 100 * U32)),
          scalar("rows", "i32", 30), scalar("cols", "i32", 100)],
         lambda a: {"sums": a["m"].astype(np.float64).reshape(30, 100).sum(axis=1)}),
]
