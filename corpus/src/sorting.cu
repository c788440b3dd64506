// sorting: in-block sorts — a bitonic sort of 2*blockDim keys in shared memory (each thread owns a
// compare-exchange per step), a rank sort (each thread counts the keys that go before its own,
// ties broken by index) and an odd-even transposition sort of one warp's 32 keys by shuffles.
// Written for warpforge's corpus (corpus/), in the style of everyday CUDA code.
// License: MIT OR Apache-2.0 (the warpforge project's).

// Sorts each block's 2*blockDim.x keys ascending (dynamic shared memory: 2*blockDim.x words).
extern "C" __global__ void bitonic_sort_block(unsigned int* keys)
{
    extern __shared__ unsigned int sk[];
    unsigned t = threadIdx.x, m = 2 * blockDim.x;
    unsigned int* g = keys + blockIdx.x * m;
    sk[t] = g[t];
    sk[t + blockDim.x] = g[t + blockDim.x];
    for (unsigned size = 2; size <= m; size <<= 1) {
        for (unsigned stride = size / 2; stride > 0; stride >>= 1) {
            __syncthreads();
            unsigned pos = 2 * t - (t & (stride - 1));
            bool up = ((pos & size) == 0);
            unsigned a = sk[pos], b = sk[pos + stride];
            if ((a > b) == up) {
                sk[pos] = b;
                sk[pos + stride] = a;
            }
        }
    }
    __syncthreads();
    g[t] = sk[t];
    g[t + blockDim.x] = sk[t + blockDim.x];
}

#define RANK_BLOCK 128

extern "C" __global__ void __launch_bounds__(RANK_BLOCK) rank_sort(const float* in, float* out)
{
    __shared__ float s[RANK_BLOCK];
    const float* g = in + blockIdx.x * RANK_BLOCK;
    float v = g[threadIdx.x];
    s[threadIdx.x] = v;
    __syncthreads();
    int rank = 0;
    for (int j = 0; j < RANK_BLOCK; ++j) {
        float w = s[j];
        rank += (w < v) || (w == v && j < (int)threadIdx.x);
    }
    out[blockIdx.x * RANK_BLOCK + rank] = v;
}

extern "C" __global__ void warp_odd_even_sort(const int* in, int* out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    int v = in[i];
    for (int phase = 0; phase < 32; ++phase) {
        bool even = (phase & 1) == 0;
        int partner = ((lane & 1) == (even ? 0 : 1)) ? lane + 1 : lane - 1;
        int other = __shfl_sync(0xffffffffu, v, partner & 31);
        if (partner >= 0 && partner < 32)
            v = (lane < partner) ? min(v, other) : max(v, other);
    }
    out[i] = v;
}
