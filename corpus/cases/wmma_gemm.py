"""Launches of src/wmma_gemm.cu (written for warpforge's corpus). A and B are row-major or
column-major as each kernel's name says (A: row = M x K, col = K x M stored; B: row = K x N,
col = N x K stored); C is row-major."""
import numpy as np
from corpus import Case, buf, out, scalar, uniform, ints, tol, values

LANG = "cuda"
HELDOUT = False


def gemm(m, n, k, ty, a_row, b_row):
    def ref(a):
        A = values(a["A"], ty) if ty in ("f16", "bf16") else a["A"].astype(np.float64)
        B = values(a["B"], ty) if ty in ("f16", "bf16") else a["B"].astype(np.float64)
        A = A.reshape(m, k) if a_row else A.reshape(k, m).T
        B = B.reshape(k, n) if b_row else B.reshape(n, k).T
        C = A @ B
        return {"C": C.astype(np.int64) if ty in ("i8", "u8") else C}
    return ref


def bound(k):
    # inputs in [-1, 1]: products exact, K of them summed in f32 in an order (and, on tensor
    # cores, an internal alignment) the hardware does not specify: twice the classical bound
    # K * 2^-24 * sum |a*b|, with sum |a*b| <= K
    return tol(abs_=2 * k * 2.0 ** -24 * k)


def case(name, entry, grid, block, m, n, k, ty, a_row, b_row, init_a, init_b, out_ty, cmp):
    return Case(name, entry, grid, block,
                [buf("A", ty, m * k, init_a), buf("B", ty, k * n, init_b), out("C", out_ty, m * n, cmp=cmp),
                 scalar("M", "i32", m), scalar("N", "i32", n), scalar("K", "i32", k)],
                gemm(m, n, k, ty, a_row, b_row))


CASES = [
    case("f16_f32_rowcol", "wmma_f16_f32_rowcol", (2, 2), (32,), 32, 32, 32, "f16", True, False,
         uniform(-1, 1, 501), uniform(-1, 1, 502), "f32", bound(32)),
    # 4 warps per block (2 x 2 tiles of 16 x 16), 64 x 32 x 48
    case("f16_f32_rowrow_4warps", "wmma_f16_f32_rowrow", (1, 2), (64, 2), 64, 32, 48, "f16", True, True,
         uniform(-1, 1, 503), uniform(-1, 1, 504), "f32", bound(48)),
    # integers in [-4, 4]: every partial sum (|s| <= 512) is exact in f16, whatever the order
    case("f16_f16_colrow", "wmma_f16_f16_colrow", (2, 2), (32,), 32, 32, 32, "f16", False, True,
         ints(-4, 5, 505), ints(-4, 5, 506), "f16", tol()),
    case("bf16_f32_rowcol", "wmma_bf16_f32_rowcol", (2, 2), (32,), 32, 32, 32, "bf16", True, False,
         uniform(-1, 1, 507), uniform(-1, 1, 508), "f32", bound(32)),
    # integers in [-8, 8]: exact in tf32 and every partial sum exact in f32
    case("tf32_f32_rowrow_4warps", "wmma_tf32_f32_rowrow", (1, 1), (64, 2), 32, 32, 32, "f32", True, True,
         ints(-8, 9, 509), ints(-8, 9, 510), "f32", tol()),
    case("s8_s32_rowcol", "wmma_s8_s32_rowcol", (2, 2), (32,), 32, 32, 48, "i8", True, False,
         ints(-128, 128, 511), ints(-128, 128, 512), "i32", None),
    case("u8_s32_colrow_4warps", "wmma_u8_s32_colrow", (1, 2), (64, 2), 64, 32, 32, "u8", False, True,
         ints(0, 256, 513), ints(0, 256, 514), "i32", None),
    # B given transposed (N x K): the "col" operand of mma.sync; blocks of 4 warps, 16 x 32 each
    case("mma_sync_m16n8k16", "mma_sync_f16_f32", (1, 4), (128,), 64, 32, 48, "f16", True, False,
         uniform(-1, 1, 515), uniform(-1, 1, 516), "f32", bound(48)),
]
