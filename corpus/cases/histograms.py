"""Launches of src/histograms.cu (written for warpforge's corpus)."""
import numpy as np
from corpus import Case, buf, out, scalar, ints, bits, fill, multiset

LANG = "cuda"
HELDOUT = False


def minmax(a):
    mins = np.full(50, 2**31 - 1, np.int64)
    maxs = np.full(50, -2**31, np.int64)
    np.minimum.at(mins, a["keys"], a["values"])
    np.maximum.at(maxs, a["keys"], a["values"])
    return {"mins": mins, "maxs": maxs}


def compact(a):
    pos = a["in"][a["in"] > 0]
    return {"out": np.concatenate([pos, np.zeros(1000 - len(pos), np.int32)]), "count": [len(pos)]}


CASES = [
    Case("hist64_shared", "hist64_shared", (4,), (256,),
         [buf("data", "u8", 8192, bits(51)), out("hist", "u32", 64), scalar("n", "i32", 8192)],
         lambda a: {"hist": np.bincount(a["data"] & 63, minlength=64)}),
    Case("hist_global", "hist_global", (16,), (256,),
         [buf("keys", "i32", 4000, ints(-5, 105, 52)), out("hist", "i32", 100), scalar("nbins", "i32", 100),
          scalar("n", "i32", 4000)],
         lambda a: {"hist": np.bincount(a["keys"][(a["keys"] >= 0) & (a["keys"] < 100)], minlength=100)}),
    Case("bucket_minmax", "bucket_minmax", (8,), (256,),
         [buf("keys", "i32", 2000, ints(0, 50, 53)), buf("values", "i32", 2000, ints(-100000, 100000, 54)),
          out("mins", "i32", 50, fill(2**31 - 1)), out("maxs", "i32", 50, fill(-2**31)), scalar("n", "i32", 2000)],
         minmax),
    Case("compact_positive", "compact_positive", (4,), (256,),
         [buf("in", "i32", 1000, ints(-100, 100, 55)), out("out", "i32", 1000, cmp=multiset()),
          out("count", "i32", 1), scalar("n", "i32", 1000)],
         compact),
]
