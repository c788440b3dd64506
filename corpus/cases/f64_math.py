"""Launches of src/f64_math.cu (written for warpforge's corpus)."""
import numpy as np
from corpus import Case, buf, out, scalar, uniform, generate, fma64, tol

LANG = "cuda"
HELDOUT = False
POLY = [1.0, -0.5, 0.25, -0.125, 0.0625, -0.03125]


def horner(x):
    o = []
    for v in x:
        acc = POLY[5]
        for k in range(4, -1, -1):
            acc = fma64(acc, v, POLY[k])
        o.append(acc)
    return o


def round_toward_zero_f32(x):
    f = x.astype(np.float32)
    over = np.abs(f.astype(np.float64)) > np.abs(x)
    return np.where(over, np.nextafter(f, np.float32(0)), f)


# the first half uniform, the second half exact halves (ties for the round-to-nearest-even cast)
CONV_X = generate(uniform(-1000, 1000, 134), "f64", 200)
CONV_X[100:] = np.round(CONV_X[100:]) + 0.5


def conversions(a):
    x = a["x"]
    ints_ = np.stack([np.trunc(x), np.floor(x), np.ceil(x), np.rint(x)], axis=1).astype(np.int32)
    floats = np.stack([x.astype(np.float32), round_toward_zero_f32(x)], axis=1)
    return {"ints": ints_.reshape(-1), "floats": floats.reshape(-1),
            "wide": np.trunc(x * 1e9).astype(np.int64)}


CASES = [
    # explicit fma(): reproduced exactly with rational arithmetic
    Case("horner", "horner_f64", (4,), (128,),
         [buf("x", "f64", 500, uniform(-2, 2, 131)), out("y", "f64", 500), scalar("n", "i32", 500)],
         lambda a: {"y": horner(a["x"])}),
    # three Newton steps from a single-precision seed (relative error 2^-22) reach the rounding
    # noise of the iteration itself: a few ulp from the correctly rounded 1/sqrt(x); sqrt and
    # division are correctly rounded (exact)
    Case("newton", "newton_rsqrt_f64", (2,), (128,),
         [buf("x", "f64", 200, uniform(0.5, 100, 132)), out("r", "f64", 200, cmp=tol(ulp=4)),
          out("s", "f64", 200), out("q", "f64", 200), scalar("n", "i32", 200)],
         lambda a: {"r": 1 / np.sqrt(a["x"]), "s": np.sqrt(a["x"]), "q": 1 / a["x"]}),
    # 3000 products in [-1, 1], about 750 per block in another order: |error| <= 750 * 2^-53 * 750
    Case("dot", "dot_f64", (4,), (128,),
         [buf("a", "f64", 3000, uniform(-1, 1, 135)), buf("b", "f64", 3000, uniform(-1, 1, 136)),
          out("partial", "f64", 4, cmp=tol(abs_=750 * 750 * 2.0 ** -53)), scalar("n", "i32", 3000)],
         lambda a: {"partial": [sum((a["a"][s:s + 128] * a["b"][s:s + 128]).sum()
                                    for s in range(b * 128, 3000, 512)) for b in range(4)]}),
    Case("conversions", "conversions", (2,), (128,),
         [buf("x", "f64", 200, data=CONV_X), out("ints", "i32", 800), out("floats", "f32", 400),
          out("wide", "i64", 200), scalar("n", "i32", 200)],
         conversions),
]
