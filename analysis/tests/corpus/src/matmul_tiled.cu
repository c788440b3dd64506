// matmul_tiled: tiled SGEMM C = A * B (row-major, M x K times K x N) with 16x16 shared-memory tiles,
// a K loop with two barriers per step, and bounds checks on every edge.
#define T 16

extern "C" __global__ void __launch_bounds__(T * T)
matmul_tiled(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
             int M, int N, int K)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty;
    const int col = blockIdx.x * T + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        As[ty][tx] = (row < M && k0 + tx < K) ? A[row * K + k0 + tx] : 0.0f;
        Bs[ty][tx] = (k0 + ty < K && col < N) ? B[(k0 + ty) * N + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < T; ++k) acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = acc;
}
