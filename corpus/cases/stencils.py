"""Launches of src/stencils.cu (written for warpforge's corpus)."""
import numpy as np
from corpus import Case, buf, out, scalar, uniform, ints, tol

LANG = "cuda"
HELDOUT = True


def stencil1d(x):
    p = np.concatenate([np.zeros(3, np.int64), x, np.zeros(3, np.int64)])
    return sum(p[3 + o:3 + o + len(x)] * (4 - abs(o)) for o in range(-3, 4))


def jacobi(x, nx, ny):
    g = x.reshape(ny, nx)
    o = g.copy()
    # the kernel's order: ((N + S) + W) + E in f32, then * 0.25 (exact)
    inner = ((g[:-2, 1:-1] + g[2:, 1:-1]) + g[1:-1, :-2]) + g[1:-1, 2:]
    o[1:-1, 1:-1] = np.float32(0.25) * inner
    return o


def conv(x):
    taps = [0.0625, 0.25, 0.375, 0.25, 0.0625]
    n = len(x)
    return sum(taps[k] * x.astype(np.float64)[np.clip(np.arange(n) + k - 2, 0, n - 1)] for k in range(5))


def laplace(x, nx, ny, nz):
    g = x.reshape(nz, ny, nx).astype(np.int64)
    o = np.zeros_like(g)
    c = g[1:-1, 1:-1, 1:-1]
    o[1:-1, 1:-1, 1:-1] = (g[1:-1, 1:-1, :-2] + g[1:-1, 1:-1, 2:] + g[1:-1, :-2, 1:-1] + g[1:-1, 2:, 1:-1]
                           + g[:-2, 1:-1, 1:-1] + g[2:, 1:-1, 1:-1] - 6 * c)
    return o


CASES = [
    Case("stencil1d", "stencil1d", (8,), (128,),
         [buf("in", "i32", 1000, ints(-1000, 1000, 81)), out("out", "i32", 1000), scalar("n", "i32", 1000)],
         lambda a: {"out": stencil1d(a["in"].astype(np.int64))}),
    Case("jacobi2d", "jacobi2d", (3, 2), (16, 16),
         [buf("in", "f32", 1200, uniform(-1, 1, 82)), out("out", "f32", 1200), scalar("nx", "i32", 40),
          scalar("ny", "i32", 30)],
         lambda a: {"out": jacobi(a["in"], 40, 30)}),
    # 5 taps on values in [-1, 1], f32 accumulation (fused or not): 10 roundings of at most
    # 2^-24 each on partial sums below 1: |error| <= 6e-7
    Case("conv1d_const", "conv1d_const", (8,), (128,),
         [buf("in", "f32", 1000, uniform(-1, 1, 83)), out("out", "f32", 1000, cmp=tol(abs_=6e-7)),
          scalar("n", "i32", 1000)],
         lambda a: {"out": conv(a["in"])}),
    Case("laplace3d", "laplace3d", (2, 3, 2), (8, 4, 4),
         [buf("in", "i32", 960, ints(-500, 500, 84)), out("out", "i32", 960), scalar("nx", "i32", 12),
          scalar("ny", "i32", 10), scalar("nz", "i32", 8)],
         lambda a: {"out": laplace(a["in"], 12, 10, 8)}),
]
