// f64_math: double-precision kernels — Horner evaluation of a polynomial, Newton iterations for
// the reciprocal square root checked against sqrt, a dot product with a shared-memory reduction,
// and conversions between double, float and integers with several rounding modes.
// Written for warpforge's corpus (corpus/), in the style of everyday CUDA code.
// License: MIT OR Apache-2.0 (the warpforge project's).

__constant__ double poly[6] = {1.0, -0.5, 0.25, -0.125, 0.0625, -0.03125};

extern "C" __global__ void horner_f64(const double* x, double* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    double v = x[i], acc = poly[5];
#pragma unroll
    for (int k = 4; k >= 0; --k)
        acc = fma(acc, v, poly[k]);
    y[i] = acc;
}

extern "C" __global__ void newton_rsqrt_f64(const double* x, double* r, double* s, double* q, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    double v = x[i];
    double g = (double)rsqrtf((float)v);   // single-precision seed
    for (int it = 0; it < 3; ++it)
        g = g * (1.5 - 0.5 * v * g * g);
    r[i] = g;
    s[i] = sqrt(v);
    q[i] = 1.0 / v;
}

#define DB 128

extern "C" __global__ void __launch_bounds__(DB) dot_f64(const double* a, const double* b, double* partial, int n)
{
    __shared__ double s[DB];
    double acc = 0.0;
    for (int i = blockIdx.x * DB + threadIdx.x; i < n; i += DB * gridDim.x)
        acc += a[i] * b[i];
    s[threadIdx.x] = acc;
    __syncthreads();
    for (int k = DB / 2; k > 0; k /= 2) {
        if (threadIdx.x < k)
            s[threadIdx.x] += s[threadIdx.x + k];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        partial[blockIdx.x] = s[0];
}

extern "C" __global__ void conversions(const double* x, int* ints, float* floats, long long* wide, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    double v = x[i];
    ints[4 * i + 0] = (int)v;                 // toward zero
    ints[4 * i + 1] = __double2int_rd(v);     // down
    ints[4 * i + 2] = __double2int_ru(v);     // up
    ints[4 * i + 3] = __double2int_rn(v);     // nearest even
    floats[2 * i] = (float)v;
    floats[2 * i + 1] = __double2float_rz(v);
    wide[i] = (long long)(v * 1e9);
}
