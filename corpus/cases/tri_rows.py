"""Launches of src/tri_rows.py (written for warpforge's corpus), two Triton builds each."""
import numpy as np
from corpus import buf, out, scalar, uniform, ints, tol, load_src, triton_case

LANG = "triton"
HELDOUT = True
SOURCES = ["tri_rows.py"]
K = load_src(__file__, "tri_rows.py")
TRITON = {}


def softmax(x):
    x = x.astype(np.float64).reshape(12, 100)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def rms(a):
    x = a["x_ptr"].astype(np.float64).reshape(12, 100)
    return {"out_ptr": x / np.sqrt((x * x).mean(axis=1, keepdims=True) + np.float64(np.float32(1e-6))) * a["w_ptr"]}


CASES = [
    triton_case(TRITON, "row_sum", K.row_sum_kernel, (12,), 4,
                [buf("x_ptr", "i32", 1200, ints(-1000, 1000, 211)), out("out_ptr", "i32", 12),
                 scalar("cols", "i32", 100)],
                lambda a: {"out_ptr": a["x_ptr"].reshape(12, 100).sum(1)}, {"BLOCK": 128}),
    # exp within 2 ulp, a 100-term sum in another order (100 * 2^-24 relative), one division
    triton_case(TRITON, "softmax", K.softmax_kernel, (12,), 4,
                [buf("x_ptr", "f32", 1200, uniform(-4, 4, 212)), out("out_ptr", "f32", 1200, cmp=tol(rel=1e-5)),
                 scalar("cols", "i32", 100)],
                lambda a: {"out_ptr": softmax(a["x_ptr"])}, {"BLOCK": 128}),
    # the mean square of 100 values within 100 * 2^-24 relative, rsqrt.approx within 2^-22.9:
    # outputs (|x * w| <= 2 * 1.5 times rstd <= ~2) within 2e-5 absolute
    triton_case(TRITON, "rmsnorm", K.rmsnorm_kernel, (12,), 4,
                [buf("x_ptr", "f32", 1200, uniform(-2, 2, 213)), buf("w_ptr", "f32", 100, uniform(0.5, 1.5, 214)),
                 out("out_ptr", "f32", 1200, cmp=tol(abs_=2e-5)), scalar("cols", "i32", 100),
                 scalar("eps", "f32", 1e-6)],
                rms, {"BLOCK": 128}),
]
