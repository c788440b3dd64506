"""Launches of src/tri_dot.py (written for warpforge's corpus), two Triton builds each."""
import numpy as np
from corpus import buf, out, scalar, uniform, tol, values, load_src, triton_case

LANG = "triton"
HELDOUT = False
SOURCES = ["tri_dot.py"]
K = load_src(__file__, "tri_dot.py")
TRITON = {}

M, N, KK = 48, 40, 72   # ragged: none a multiple of the 32 x 32 x 32 blocks


def matmul(ty, m, n, kk):
    return lambda a: {"c_ptr": values(a["a_ptr"], ty).reshape(m, kk) @ values(a["b_ptr"], ty).reshape(kk, n)}


def softmax16(a):
    x = a["x_ptr"].astype(np.float64).reshape(16, 100)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return {"out_ptr": e / e.sum(axis=1, keepdims=True)}


def matmul_case(name, ty, seed, m=M, n=N, kk=KK, block=(32, 32, 32), warps=4, aligned=()):
    # inputs in [-1, 1]: K = 72 exact products summed in f32 (tensor cores: order and internal
    # alignment unspecified): twice the classical bound 72 * 2^-24 * sum |a*b|, sum |a*b| <= 72
    grid = (-(-m // block[0]), -(-n // block[1]))
    return triton_case(TRITON, name, K.matmul_kernel, grid, warps,
                       [buf("a_ptr", ty, m * kk, uniform(-1, 1, seed)), buf("b_ptr", ty, kk * n, uniform(-1, 1, seed + 1)),
                        out("c_ptr", "f32", m * n, cmp=tol(abs_=2 * kk * 2.0 ** -24 * kk)),
                        scalar("M", "i32", m), scalar("N", "i32", n), scalar("K", "i32", kk),
                        scalar("stride_am", "i32", kk), scalar("stride_bk", "i32", n), scalar("stride_cm", "i32", n)],
                       matmul(ty, m, n, kk), dict(zip(("BLOCK_M", "BLOCK_N", "BLOCK_K"), block)),
                       divisible_by_16=aligned)


CASES = [
    matmul_case("matmul_f16", "f16", 601),
    matmul_case("matmul_bf16", "bf16", 603),
    # 64 x 64 x 32 blocks with aligned pointers and strides and K a multiple of 16 (as Triton's
    # launcher specialises them): the loads vectorise, so Triton pipelines them (cp.async on
    # sm_80) and on sm_90 may use wgmma; M, N still ragged
    matmul_case("matmul_f16_aligned", "f16", 607, m=70, n=80, kk=64, block=(64, 64, 32),
                aligned=("a_ptr", "b_ptr", "c_ptr", "K", "stride_am", "stride_bk", "stride_cm")),
    # exp in f32 within 2 ulp, a 100-term sum and a division (~1e-6 relative in all), then one
    # rounding to f16 (2^-11 relative): the f16 result is the nearest or next-nearest, 1 ulp
    triton_case(TRITON, "softmax_f16", K.softmax_f16_kernel, (16,), 4,
                [buf("x_ptr", "f16", 1600, uniform(-4, 4, 605)), out("out_ptr", "f16", 1600, cmp=tol(ulp=1)),
                 scalar("cols", "i32", 100)],
                softmax16, {"BLOCK": 128}),
]
