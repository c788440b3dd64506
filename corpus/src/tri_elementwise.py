# tri_elementwise: Triton element-wise kernels — masked vector add, a fused scale + leaky ReLU +
# clamp, an integer xor-shift-multiply mix, and SiLU (x * sigmoid(x)).
# Written for warpforge's corpus (corpus/), in the style of everyday Triton code.
# License: MIT OR Apache-2.0 (the warpforge project's).
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


@triton.jit
def leaky_clamp_kernel(x_ptr, out_ptr, n, scale, slope, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0) * scale
    y = tl.where(x > 0, x, x * slope)
    y = tl.minimum(tl.maximum(y, -1.0), 1.0)
    tl.store(out_ptr + offs, y, mask=mask)


@triton.jit
def int_mix_kernel(a_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask, other=0)
    h = a ^ (a >> 7)
    h = h * 0x2C1B3C6D
    h = h ^ (h << 5)
    tl.store(out_ptr + offs, h + offs.to(tl.uint32), mask=mask)


@triton.jit
def silu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(out_ptr + offs, x * tl.sigmoid(x), mask=mask)
