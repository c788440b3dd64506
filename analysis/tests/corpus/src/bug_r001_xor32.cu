// bug_r001_xor32: PLANTED BUG (R001). Each thread writes s[tid] and reads s[tid ^ 32], written by a
// thread of another warp, with no __syncthreads() in between: a shared-memory race between warps.
#define BLOCK 256

extern "C" __global__ void __launch_bounds__(BLOCK)
bug_r001_xor32(const int* __restrict__ in, int* __restrict__ out)
{
    __shared__ int s[BLOCK];
    const int tid = threadIdx.x;
    s[tid] = in[blockIdx.x * BLOCK + tid];
    out[blockIdx.x * BLOCK + tid] = s[tid ^ 32];   // BUG(R001): no barrier since the write
}
