// rows: per-row normalisations, one block per row — softmax (max, exp, sum in shared memory),
// layer normalisation (mean and variance in one pass of warp shuffles, rsqrtf, gamma and beta),
// and L2 normalisation with sqrtf. Written for warpforge's corpus (corpus/), in the style of
// everyday CUDA code. License: MIT OR Apache-2.0 (the warpforge project's).

#define ROW_BLOCK 128

__device__ float block_reduce(float v, float* scratch, bool is_max)
{
    for (int o = 16; o > 0; o >>= 1) {
        float w = __shfl_xor_sync(0xffffffffu, v, o);
        v = is_max ? fmaxf(v, w) : v + w;
    }
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    __syncthreads();   // scratch may still be read by the previous call
    if (lane == 0)
        scratch[warp] = v;
    __syncthreads();
    v = scratch[0];
    for (int w = 1; w < ROW_BLOCK / 32; ++w)
        v = is_max ? fmaxf(v, scratch[w]) : v + scratch[w];
    return v;
}

extern "C" __global__ void __launch_bounds__(ROW_BLOCK) softmax_rows(const float* x, float* y, int cols)
{
    __shared__ float scratch[ROW_BLOCK / 32];
    const float* row = x + blockIdx.x * cols;
    float* out = y + blockIdx.x * cols;
    float m = -__int_as_float(0x7f800000);   // -inf
    for (int c = threadIdx.x; c < cols; c += ROW_BLOCK)
        m = fmaxf(m, row[c]);
    m = block_reduce(m, scratch, true);
    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += ROW_BLOCK)
        s += expf(row[c] - m);
    s = block_reduce(s, scratch, false);
    float inv = 1.0f / s;
    for (int c = threadIdx.x; c < cols; c += ROW_BLOCK)
        out[c] = expf(row[c] - m) * inv;
}

extern "C" __global__ void __launch_bounds__(ROW_BLOCK)
layernorm_rows(const float* x, const float* gamma, const float* beta, float* y, int cols, float eps)
{
    __shared__ float scratch[ROW_BLOCK / 32];
    const float* row = x + blockIdx.x * cols;
    float s = 0.0f, sq = 0.0f;
    for (int c = threadIdx.x; c < cols; c += ROW_BLOCK) {
        float v = row[c];
        s += v;
        sq += v * v;
    }
    s = block_reduce(s, scratch, false);
    sq = block_reduce(sq, scratch, false);
    float mean = s / cols;
    float var = fmaxf(sq / cols - mean * mean, 0.0f);
    float rstd = rsqrtf(var + eps);
    for (int c = threadIdx.x; c < cols; c += ROW_BLOCK)
        y[blockIdx.x * cols + c] = (row[c] - mean) * rstd * gamma[c] + beta[c];
}

extern "C" __global__ void __launch_bounds__(ROW_BLOCK) l2norm_rows(const float* x, float* y, int cols)
{
    __shared__ float scratch[ROW_BLOCK / 32];
    const float* row = x + blockIdx.x * cols;
    float sq = 0.0f;
    for (int c = threadIdx.x; c < cols; c += ROW_BLOCK)
        sq += row[c] * row[c];
    sq = block_reduce(sq, scratch, false);
    float norm = sqrtf(sq);
    for (int c = threadIdx.x; c < cols; c += ROW_BLOCK)
        y[blockIdx.x * cols + c] = row[c] / norm;
}
