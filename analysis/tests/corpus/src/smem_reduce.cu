// smem_reduce: shared-memory tree reductions (sum of floats), the textbook patterns.
//   smem_reduce_fixed   - 256 threads, each first adds two inputs; tree steps with __syncthreads()
//                         down to 64 partial sums, then warp 0 finishes with __shfl_down_sync.
//   smem_reduce_dynamic - any power-of-two blockDim.x, extern __shared__ buffer, a loop whose trip
//                         count depends on blockDim.x (uniform), __syncthreads() in the loop.
// Correct code: every barrier is reached by the whole block, every full-mask shuffle by whole warps.
#define BLOCK 256

extern "C" __global__ void __launch_bounds__(BLOCK)
smem_reduce_fixed(const float* __restrict__ in, float* __restrict__ out, unsigned n)
{
    __shared__ float s[BLOCK];
    const unsigned tid = threadIdx.x;
    const unsigned i = blockIdx.x * (2 * BLOCK) + tid;
    float v = 0.0f;
    if (i < n) v = in[i];
    if (i + BLOCK < n) v += in[i + BLOCK];
    s[tid] = v;
    __syncthreads();
    for (unsigned stride = BLOCK / 2; stride >= 32; stride >>= 1) {
        if (tid < stride) s[tid] = v = v + s[tid + stride];
        __syncthreads();
    }
    if (tid < 32) {                       // warp 0 only: uniform within every warp
        for (int off = 16; off > 0; off >>= 1)
            v += __shfl_down_sync(0xffffffffu, v, off);
        if (tid == 0) out[blockIdx.x] = v;
    }
}

extern "C" __global__ void
smem_reduce_dynamic(const float* __restrict__ in, float* __restrict__ out, unsigned n)
{
    extern __shared__ float sdata[];
    const unsigned tid = threadIdx.x;
    const unsigned i = blockIdx.x * blockDim.x + tid;
    sdata[tid] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = sdata[0];
}
