"""Launches of src/segments.cu (written for warpforge's corpus)."""
import numpy as np
from corpus import Case, buf, out, scalar, ints, uniform, bits, generate

LANG = "cuda"
HELDOUT = False

# about one head in seven, so that segments run across several lanes
HEADS = (generate(ints(0, 7, 202), "i32", 1000) == 0).astype(np.uint8)
# sorted keys 0..59 for reduce-by-key (runs of about 33, crossing warp and block boundaries)
SORTED_KEYS = np.sort(generate(ints(0, 60, 203), "i32", 2000))
# runs of about four equal values (a new value where the generator gives 0)
RUNS = (np.cumsum(generate(ints(0, 4, 205), "i32", 1000) == 0) % 5).astype(np.int32)


def seg_scan(a):
    v, h = a["vals"].astype(np.int64), a["heads"]
    o = np.zeros(1000, np.int64)
    for i in range(1000):
        o[i] = v[i] if (h[i] or i % 32 == 0) else o[i - 1] + v[i]
    return {"out": o}


def by_key(a):
    s = np.zeros(60, np.int64)
    np.add.at(s, a["keys"], a["vals"])
    return {"sums": s}


def rle(a):
    x, n = a["in"], 1000
    vals, lens, counts = np.zeros(1024, np.int64), np.zeros(1024, np.int64), np.zeros(32, np.int64)
    for w in range(32):
        chunk = x[w * 32:min(n, w * 32 + 32)]
        r = -1
        for j, v in enumerate(chunk):
            if j == 0 or v != chunk[j - 1]:
                r += 1
                vals[w * 32 + r] = v
            lens[w * 32 + r] += 1
        counts[w] = r + 1
    return {"run_vals": vals, "run_lens": lens, "run_counts": counts}


def prefix_max(a):
    x = np.concatenate([a["in"], np.full(24, -np.inf, np.float32)]).reshape(4, 256)
    return {"out": np.maximum.accumulate(x, axis=1).reshape(-1)[:1000]}   # max is exact


def digits(shift):
    def ref(a):
        d = (a["keys"].astype(np.int64) >> shift) & 15
        blocks = np.arange(3000) // 256
        c = np.zeros((12, 16), np.int64)
        np.add.at(c, (blocks, d), 1)
        return {"counts": c.reshape(-1)}
    return ref


CASES = [
    Case("seg_scan", "seg_scan_warp", (4,), (256,),
         [buf("vals", "i32", 1000, ints(-100, 100, 201)), buf("heads", "u8", 1000, data=HEADS),
          out("out", "i32", 1000), scalar("n", "i32", 1000)],
         seg_scan),
    # integer sums: the same in any order of the atomics
    Case("reduce_by_key", "reduce_by_key", (8,), (256,),
         [buf("keys", "i32", 2000, data=SORTED_KEYS), buf("vals", "i32", 2000, ints(-1000, 1000, 204)),
          out("sums", "i32", 60), scalar("n", "i32", 2000)],
         by_key),
    Case("rle", "rle_warp", (4,), (256,),
         [buf("in", "i32", 1000, data=RUNS), out("run_vals", "i32", 1024), out("run_lens", "i32", 1024),
          out("run_counts", "i32", 32), scalar("n", "i32", 1000)],
         rle),
    Case("prefix_max", "block_prefix_max", (4,), (256,),
         [buf("in", "f32", 1000, uniform(-1, 1, 206)), out("out", "f32", 1000), scalar("n", "i32", 1000)],
         prefix_max),
    Case("radix_digits_lo", "radix_digit_counts", (12,), (256,),
         [buf("keys", "u32", 3000, bits(207)), out("counts", "u32", 192), scalar("shift", "i32", 0),
          scalar("n", "i32", 3000)],
         digits(0)),
    Case("radix_digits_hi", "radix_digit_counts", (12,), (256,),
         [buf("keys", "u32", 3000, bits(207)), out("counts", "u32", 192), scalar("shift", "i32", 28),
          scalar("n", "i32", 3000)],
         digits(28)),
]
