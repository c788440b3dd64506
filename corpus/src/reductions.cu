// reductions: sums and maxima over an array — a shared-memory tree reduction (two loads per
// thread), warp-shuffle sums finished with atomicAdd, a templated butterfly max (int, float,
// double), an f64 sum in dynamic shared memory, and per-row sums on a 2-D grid.
// Written for warpforge's corpus (corpus/), in the style of everyday CUDA code.
// License: MIT OR Apache-2.0 (the warpforge project's).

#define BLOCK 256

extern "C" __global__ void __launch_bounds__(BLOCK) reduce_sum_shared(const float* in, float* out, int n)
{
    __shared__ float s[BLOCK];
    unsigned t = threadIdx.x;
    unsigned i = blockIdx.x * (blockDim.x * 2) + t;
    float v = 0.0f;
    if (i < n)
        v = in[i];
    if (i + blockDim.x < n)
        v += in[i + blockDim.x];
    s[t] = v;
    __syncthreads();
    for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (t < stride)
            s[t] += s[t + stride];
        __syncthreads();
    }
    if (t == 0)
        out[blockIdx.x] = s[0];
}

__device__ __forceinline__ int warp_sum(int v)
{
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}

extern "C" __global__ void reduce_sum_atomic(const int* in, int* total, int n)
{
    __shared__ int partial[32];
    int sum = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        sum += in[i];
    sum = warp_sum(sum);
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0)
        partial[warp] = sum;
    __syncthreads();
    if (warp == 0) {
        sum = lane < (blockDim.x >> 5) ? partial[lane] : 0;
        sum = warp_sum(sum);
        if (lane == 0)
            atomicAdd(total, sum);
    }
}

template <typename T> __device__ T lowest();
template <> __device__ int lowest<int>() { return -2147483647 - 1; }
template <> __device__ float lowest<float>() { return -3.402823466e+38f; }
template <> __device__ double lowest<double>() { return -1.7976931348623157e+308; }

// One max per block: butterfly within warps, then the first warp over the warps' maxima.
template <typename T>
__global__ void block_max(const T* in, T* out, int n)
{
    __shared__ T warp_max[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    T v = i < n ? in[i] : lowest<T>();
#pragma unroll
    for (int mask = 16; mask > 0; mask >>= 1) {
        T other = __shfl_xor_sync(0xffffffffu, v, mask);
        v = other > v ? other : v;
    }
    if ((threadIdx.x & 31) == 0)
        warp_max[threadIdx.x >> 5] = v;
    __syncthreads();
    if (threadIdx.x < 32) {
        v = threadIdx.x < (blockDim.x >> 5) ? warp_max[threadIdx.x] : lowest<T>();
#pragma unroll
        for (int mask = 16; mask > 0; mask >>= 1) {
            T other = __shfl_xor_sync(0xffffffffu, v, mask);
            v = other > v ? other : v;
        }
        if (threadIdx.x == 0)
            out[blockIdx.x] = v;
    }
}

template __global__ void block_max<int>(const int*, int*, int);
template __global__ void block_max<float>(const float*, float*, int);
template __global__ void block_max<double>(const double*, double*, int);

// Dynamic shared memory: blockDim.x doubles.
extern "C" __global__ void reduce_sum_f64_dyn(const double* in, double* out, int n)
{
    extern __shared__ double sdata[];
    unsigned t = threadIdx.x;
    double acc = 0.0;
    for (unsigned i = blockIdx.x * blockDim.x + t; i < n; i += blockDim.x * gridDim.x)
        acc += in[i];
    sdata[t] = acc;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {
        if (t < s)
            sdata[t] += sdata[t + s];
        __syncthreads();
    }
    if (t < 32) {
        double v = sdata[t] + sdata[t + 32];
        for (int o = 16; o > 0; o >>= 1)
            v += __shfl_down_sync(0xffffffffu, v, o);
        if (t == 0)
            out[blockIdx.x] = v;
    }
}

// rows x cols matrix, one block row of 32 x 4 threads per 4 rows (blockIdx.y picks the rows).
extern "C" __global__ void row_sums(const float* m, float* sums, int rows, int cols)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= rows)
        return;
    float acc = 0.0f;
    for (int c = threadIdx.x; c < cols; c += 32)
        acc += m[row * cols + c];
    for (int o = 16; o > 0; o >>= 1)
        acc += __shfl_down_sync(0xffffffffu, acc, o);
    if (threadIdx.x == 0)
        sums[row] = acc;
}
