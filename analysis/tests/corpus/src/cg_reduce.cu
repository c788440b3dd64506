// cg_reduce: cooperative-groups reductions.
//   cg_tile32_reduce - thread_block_tile<32> from tiled_partition: a hand-written shfl_down loop per
//                      warp, partial sums in shared memory, block.sync(), then cg::reduce in warp 0
//   cg_tile16_reduce - 16-lane tiles (shuffles with a per-tile partial mask), tile.sync(), and a
//                      dynamic tiled_partition(block, 8) group with g.sync()
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

template <typename Tile>
__device__ float tile_sum(const Tile& t, float v)
{
    for (unsigned off = t.size() / 2; off > 0; off /= 2)
        v += t.shfl_down(v, off);
    return v;
}

__global__ void __launch_bounds__(256)
cg_tile32_reduce(const float* in, float* out, int n)
{
    __shared__ float partial[32];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    const int i = block.group_index().x * block.size() + block.thread_rank();
    float v = i < n ? in[i] : 0.0f;
    v = tile_sum(warp, v);
    if (warp.thread_rank() == 0) partial[warp.meta_group_rank()] = v;
    block.sync();
    if (warp.meta_group_rank() == 0) {
        v = warp.thread_rank() < warp.meta_group_size() ? partial[warp.thread_rank()] : 0.0f;
        v = cg::reduce(warp, v, cg::plus<float>());
        if (warp.thread_rank() == 0) atomicAdd(out, v);
    }
}

__global__ void __launch_bounds__(256)
cg_tile16_reduce(const float* in, float* out, float* out8, int n)
{
    __shared__ float partial[16];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<16> tile = cg::tiled_partition<16>(block);
    const int i = block.group_index().x * block.size() + block.thread_rank();
    const float x = i < n ? in[i] : 0.0f;
    float v = tile_sum(tile, x);
    tile.sync();
    if (tile.thread_rank() == 0) partial[tile.meta_group_rank()] = v;
    block.sync();
    if (block.thread_rank() == 0) {
        float s = 0.0f;
        for (unsigned k = 0; k < tile.meta_group_size(); ++k) s += partial[k];
        out[blockIdx.x] = s;
    }
    // a dynamically sized partition: groups of 8 threads
    cg::thread_group g8 = cg::tiled_partition(block, 8);
    float w = x * x;
    g8.sync();
    if (g8.thread_rank() == 0) w += 1.0f;
    if (i < n) out8[i] = w + static_cast<float>(g8.size());
}
