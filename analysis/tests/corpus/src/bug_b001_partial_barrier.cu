// bug_b001_partial_barrier: PLANTED BUG (B001). smem_reduce_dynamic with its first barrier reached
// only by threads 0..15: the rest of the block skips it (deadlock or undefined behaviour).
extern "C" __global__ void
bug_b001_partial_barrier(const float* __restrict__ in, float* __restrict__ out, unsigned n)
{
    extern __shared__ float sdata[];
    const unsigned tid = threadIdx.x;
    const unsigned i = blockIdx.x * blockDim.x + tid;
    sdata[tid] = i < n ? in[i] : 0.0f;
    if (threadIdx.x < 16) __syncthreads();   // BUG(B001): barrier under a thread-dependent branch
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = sdata[0];
}
