"""Launches of src/transpose.cu (written for warpforge's corpus)."""
import numpy as np
from corpus import Case, buf, out, scalar, uniform, bits

LANG = "cuda"
HELDOUT = False

CASES = [
    Case("naive", "transpose_naive", (5, 3), (16, 16),
         [out("out", "f32", 3840), buf("in", "f32", 3840, uniform(-1, 1, 61)),
          scalar("width", "i32", 80), scalar("height", "i32", 48)],
         lambda a: {"out": a["in"].reshape(48, 80).T}),
    Case("tiled", "transpose_tiled", (3, 2), (32, 8),
         [out("out", "f32", 3840), buf("in", "f32", 3840, uniform(-1, 1, 62)),
          scalar("width", "i32", 80), scalar("height", "i32", 48)],
         lambda a: {"out": a["in"].reshape(48, 80).T}),
    Case("copy_u16", "copy_tiled_u16", (3, 2), (32, 8),
         [out("out", "u16", 2800), buf("in", "u16", 2800, bits(63)),
          scalar("width", "i32", 70), scalar("height", "i32", 40)],
         lambda a: {"out": a["in"] ^ 0x5a5a}),
]
