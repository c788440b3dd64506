// histograms: counting with atomics — a 64-bin byte histogram privatised in shared memory, a
// global-atomics histogram, per-bucket minimum and maximum with atomicMin/atomicMax, and stream
// compaction with warp-aggregated atomics (ballot, popc, one atomicAdd per warp, the base
// broadcast by shuffle). Written for warpforge's corpus (corpus/), in the style of everyday CUDA
// code. License: MIT OR Apache-2.0 (the warpforge project's).

#define BINS 64

extern "C" __global__ void hist64_shared(const unsigned char* data, unsigned int* hist, int n)
{
    __shared__ unsigned int local[BINS];
    for (int b = threadIdx.x; b < BINS; b += blockDim.x)
        local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&local[data[i] & (BINS - 1)], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x)
        if (local[b] != 0)
            atomicAdd(&hist[b], local[b]);
}

extern "C" __global__ void hist_global(const int* keys, int* hist, int nbins, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int k = keys[i];
        if (k >= 0 && k < nbins)
            atomicAdd(&hist[k], 1);
    }
}

extern "C" __global__ void bucket_minmax(const int* keys, const int* values, int* mins, int* maxs, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int k = keys[i];
        atomicMin(&mins[k], values[i]);
        atomicMax(&maxs[k], values[i]);
    }
}

__device__ __forceinline__ int lane_id() { return threadIdx.x & 31; }

// Appends every positive element to out (in an order that depends on the atomics) and counts them.
extern "C" __global__ void compact_positive(const int* in, int* out, int* count, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? in[i] : 0;
    bool keep = v > 0;
    unsigned mask = __ballot_sync(0xffffffffu, keep);
    int leader = __ffs(mask) - 1;
    int base = 0;
    if (lane_id() == leader)
        base = atomicAdd(count, __popc(mask));
    base = __shfl_sync(0xffffffffu, base, leader < 0 ? 0 : leader);
    if (keep)
        out[base + __popc(mask & ((1u << lane_id()) - 1))] = v;
}
