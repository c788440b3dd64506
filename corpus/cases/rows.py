"""Launches of src/rows.cu (written for warpforge's corpus)."""
import numpy as np
from corpus import Case, buf, out, scalar, uniform, tol

LANG = "cuda"
HELDOUT = False


def softmax(x, rows, cols):
    x = x.astype(np.float64).reshape(rows, cols)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def layernorm(a, rows, cols, eps):
    x = a["x"].astype(np.float64).reshape(rows, cols)
    mean = x.mean(axis=1, keepdims=True)
    var = (x * x).mean(axis=1, keepdims=True) - mean * mean
    return (x - mean) / np.sqrt(var + eps) * a["gamma"] + a["beta"]


def l2norm(x, rows, cols):
    x = x.astype(np.float64).reshape(rows, cols)
    return x / np.sqrt((x * x).sum(axis=1, keepdims=True))


CASES = [
    # expf is within 2 ulp; the row sum of 300 terms in (0, 1] in f32, in another order, is within
    # 300 * 2^-24 relative (1.8e-5); the reciprocal and product add 2 ulp: rel 2e-5 in all
    Case("softmax", "softmax_rows", (16,), (128,),
         [buf("x", "f32", 16 * 300, uniform(-4, 4, 111)), out("y", "f32", 16 * 300, cmp=tol(rel=2e-5)),
          scalar("cols", "i32", 300)],
         lambda a: {"y": softmax(a["x"], 16, 300)}),
    # sums of 256 values (|x| <= 2, x^2 <= 4) in f32: relative errors <= 256 * 2^-24 = 1.5e-5 on
    # the mean and the mean square, rsqrtf within 2 ulp; |x - mean| * gamma <= 3 * 1.5, so the
    # output is within 2e-4 absolute
    Case("layernorm", "layernorm_rows", (16,), (128,),
         [buf("x", "f32", 16 * 256, uniform(-2, 2, 112)), buf("gamma", "f32", 256, uniform(0.5, 1.5, 113)),
          buf("beta", "f32", 256, uniform(-0.5, 0.5, 114)), out("y", "f32", 16 * 256, cmp=tol(abs_=2e-4)),
          scalar("cols", "i32", 256), scalar("eps", "f32", 1e-5)],
         lambda a: {"y": layernorm(a, 16, 256, np.float64(np.float32(1e-5)))}),
    # the sum of squares of 256 values within 256 * 2^-24 relative, sqrt and division correctly
    # rounded: rel 2e-5 (abs 1e-7 for elements near 0)
    Case("l2norm", "l2norm_rows", (16,), (128,),
         [buf("x", "f32", 16 * 256, uniform(-1, 1, 115)), out("y", "f32", 16 * 256, cmp=tol(abs_=1e-7, rel=2e-5)),
          scalar("cols", "i32", 256)],
         lambda a: {"y": l2norm(a["x"], 16, 256)}),
]
