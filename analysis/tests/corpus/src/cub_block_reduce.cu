// cub_block_reduce: CUB BlockReduce in its three algorithms.
//   cub_reduce_warp_reductions - BLOCK_REDUCE_WARP_REDUCTIONS (shuffle per warp, then warp 0)
//   cub_reduce_raking          - BLOCK_REDUCE_RAKING on a partial tile (Sum(v, num_valid)): only
//                                warp 0 (threadIdx.x < 32) rakes and does the warp-synchronous step
//   cub_reduce_raking_comm     - BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY with cub::Max
#include <cub/block/block_reduce.cuh>

constexpr int BLOCK = 256;

__global__ void __launch_bounds__(BLOCK)
cub_reduce_warp_reductions(const float* in, float* out, int n)
{
    using BR = cub::BlockReduce<float, BLOCK, cub::BLOCK_REDUCE_WARP_REDUCTIONS>;
    __shared__ typename BR::TempStorage temp;
    const int i = blockIdx.x * BLOCK + threadIdx.x;
    const float v = i < n ? in[i] : 0.0f;
    const float sum = BR(temp).Sum(v);
    if (threadIdx.x == 0) out[blockIdx.x] = sum;
}

__global__ void __launch_bounds__(BLOCK)
cub_reduce_raking(const int* in, int* out, int n)
{
    using BR = cub::BlockReduce<int, BLOCK, cub::BLOCK_REDUCE_RAKING>;
    __shared__ typename BR::TempStorage temp;
    const int base = blockIdx.x * BLOCK;
    const int valid = min(n - base, BLOCK);   // uniform: the last block is a partial tile
    const int i = base + threadIdx.x;
    const int v = threadIdx.x < valid ? in[i] : 0;
    const int sum = BR(temp).Sum(v, valid);
    if (threadIdx.x == 0) out[blockIdx.x] = sum;
}

__global__ void __launch_bounds__(BLOCK)
cub_reduce_raking_comm(const int* in, int* out, int n)
{
    using BR = cub::BlockReduce<int, BLOCK, cub::BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY>;
    __shared__ typename BR::TempStorage temp;
    const int i = blockIdx.x * BLOCK + threadIdx.x;
    const int v = i < n ? in[i] : INT_MIN;
    const int m = BR(temp).Reduce(v, cuda::maximum<>{});
    if (threadIdx.x == 0) out[blockIdx.x] = m;
}
