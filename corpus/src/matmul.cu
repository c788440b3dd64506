// matmul: dense matrix products — a shared-memory tiled GEMM templated on element type and tile
// (float 16x16, double 8x8) with bounds checks for sizes that are not tile multiples, a naive
// integer GEMM, and a warp-per-row matrix-vector product with a shuffle reduction.
// Written for warpforge's corpus (corpus/), in the style of everyday CUDA code.
// License: MIT OR Apache-2.0 (the warpforge project's).

// C[M x N] = A[M x K] * B[K x N], row-major; blocks of TILE x TILE threads.
template <typename T, int TILE>
__global__ void gemm_tiled(const T* A, const T* B, T* C, int M, int N, int K)
{
    __shared__ T As[TILE][TILE];
    __shared__ T Bs[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
    T acc = 0;
    for (int k0 = 0; k0 < K; k0 += TILE) {
        int ak = k0 + threadIdx.x, bk = k0 + threadIdx.y;
        As[threadIdx.y][threadIdx.x] = (row < M && ak < K) ? A[row * K + ak] : T(0);
        Bs[threadIdx.y][threadIdx.x] = (bk < K && col < N) ? B[bk * N + col] : T(0);
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k)
            acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    if (row < M && col < N)
        C[row * N + col] = acc;
}

template __global__ void gemm_tiled<float, 16>(const float*, const float*, float*, int, int, int);
template __global__ void gemm_tiled<double, 8>(const double*, const double*, double*, int, int, int);

extern "C" __global__ void gemm_naive_i32(const int* A, const int* B, int* C, int M, int N, int K)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        int acc = 0;
        for (int k = 0; k < K; ++k)
            acc += A[row * K + k] * B[k * N + col];
        C[row * N + col] = acc;
    }
}

// y = A x, A rows x cols: one warp per row, blockDim.x a multiple of 32.
extern "C" __global__ void gemv_warp_per_row(const float* A, const float* x, float* y, int rows, int cols)
{
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    if (warp >= rows)
        return;
    float acc = 0.0f;
    for (int c = lane; c < cols; c += 32)
        acc = fmaf(A[warp * cols + c], x[c], acc);
    for (int o = 16; o > 0; o /= 2)
        acc += __shfl_xor_sync(0xffffffffu, acc, o);
    if (lane == 0)
        y[warp] = acc;
}
