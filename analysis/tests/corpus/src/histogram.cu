// histogram: 256-bin byte histogram with a block-private histogram in shared memory
// (atomicAdd on shared), a grid-stride loop over the input, and a merge into the global
// histogram (atomicAdd on global). A second kernel keeps one private histogram per warp.
#define BINS 256

extern "C" __global__ void
histogram_shared(const unsigned char* __restrict__ data, unsigned n, unsigned* __restrict__ hist)
{
    __shared__ unsigned s[BINS];
    for (unsigned b = threadIdx.x; b < BINS; b += blockDim.x) s[b] = 0;
    __syncthreads();
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&s[data[i]], 1u);
    __syncthreads();
    for (unsigned b = threadIdx.x; b < BINS; b += blockDim.x)
        if (s[b]) atomicAdd(&hist[b], s[b]);
}

#define WARPS 4
extern "C" __global__ void __launch_bounds__(WARPS * 32)
histogram_per_warp(const unsigned char* __restrict__ data, unsigned n, unsigned* __restrict__ hist)
{
    __shared__ unsigned s[WARPS][BINS];
    const unsigned warp = threadIdx.x / 32;
    for (unsigned b = threadIdx.x; b < WARPS * BINS; b += blockDim.x) (&s[0][0])[b] = 0;
    __syncthreads();
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&s[warp][data[i]], 1u);
    __syncthreads();
    for (unsigned b = threadIdx.x; b < BINS; b += blockDim.x) {
        unsigned total = 0;
        for (unsigned w = 0; w < WARPS; ++w) total += s[w][b];
        if (total) atomicAdd(&hist[b], total);
    }
}
