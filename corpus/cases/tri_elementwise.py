"""Launches of src/tri_elementwise.py (written for warpforge's corpus), two Triton builds each."""
import numpy as np
from corpus import buf, out, scalar, uniform, ints, bits, tol, load_src, triton_case

LANG = "triton"
HELDOUT = False
SOURCES = ["tri_elementwise.py"]
K = load_src(__file__, "tri_elementwise.py")
TRITON = {}


def mix(a):
    x = a["a_ptr"].astype(np.uint64)
    h = x ^ (x >> 7)
    h = (h * 0x2C1B3C6D) & 0xFFFFFFFF
    h = (h ^ (h << 5)) & 0xFFFFFFFF
    return {"out_ptr": (h + np.arange(1000, dtype=np.uint64)) & 0xFFFFFFFF}


def silu(x):
    x = x.astype(np.float64)
    return x / (1 + np.exp(-x))


CASES = [
    triton_case(TRITON, "add", K.add_kernel, (4,), 4,
                [buf("x_ptr", "f32", 1000, uniform(-1, 1, 201)), buf("y_ptr", "f32", 1000, uniform(-1, 1, 202)),
                 out("out_ptr", "f32", 1000), scalar("n", "i32", 1000)],
                lambda a: {"out_ptr": (a["x_ptr"].astype(np.float64) + a["y_ptr"]).astype(np.float32)},
                {"BLOCK": 256}),
    # the scale product is rounded in f32 as in numpy; the rest is exact selection
    triton_case(TRITON, "leaky_clamp", K.leaky_clamp_kernel, (8,), 2,
                [buf("x_ptr", "f32", 1000, uniform(-3, 3, 203)), out("out_ptr", "f32", 1000),
                 scalar("n", "i32", 1000), scalar("scale", "f32", 0.7), scalar("slope", "f32", 0.125)],
                lambda a: (lambda x: {"out_ptr": np.clip(np.where(x > 0, x, x * np.float32(0.125)), -1, 1)})(
                    a["x_ptr"] * np.float32(0.7)),
                {"BLOCK": 128}),
    triton_case(TRITON, "int_mix", K.int_mix_kernel, (4,), 4,
                [buf("a_ptr", "u32", 1000, bits(204)), out("out_ptr", "u32", 1000), scalar("n", "i32", 1000)],
                mix, {"BLOCK": 256}),
    # Triton's sigmoid is 1 / (1 + exp(-x)) with ex2.approx (2 ulp) and a full-precision division:
    # within 1e-6 relative of the exact value
    triton_case(TRITON, "silu", K.silu_kernel, (4,), 4,
                [buf("x_ptr", "f32", 1000, uniform(-6, 6, 205)), out("out_ptr", "f32", 1000, cmp=tol(abs_=1e-7, rel=1e-6)),
                 scalar("n", "i32", 1000)],
                lambda a: {"out_ptr": silu(a["x_ptr"])}, {"BLOCK": 256}),
]
