// async_copy: staging global memory through shared memory with asynchronous copies — a tiled copy
// (float4 pieces, the ragged tail zero-filled) and a 1-D stencil with halos through
// __pipeline_memcpy_async / __pipeline_commit / __pipeline_wait_prior (cuda_pipeline.h), a
// double-buffered version that prefetches the next tile while the current one is used, a tiled
// transpose staged with cooperative_groups::memcpy_async + cg::wait, and tile sums staged with
// cuda::memcpy_async completing on a cuda::barrier<cuda::thread_scope_block>.
// Written for warpforge's corpus (corpus/), in the style of everyday CUDA code.
// License: MIT OR Apache-2.0 (the warpforge project's).
#include <cuda_pipeline.h>
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cuda/barrier>

namespace cg = cooperative_groups;

// a block-scope barrier in __shared__ is initialised by one thread with init() below, as usual
#pragma nv_diag_suppress static_var_with_dynamic_init

#define TILE 512   // floats per block: 128 threads x one float4

// out[i] = in[tile_base + (TILE - 1 - j)] within each block's tile (the tile reversed), n floats,
// n a multiple of 4; the last tile's missing elements are zero-filled (and not stored).
extern "C" __global__ void tile_reverse_pipeline(const float* in, float* out, int n)
{
    __shared__ __align__(16) float tile[TILE];
    int base = blockIdx.x * TILE;
    int j = threadIdx.x * 4;
    int valid = n - (base + j);                       // floats of this piece inside the array
    size_t zfill = valid >= 4 ? 0 : (valid <= 0 ? 16 : 16 - 4 * valid);
    const float* src = valid > 0 ? in + base + j : in; // nothing is read when all 16 bytes are zero-filled
    __pipeline_memcpy_async(&tile[j], src, 16, zfill);
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    for (int k = threadIdx.x; k < TILE; k += blockDim.x) {
        int g = base + k;
        if (g < n) {
            int last = min(TILE, n - base) - 1;
            out[g] = tile[last - k];
        }
    }
}

#define R 3
#define BLOCK1D 128

// out[i] = x[i-3] + 2 x[i-2] + 3 x[i-1] + 4 x[i] + 3 x[i+1] + 2 x[i+2] + x[i+3], zero outside [0, n).
extern "C" __global__ void stencil_pipeline(const int* x, int* out, int n)
{
    __shared__ int s[BLOCK1D + 2 * R];
    int base = blockIdx.x * BLOCK1D;
    for (int k = threadIdx.x; k < BLOCK1D + 2 * R; k += blockDim.x) {
        int g = base + k - R;
        bool inside = g >= 0 && g < n;
        __pipeline_memcpy_async(&s[k], inside ? x + g : x, sizeof(int), inside ? 0 : sizeof(int));
    }
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    int i = base + threadIdx.x;
    if (i < n) {
        const int w[2 * R + 1] = {1, 2, 3, 4, 3, 2, 1};
        int acc = 0;
#pragma unroll
        for (int k = 0; k <= 2 * R; ++k)
            acc += w[k] * s[threadIdx.x + k];
        out[i] = acc;
    }
}

#define CHUNK 256   // ints per stage; blocks of 64 threads, one int4 each

// Each block walks `chunks` consecutive chunks of `in` (the block's own stretch), two stages deep:
// chunk c+1 is in flight while chunk c is used. out[i] = in[i] + in[neighbour of i in its chunk]
// (the element CHUNK/2 further on, wrapping within the chunk).
extern "C" __global__ void chunks_double_buffered(const int* in, int* out, int chunks)
{
    __shared__ __align__(16) int buf[2][CHUNK];
    const int* src = in + (size_t)blockIdx.x * chunks * CHUNK;
    int* dst = out + (size_t)blockIdx.x * chunks * CHUNK;
    int j = threadIdx.x * 4;
    __pipeline_memcpy_async(&buf[0][j], src + j, 16);
    __pipeline_commit();
    for (int c = 0; c < chunks; ++c) {
        if (c + 1 < chunks)
            __pipeline_memcpy_async(&buf[(c + 1) % 2][j], src + (c + 1) * CHUNK + j, 16);
        __pipeline_commit();            // an empty group on the last chunk keeps the count uniform
        __pipeline_wait_prior(1);       // chunk c has landed
        __syncthreads();
        const int* s = buf[c % 2];
        for (int k = threadIdx.x; k < CHUNK; k += blockDim.x)
            dst[c * CHUNK + k] = s[k] + s[(k + CHUNK / 2) % CHUNK];
        __syncthreads();                // buffer c % 2 is refilled two chunks later
    }
}

// out (cols x rows) = transpose of in (rows x cols), 32x32 tiles, blocks of 32x8 threads: each warp
// stages four rows of the tile with cg::memcpy_async (ragged rows copy only their valid columns).
extern "C" __global__ void transpose_cg_async(const float* in, float* out, int rows, int cols)
{
    __shared__ float tile[32][33];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    int r0 = blockIdx.y * 32, c0 = blockIdx.x * 32;
    int width = min(32, cols - c0);
    for (int r = warp.meta_group_rank(); r < 32; r += warp.meta_group_size())
        if (r0 + r < rows)
            cg::memcpy_async(warp, &tile[r][0], in + (size_t)(r0 + r) * cols + c0, sizeof(float) * width);
    cg::wait(warp);
    block.sync();
    for (int c = threadIdx.y; c < 32; c += blockDim.y) {
        int orow = c0 + c, ocol = r0 + threadIdx.x;
        if (orow < cols && ocol < rows)
            out[(size_t)orow * rows + ocol] = tile[threadIdx.x][c];
    }
}

#define SUM_TILE 1024   // ints per block; blocks of 256 threads

// sums[b] = sum of block b's tile of x (n ints; the last tile is shorter), the tile staged with
// cuda::memcpy_async arriving on a block-scope cuda::barrier.
extern "C" __global__ void tile_sums_barrier(const int* x, int* sums, int n)
{
    __shared__ __align__(16) int tile[SUM_TILE];
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    __shared__ int warp_sums[8];
    cg::thread_block block = cg::this_thread_block();
    if (block.thread_rank() == 0)
        init(&bar, block.size());
    block.sync();
    int base = blockIdx.x * SUM_TILE;
    int len = min(SUM_TILE, n - base);
    cuda::memcpy_async(block, tile, x + base, cuda::aligned_size_t<16>(sizeof(int) * len), bar);
    bar.arrive_and_wait();
    int acc = 0;
    for (int k = threadIdx.x; k < len; k += blockDim.x)
        acc += tile[k];
    for (int o = 16; o > 0; o >>= 1)
        acc += __shfl_down_sync(0xffffffffu, acc, o);
    if (threadIdx.x % 32 == 0)
        warp_sums[threadIdx.x / 32] = acc;
    block.sync();
    if (threadIdx.x == 0) {
        int total = 0;
        for (int w = 0; w < 8; ++w)
            total += warp_sums[w];
        sums[blockIdx.x] = total;
    }
}
