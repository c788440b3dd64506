"""Launches of src/async_copy.cu (written for warpforge's corpus). Held out (marked before the
source was first compiled): nobody tunes the simulator on these."""
import numpy as np
from corpus import Case, buf, out, scalar, uniform, ints

LANG = "cuda"
HELDOUT = True


def reverse_tiles(a, n=2820, tile=512):
    x, y = a["in"], np.zeros(n, np.float32)
    for base in range(0, n, tile):
        m = min(tile, n - base)
        y[base:base + m] = x[base:base + m][::-1]
    return {"out": y}


def stencil(a, n=1000):
    x = np.concatenate([np.zeros(3, np.int64), a["x"].astype(np.int64), np.zeros(3, np.int64)])
    w = [1, 2, 3, 4, 3, 2, 1]
    return {"out": sum(w[k] * x[k:k + n] for k in range(7))}


def chunks(a):
    s = a["in"].astype(np.int64).reshape(-1, 256)
    return {"out": s + np.roll(s, -128, axis=1)}


def tile_sums(a, n=5636, tile=1024):
    x = a["x"].astype(np.int64)
    return {"sums": [x[b:b + tile].sum() for b in range(0, n, tile)]}


# every output is a copy or an integer sum: exact
CASES = [
    Case("tile_reverse", "tile_reverse_pipeline", (6,), (128,),
         [buf("in", "f32", 2820, uniform(-1, 1, 401)), out("out", "f32", 2820), scalar("n", "i32", 2820)],
         reverse_tiles),
    Case("stencil", "stencil_pipeline", (8,), (128,),
         [buf("x", "i32", 1000, ints(-100, 100, 402)), out("out", "i32", 1000), scalar("n", "i32", 1000)],
         stencil),
    Case("double_buffered", "chunks_double_buffered", (4,), (64,),
         [buf("in", "i32", 5120, ints(-1 << 20, 1 << 20, 403)), out("out", "i32", 5120),
          scalar("chunks", "i32", 5)],
         chunks),
    Case("transpose_cg", "transpose_cg_async", (3, 2), (32, 8),
         [buf("in", "f32", 50 * 70, uniform(-1, 1, 404)), out("out", "f32", 50 * 70),
          scalar("rows", "i32", 50), scalar("cols", "i32", 70)],
         lambda a: {"out": a["in"].reshape(50, 70).T}),
    Case("tile_sums_barrier", "tile_sums_barrier", (6,), (256,),
         [buf("x", "i32", 5636, ints(-1000, 1000, 405)), out("sums", "i32", 6), scalar("n", "i32", 5636)],
         tile_sums),
]
