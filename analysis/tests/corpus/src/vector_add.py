# vector_add: Triton's first tutorial kernel, out = x + y over 1024-element blocks with a mask for
# the tail. No shared memory, no barriers: the simplest real Triton output.
import triton
import triton.language as tl


@triton.jit
def vector_add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


# How regenerate.sh compiles it (see tools/triton_ptx.py).
CORPUS = dict(
    kernel=vector_add,
    signature={"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"},
    constexprs={"BLOCK": 1024},
    num_warps=4,
)
