"""Launches of src/gather_scatter.cu (written for warpforge's corpus)."""
import numpy as np
from corpus import Case, buf, out, scalar, uniform, ints, generate

LANG = "cuda"
HELDOUT = True

PERM = np.argsort(generate(uniform(0, 1, 142), "f64", 600), kind="stable").astype(np.int32)

# a 64 x 100 CSR matrix, 0 to 19 non-zeros per row (rows 5 and 40 empty), no repeated column
ROWS, COLS = 64, 100
_nnz = generate(ints(0, 20, 143), "i32", ROWS)
_nnz[[5, 40]] = 0
ROW_PTR = np.concatenate([[0], np.cumsum(_nnz)]).astype(np.int32)
_cols = []
for r in range(ROWS):
    keys = generate(uniform(0, 1, 1000 + r), "f64", COLS)
    _cols += sorted(np.argsort(keys)[:_nnz[r]].tolist())
COL_IDX = np.array(_cols, np.int32)
NNZ = len(COL_IDX)


def spmv(a):
    y = np.zeros(ROWS)
    for r in range(ROWS):
        for k in range(ROW_PTR[r], ROW_PTR[r + 1]):
            y[r] += float(a["vals"][k]) * float(a["x"][COL_IDX[k]])
    return {"y": y}


def csr_params():
    # small integers as floats: every product and sum is exact
    return [buf("row_ptr", "i32", ROWS + 1, data=ROW_PTR), buf("cols", "i32", NNZ, data=COL_IDX),
            buf("vals", "f32", NNZ, ints(-4, 5, 144)), buf("x", "f32", COLS, ints(-8, 8, 145)),
            out("y", "f32", ROWS), scalar("rows", "i32", ROWS)]


def bag(a):
    t = a["table"].reshape(50, 24).astype(np.float64)
    return {"out": t[a["ids"].reshape(8, 5)].sum(axis=1)}


CASES = [
    Case("gather", "gather", (7,), (128,),
         [buf("src", "f32", 500, uniform(-1, 1, 141)), buf("idx", "i32", 800, ints(0, 500, 146)),
          out("dst", "f32", 800), scalar("n", "i32", 800)],
         lambda a: {"dst": a["src"][a["idx"]]}),
    Case("scatter_perm", "scatter_perm", (5,), (128,),
         [buf("src", "i32", 600, ints(-10000, 10000, 147)), buf("perm", "i32", 600, data=PERM),
          out("dst", "i32", 600), scalar("n", "i32", 600)],
         lambda a: {"dst": (lambda d: (d.__setitem__(a["perm"], a["src"] * 2 + 1), d)[1])(np.zeros(600, np.int32))}),
    Case("spmv_scalar", "spmv_csr_scalar", (1,), (64,), csr_params(), spmv),
    Case("spmv_vector", "spmv_csr_vector", (16,), (128,), csr_params(), spmv),
    Case("embedding_bag", "embedding_bag", (1, 8), (32,),
         [buf("table", "f32", 1200, ints(-50, 50, 148)), buf("ids", "i32", 40, ints(0, 50, 149)),
          out("out", "f32", 192), scalar("dim", "i32", 24), scalar("per_bag", "i32", 5)],
         bag),
]
