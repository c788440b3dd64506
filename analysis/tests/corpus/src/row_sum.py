# row_sum: a reduction, sum over the columns of a 2-D tensor: each program loops over the columns
# of BLOCK_M rows in BLOCK_N chunks, accumulates, reduces along axis 1 and stores BLOCK_M sums.
import triton
import triton.language as tl


@triton.jit
def row_sum(x_ptr, out_ptr, M, N, stride_m, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = (rows[:, None] < M) & (cols[None, :] < N)
        acc += tl.load(x_ptr + rows[:, None] * stride_m + cols[None, :], mask=mask, other=0.0)
    tl.store(out_ptr + rows, tl.sum(acc, axis=1), mask=rows < M)


CORPUS = dict(
    kernel=row_sum,
    signature={"x_ptr": "*fp32", "out_ptr": "*fp32", "M": "i32", "N": "i32", "stride_m": "i32",
               "BLOCK_M": "constexpr", "BLOCK_N": "constexpr"},
    constexprs={"BLOCK_M": 16, "BLOCK_N": 256},
    num_warps=4,
)
