"""Launches of src/blur.cu (written for warpforge's corpus). Held out: chosen before anything ran."""
import numpy as np
from corpus import Case, buf, out, scalar, ints

LANG = "cuda"
HELDOUT = True

W, H, C = 37, 21, 3


def box_sums(a):
    x = a["in"].astype(np.float64).reshape(C, H, W)
    p = np.pad(x, ((0, 0), (1, 1), (1, 1)), mode="edge")
    return sum(p[:, dy:dy + H, dx:dx + W] for dy in range(3) for dx in range(3)).reshape(-1)


def box_int(a):
    s = box_sums(a).astype(np.int64)
    return {"out": np.sign(s) * (np.abs(s) // 9)}   # C division truncates toward zero


# The inputs are small integers, so the nine-term sum is exact in f32 and f64 whatever the order;
# `sum / 9` is then correctly rounded (div.rn). For f32 numpy's f64 quotient rounded to f32 is the
# same value: double rounding through 53 bits is harmless for a quotient of 24-bit operands.
CASES = [
    Case("box_i32", "_Z6box3x3IiEvPKT_PS0_ii", (3, 2, C), (16, 16),
         [buf("in", "i32", W * H * C, ints(-100, 100, 215)), out("out", "i32", W * H * C),
          scalar("width", "i32", W), scalar("height", "i32", H)],
         box_int),
    Case("box_f32", "_Z6box3x3IfEvPKT_PS0_ii", (3, 2, C), (16, 16),
         [buf("in", "f32", W * H * C, ints(-100, 100, 216)), out("out", "f32", W * H * C),
          scalar("width", "i32", W), scalar("height", "i32", H)],
         lambda a: {"out": (box_sums(a) / 9).astype(np.float32)}),
    Case("box_f64", "_Z6box3x3IdEvPKT_PS0_ii", (3, 2, C), (16, 16),
         [buf("in", "f64", W * H * C, ints(-100, 100, 217)), out("out", "f64", W * H * C),
          scalar("width", "i32", W), scalar("height", "i32", H)],
         lambda a: {"out": box_sums(a) / 9}),
]
