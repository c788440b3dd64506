// scans: prefix sums — a warp-level inclusive scan with __shfl_up_sync, a block-wide
// Hillis-Steele exclusive scan with double-buffered shared memory and block totals, a
// work-efficient (Blelloch) scan of 2*blockDim floats in dynamic shared memory, and the uniform add
// that finishes a multi-block scan. Written for warpforge's corpus (corpus/), in the style of
// everyday CUDA code. License: MIT OR Apache-2.0 (the warpforge project's).

extern "C" __global__ void warp_inclusive_scan(const int* in, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    int v = i < n ? in[i] : 0;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        int up = __shfl_up_sync(0xffffffffu, v, d);
        if (lane >= d)
            v += up;
    }
    if (i < n)
        out[i] = v;
}

#define SCAN_BLOCK 256

extern "C" __global__ void __launch_bounds__(SCAN_BLOCK)
block_exclusive_scan(const int* in, int* out, int* block_sums, int n)
{
    __shared__ int buf[2][SCAN_BLOCK];
    int t = threadIdx.x;
    int i = blockIdx.x * SCAN_BLOCK + t;
    int x = i < n ? in[i] : 0;
    int src = 0;
    buf[0][t] = x;
    __syncthreads();
    for (int d = 1; d < SCAN_BLOCK; d *= 2) {
        int v = buf[src][t];
        if (t >= d)
            v += buf[src][t - d];
        buf[1 - src][t] = v;
        src = 1 - src;
        __syncthreads();
    }
    if (i < n)
        out[i] = buf[src][t] - x;
    if (t == SCAN_BLOCK - 1)
        block_sums[blockIdx.x] = buf[src][t];
}

// Exclusive scan of 2*blockDim.x floats per block (dynamic shared memory: 2*blockDim.x floats).
extern "C" __global__ void blelloch_scan(const float* in, float* out, int n)
{
    extern __shared__ float temp[];
    int t = threadIdx.x;
    int m = 2 * blockDim.x;
    int base = blockIdx.x * m;
    temp[2 * t] = base + 2 * t < n ? in[base + 2 * t] : 0.0f;
    temp[2 * t + 1] = base + 2 * t + 1 < n ? in[base + 2 * t + 1] : 0.0f;
    int offset = 1;
    for (int d = m >> 1; d > 0; d >>= 1) {
        __syncthreads();
        if (t < d) {
            int ai = offset * (2 * t + 1) - 1;
            int bi = offset * (2 * t + 2) - 1;
            temp[bi] += temp[ai];
        }
        offset *= 2;
    }
    if (t == 0)
        temp[m - 1] = 0.0f;
    for (int d = 1; d < m; d *= 2) {
        offset >>= 1;
        __syncthreads();
        if (t < d) {
            int ai = offset * (2 * t + 1) - 1;
            int bi = offset * (2 * t + 2) - 1;
            float x = temp[ai];
            temp[ai] = temp[bi];
            temp[bi] += x;
        }
    }
    __syncthreads();
    if (base + 2 * t < n)
        out[base + 2 * t] = temp[2 * t];
    if (base + 2 * t + 1 < n)
        out[base + 2 * t + 1] = temp[2 * t + 1];
}

extern "C" __global__ void add_block_offsets(int* data, const int* offsets, int n)
{
    __shared__ int offset;
    if (threadIdx.x == 0)
        offset = offsets[blockIdx.x];
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        data[i] += offset;
}
