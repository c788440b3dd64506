"""Launches of src/vector_ops.cu (written for warpforge's corpus)."""
import numpy as np
from corpus import Case, buf, out, scalar, uniform, ints, exact, tol, fma64

LANG = "cuda"
HELDOUT = False
F64 = np.float64

# Where nvcc/NVRTC contract a*x+y to an fma (their default) the result is rounded once, numpy's
# f64 reference rounds the product and the sum separately (each exact or nearly so in f64, then
# rounded to f32): the two may differ by one unit in the last place.
FMA_ULP = tol(ulp=1)

CASES = [
    Case("vec_add", "vec_add", (8,), (128,),
         [buf("a", "f32", 1000, uniform(-1, 1, 11)), buf("b", "f32", 1000, uniform(-1, 1, 12)),
          out("c", "f32", 1000), scalar("n", "i32", 1000)],
         lambda a: {"c": (a["a"].astype(F64) + a["b"]).astype(np.float32)}),   # f64 sum exact
    Case("saxpy", "saxpy_grid_stride", (4,), (128,),
         [scalar("n", "i32", 3000), scalar("alpha", "f32", 1.5),
          buf("x", "f32", 3000, uniform(-1, 1, 13)), out("y", "f32", 3000, uniform(-1, 1, 14), FMA_ULP)],
         lambda a: {"y": (1.5 * a["x"].astype(F64) + a["y"]).astype(np.float32)}),
    Case("scale_bias_i32", "_Z10scale_biasIiEvPT_PKS0_S0_S0_i", (7,), (128,),
         [out("out", "i32", 777), buf("in", "i32", 777, ints(-1000, 1000, 15)),
          scalar("scale", "i32", 7), scalar("bias", "i32", -3), scalar("n", "i32", 777)],
         lambda a: {"out": a["in"] * 7 - 3}),
    Case("scale_bias_f32", "_Z10scale_biasIfEvPT_PKS0_S0_S0_i", (7,), (128,),
         [out("out", "f32", 777, cmp=FMA_ULP), buf("in", "f32", 777, uniform(-4, 4, 16)),
          scalar("scale", "f32", 0.75), scalar("bias", "f32", 0.125), scalar("n", "i32", 777)],
         lambda a: {"out": (a["in"].astype(F64) * 0.75 + 0.125).astype(np.float32)}),
    Case("scale_bias_f64", "_Z10scale_biasIdEvPT_PKS0_S0_S0_i", (4,), (128,),
         [out("out", "f64", 500), buf("in", "f64", 500, uniform(-4, 4, 17)),
          scalar("scale", "f64", 1.25), scalar("bias", "f64", -0.3), scalar("n", "i32", 500)],
         lambda a: {"out": [fma64(v, 1.25, -0.3) for v in a["in"]]}),   # every build contracts in f64
    Case("clamp", "clamp_inplace", (8,), (128,),
         [out("x", "f32", 1000, uniform(-2, 2, 18)), scalar("n", "i32", 1000),
          scalar("lo", "f32", -1.0), scalar("hi", "f32", 0.5)],
         lambda a: {"x": np.clip(a["x"], -1.0, 0.5)}),
    Case("mul_float4", "vec_mul_float4", (2,), (128,),
         [buf("a", "f32", 1026, uniform(-3, 3, 19)), buf("b", "f32", 1026, uniform(-3, 3, 20)),
          out("c", "f32", 1026), scalar("n", "i32", 1026)],
         lambda a: {"c": (a["a"].astype(F64) * a["b"]).astype(np.float32)}),   # f64 product exact
    Case("daxpy", "daxpy", (4,), (128,),
         [scalar("n", "i32", 500), scalar("a", "f64", -0.3), buf("x", "f64", 500, uniform(-1, 1, 21)),
          out("y", "f64", 500, uniform(-1, 1, 22))],
         lambda a: {"y": [fma64(-0.3, x, y) for x, y in zip(a["x"], a["y"])]}),
    Case("int_divmod", "int_divmod", (4,), (128,),
         [buf("a", "i32", 500, ints(-100000, 100000, 23)), buf("b", "i32", 500, ints(1, 40, 24)),
          out("q", "i32", 500), out("r", "i32", 500), out("m", "i32", 500), scalar("n", "i32", 500)],
         lambda a: (lambda x, y: {"q": np.sign(x) * (np.abs(x) // y),
                                  "r": x - np.sign(x) * (np.abs(x) // y) * y,
                                  "m": np.maximum(np.abs(x), np.minimum(x, y))})(a["a"].astype(np.int64), a["b"])),
]
