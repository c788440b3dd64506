// bug_r001_reduce_no_barrier: PLANTED BUG (R001). smem_reduce_dynamic with the barrier inside the
// tree loop removed: step s reads sdata[tid + s], written in the previous step by another warp.
extern "C" __global__ void
bug_r001_reduce_no_barrier(const float* __restrict__ in, float* __restrict__ out, unsigned n)
{
    extern __shared__ float sdata[];
    const unsigned tid = threadIdx.x;
    const unsigned i = blockIdx.x * blockDim.x + tid;
    sdata[tid] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];   // BUG(R001): no __syncthreads() between steps
    }
    __syncthreads();
    if (tid == 0) out[blockIdx.x] = sdata[0];
}
