# softmax: row-wise softmax (Triton's fused-softmax tutorial): one program per row, the row loaded
# in one block, max and sum reductions across the program's warps (shuffles, then shared memory
# and barriers), exp, normalise, store.
import triton
import triton.language as tl


@triton.jit
def softmax(out_ptr, in_ptr, in_row_stride, out_row_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_row_stride + cols, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    den = tl.sum(num, axis=0)
    tl.store(out_ptr + row * out_row_stride + cols, num / den, mask=mask)


CORPUS = dict(
    kernel=softmax,
    signature={"out_ptr": "*fp32", "in_ptr": "*fp32", "in_row_stride": "i32",
               "out_row_stride": "i32", "n_cols": "i32", "BLOCK": "constexpr"},
    constexprs={"BLOCK": 1024},
    num_warps=8,
)
