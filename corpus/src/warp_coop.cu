// warp_coop: warp-level cooperation — cooperative groups (a 16-thread tile reduction and a
// tile-wide any/all vote), a shared-memory warp reduction ordered by __syncwarp, order-preserving
// block compaction (ballot, popc and a scan of the warps' counts), __match_any_sync grouping, and
// vote functions. Written for warpforge's corpus (corpus/), in the style of everyday CUDA code.
// License: MIT OR Apache-2.0 (the warpforge project's).
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void cg_tile16_sum(const int* in, int* out, int n)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<16> tile = cg::tiled_partition<16>(block);
    int i = block.group_index().x * block.size() + block.thread_rank();
    int v = i < n ? in[i] : 0;
    for (int o = tile.size() / 2; o > 0; o /= 2)
        v += tile.shfl_down(v, o);
    if (tile.thread_rank() == 0)
        out[i / 16] = v;
}

extern "C" __global__ void cg_tile_votes(const int* in, unsigned* out, int n)
{
    cg::thread_block_tile<8> tile = cg::tiled_partition<8>(cg::this_thread_block());
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? in[i] : 0;
    unsigned any = tile.any(v < 0), all = tile.all(v >= -50);
    unsigned bal = tile.ballot(v & 1);
    if (i < n)
        out[i] = any | (all << 1) | (bal << 2) | (tile.meta_group_rank() << 16);
}

// Each warp sums its 32 values through shared memory, ordered by __syncwarp (no shuffles).
extern "C" __global__ void syncwarp_reduce(const float* in, float* out)
{
    __shared__ float s[256];
    unsigned t = threadIdx.x, lane = t & 31;
    s[t] = in[blockIdx.x * blockDim.x + t];
    __syncwarp();
    for (unsigned o = 16; o > 0; o >>= 1) {
        float v = 0.0f;
        if (lane < o)
            v = s[t] + s[t + o];
        __syncwarp();
        if (lane < o)
            s[t] = v;
        __syncwarp();
    }
    if (lane == 0)
        out[blockIdx.x * (blockDim.x / 32) + t / 32] = s[t];
}

#define CB 256

// Keeps the elements divisible by 3 of each block, in order; counts[block] = how many.
extern "C" __global__ void __launch_bounds__(CB) block_compact(const int* in, int* out, int* counts)
{
    __shared__ int warp_counts[CB / 32];
    int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    int v = in[blockIdx.x * CB + t];
    bool keep = v % 3 == 0;
    unsigned mask = __ballot_sync(0xffffffffu, keep);
    if (lane == 0)
        warp_counts[warp] = __popc(mask);
    __syncthreads();
    int base = 0;
    for (int w = 0; w < warp; ++w)
        base += warp_counts[w];
    if (keep)
        out[blockIdx.x * CB + base + __popc(mask & ((1u << lane) - 1))] = v;
    if (t == CB - 1)
        counts[blockIdx.x] = base + __popc(mask);
}

// For each lane: the lowest lane of its warp holding the same key, and how many lanes do.
extern "C" __global__ void match_groups(const int* keys, int* leader, int* size)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned peers = __match_any_sync(0xffffffffu, keys[i]);
    leader[i] = __ffs(peers) - 1;
    size[i] = __popc(peers);
}

extern "C" __global__ void warp_votes(const float* x, int* out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = x[i];
    int any_neg = __any_sync(0xffffffffu, v < 0.0f);
    int all_small = __all_sync(0xffffffffu, fabsf(v) < 0.9f);
    unsigned big = __ballot_sync(0xffffffffu, v > 0.5f);
    out[i] = any_neg + 2 * all_small + 4 * __popc(big);
}
