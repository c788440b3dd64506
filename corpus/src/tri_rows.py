# tri_rows: Triton row kernels, one program per row — row sums of an integer matrix, softmax,
# and RMS normalisation with a weight vector, each with a power-of-two block masked to the row.
# Written for warpforge's corpus (corpus/), in the style of everyday Triton code.
# License: MIT OR Apache-2.0 (the warpforge project's).
import triton
import triton.language as tl


@triton.jit
def row_sum_kernel(x_ptr, out_ptr, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * cols + offs, mask=offs < cols, other=0)
    tl.store(out_ptr + row, tl.sum(x, axis=0))


@triton.jit
def softmax_kernel(x_ptr, out_ptr, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < cols
    x = tl.load(x_ptr + row * cols + offs, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    e = tl.exp(x)
    tl.store(out_ptr + row * cols + offs, e / tl.sum(e, axis=0), mask=mask)


@triton.jit
def rmsnorm_kernel(x_ptr, w_ptr, out_ptr, cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < cols
    x = tl.load(x_ptr + row * cols + offs, mask=mask, other=0.0)
    w = tl.load(w_ptr + offs, mask=mask, other=0.0)
    ms = tl.sum(x * x, axis=0) / cols
    tl.store(out_ptr + row * cols + offs, x * tl.rsqrt(ms + eps) * w, mask=mask)
