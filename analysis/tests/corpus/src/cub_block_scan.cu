// cub_block_scan: CUB BlockScan, a block-wide prefix sum.
//   cub_scan_raking     - BLOCK_SCAN_RAKING, ExclusiveSum with the block aggregate
//   cub_scan_warp_scans - BLOCK_SCAN_WARP_SCANS, InclusiveSum of 4 items per thread
#include <cub/block/block_scan.cuh>

constexpr int BLOCK = 128;

__global__ void __launch_bounds__(BLOCK)
cub_scan_raking(const int* in, int* out, int* block_totals, int n)
{
    using BS = cub::BlockScan<int, BLOCK, cub::BLOCK_SCAN_RAKING>;
    __shared__ typename BS::TempStorage temp;
    const int i = blockIdx.x * BLOCK + threadIdx.x;
    int v = i < n ? in[i] : 0;
    int total;
    BS(temp).ExclusiveSum(v, v, total);
    if (i < n) out[i] = v;
    if (threadIdx.x == 0) block_totals[blockIdx.x] = total;
}

__global__ void __launch_bounds__(BLOCK)
cub_scan_warp_scans(const int* in, int* out, int n)
{
    using BS = cub::BlockScan<int, BLOCK, cub::BLOCK_SCAN_WARP_SCANS>;
    __shared__ typename BS::TempStorage temp;
    int items[4];
    const int base = (blockIdx.x * BLOCK + threadIdx.x) * 4;
    for (int k = 0; k < 4; ++k) items[k] = base + k < n ? in[base + k] : 0;
    BS(temp).InclusiveSum(items, items);
    for (int k = 0; k < 4; ++k)
        if (base + k < n) out[base + k] = items[k];
}
