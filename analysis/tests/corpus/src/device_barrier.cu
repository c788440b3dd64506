// device_barrier: __syncthreads() inside __device__ functions, called by the whole block: one kept
// out of line (__noinline__, a .func with bar.sync and a call in the PTX) and one inlined, the
// out-of-line one also called under a branch on a kernel parameter (uniform across the block).
#define BLOCK 128

__device__ __noinline__ float exchange(float* s, float v)
{
    s[threadIdx.x] = v;
    __syncthreads();
    const float other = s[(threadIdx.x + 1) % BLOCK];
    __syncthreads();
    return other;
}

__device__ __forceinline__ float neighbour_sum(float* s, float v)
{
    s[threadIdx.x] = v;
    __syncthreads();
    const float r = v + s[threadIdx.x ^ 1];
    __syncthreads();
    return r;
}

extern "C" __global__ void __launch_bounds__(BLOCK)
device_barrier(const float* __restrict__ in, float* __restrict__ out, int rounds)
{
    __shared__ float s[BLOCK];
    const int i = blockIdx.x * BLOCK + threadIdx.x;
    float v = in[i];
    v = exchange(s, v);
    v = neighbour_sum(s, v);
    if (rounds > 1) v = exchange(s, v * 0.5f);      // uniform: a parameter
    for (int r = 2; r < rounds; ++r) v = neighbour_sum(s, v);
    out[i] = v;
}
