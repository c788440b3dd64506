"""Launches of src/scans.cu (written for warpforge's corpus)."""
import numpy as np
from corpus import Case, buf, out, scalar, ints

LANG = "cuda"
HELDOUT = False


def segmented(x, seg, n, exclusive=False):
    x = np.concatenate([x, np.zeros((-len(x)) % seg, x.dtype)]).reshape(-1, seg)
    c = np.cumsum(x, axis=1)
    if exclusive:
        c = c - x
    return c.reshape(-1)[:n]


CASES = [
    Case("warp_scan", "warp_inclusive_scan", (8,), (128,),
         [buf("in", "i32", 1000, ints(-50, 50, 41)), out("out", "i32", 1000), scalar("n", "i32", 1000)],
         lambda a: {"out": segmented(a["in"], 32, 1000)}),
    Case("block_scan", "block_exclusive_scan", (4,), (256,),
         [buf("in", "i32", 1000, ints(-50, 50, 42)), out("out", "i32", 1000), out("block_sums", "i32", 4),
          scalar("n", "i32", 1000)],
         lambda a: {"out": segmented(a["in"], 256, 1000, True),
                    "block_sums": np.concatenate([a["in"], np.zeros(24, np.int32)]).reshape(4, 256).sum(1)}),
    # small integers as floats: the partial sums are exact in any order
    Case("blelloch", "blelloch_scan", (4,), (128,),
         [buf("in", "f32", 1000, ints(-8, 8, 43)), out("out", "f32", 1000), scalar("n", "i32", 1000)],
         lambda a: {"out": segmented(a["in"].astype(np.float64), 256, 1000, True)}, shared=1024),
    Case("add_offsets", "add_block_offsets", (8,), (128,),
         [out("data", "i32", 1000, ints(-1000, 1000, 44)), buf("offsets", "i32", 8, ints(0, 100000, 45)),
          scalar("n", "i32", 1000)],
         lambda a: {"data": a["data"] + np.repeat(a["offsets"], 128)[:1000]}),
]
