"""Launches of src/matmul.cu (written for warpforge's corpus)."""
import numpy as np
from corpus import Case, buf, out, scalar, uniform, ints, tol

LANG = "cuda"
HELDOUT = False


def mm(a, m, n, k, dt=np.float64):
    return a["A"].astype(dt).reshape(m, k) @ a["B"].astype(dt).reshape(k, n)


CASES = [
    # small integers as floats: every product and partial sum is exact
    Case("gemm_f32_tile16", "_Z10gemm_tiledIfLi16EEvPKT_S2_PS0_iii", (3, 3), (16, 16),
         [buf("A", "f32", 40 * 50, ints(-4, 4, 71)), buf("B", "f32", 50 * 36, ints(-4, 4, 72)),
          out("C", "f32", 40 * 36), scalar("M", "i32", 40), scalar("N", "i32", 36), scalar("K", "i32", 50)],
         lambda a: {"C": mm(a, 40, 36, 50)}),
    # K = 30 terms of |a*b| <= 1 in another order: |error| <= 30 * 2^-53 * 30 < 1e-13
    Case("gemm_f64_tile8", "_Z10gemm_tiledIdLi8EEvPKT_S2_PS0_iii", (3, 3), (8, 8),
         [buf("A", "f64", 20 * 30, uniform(-1, 1, 73)), buf("B", "f64", 30 * 18, uniform(-1, 1, 74)),
          out("C", "f64", 20 * 18, cmp=tol(abs_=1e-13)), scalar("M", "i32", 20), scalar("N", "i32", 18),
          scalar("K", "i32", 30)],
         lambda a: {"C": mm(a, 20, 18, 30)}),
    Case("gemm_naive_i32", "gemm_naive_i32", (2, 5), (16, 8),
         [buf("A", "i32", 33 * 40, ints(-100, 100, 75)), buf("B", "i32", 40 * 29, ints(-100, 100, 76)),
          out("C", "i32", 33 * 29), scalar("M", "i32", 33), scalar("N", "i32", 29), scalar("K", "i32", 40)],
         lambda a: {"C": mm(a, 33, 29, 40, np.int64)}),
    # 200 products of values in [-1, 1] per row, fma-accumulated in f32 in another order:
    # |error| <= 200 * 2^-24 * 200 = 2.4e-3 (the worst-case bound; typical errors are ~1e-6)
    Case("gemv_warp", "gemv_warp_per_row", (10,), (128,),
         [buf("A", "f32", 40 * 200, uniform(-1, 1, 77)), buf("x", "f32", 200, uniform(-1, 1, 78)),
          out("y", "f32", 40, cmp=tol(abs_=200 * 200 * 2.0 ** -24)), scalar("rows", "i32", 40),
          scalar("cols", "i32", 200)],
         lambda a: {"y": a["A"].astype(np.float64).reshape(40, 200) @ a["x"]}),
]
