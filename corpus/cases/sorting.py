"""Launches of src/sorting.cu (written for warpforge's corpus)."""
import numpy as np
from corpus import Case, buf, out, ints, bits

LANG = "cuda"
HELDOUT = True


def chunks_sorted(x, per):
    return np.sort(x.reshape(-1, per), axis=1).reshape(-1)


CASES = [
    Case("bitonic512", "bitonic_sort_block", (4,), (256,),
         [out("keys", "u32", 2048, bits(91))],
         lambda a: {"keys": chunks_sorted(a["keys"], 512)}, shared=2048),
    Case("rank_sort", "rank_sort", (4,), (128,),
         [buf("in", "f32", 512, ints(-20, 20, 92)), out("out", "f32", 512)],
         lambda a: {"out": chunks_sorted(a["in"], 128)}),
    Case("warp_odd_even", "warp_odd_even_sort", (4,), (64,),
         [buf("in", "i32", 256, ints(-1000, 1000, 93)), out("out", "i32", 256)],
         lambda a: {"out": chunks_sorted(a["in"], 32)}),
]
