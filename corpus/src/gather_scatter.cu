// gather_scatter: indexed memory access — gather through an index array, scatter through a
// permutation, CSR sparse matrix-vector products (a thread per row and a warp per row), and an
// embedding-bag lookup on a 2-D grid. Written for warpforge's corpus (corpus/), in the style of
// everyday CUDA code. License: MIT OR Apache-2.0 (the warpforge project's).

extern "C" __global__ void gather(const float* src, const int* idx, float* dst, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        dst[i] = src[idx[i]];
}

extern "C" __global__ void scatter_perm(const int* src, const int* perm, int* dst, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        dst[perm[i]] = src[i] * 2 + 1;
}

extern "C" __global__ void spmv_csr_scalar(const int* row_ptr, const int* cols, const float* vals,
                                           const float* x, float* y, int rows)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows)
        return;
    float acc = 0.0f;
    for (int k = row_ptr[r]; k < row_ptr[r + 1]; ++k)
        acc += vals[k] * x[cols[k]];
    y[r] = acc;
}

extern "C" __global__ void spmv_csr_vector(const int* row_ptr, const int* cols, const float* vals,
                                           const float* x, float* y, int rows)
{
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    int lane = threadIdx.x & 31;
    if (warp >= rows)
        return;
    float acc = 0.0f;
    for (int k = row_ptr[warp] + lane; k < row_ptr[warp + 1]; k += 32)
        acc += vals[k] * x[cols[k]];
    for (int o = 16; o > 0; o >>= 1)
        acc += __shfl_down_sync(0xffffffffu, acc, o);
    if (lane == 0)
        y[warp] = acc;
}

// out[bag][d] = sum of table[ids[bag*per_bag + j]][d]; blockIdx.y = bag, threads along d.
extern "C" __global__ void embedding_bag(const float* table, const int* ids, float* out, int dim, int per_bag)
{
    int bag = blockIdx.y;
    int d = blockIdx.x * blockDim.x + threadIdx.x;
    if (d >= dim)
        return;
    float acc = 0.0f;
    for (int j = 0; j < per_bag; ++j)
        acc += table[ids[bag * per_bag + j] * dim + d];
    out[bag * dim + d] = acc;
}
