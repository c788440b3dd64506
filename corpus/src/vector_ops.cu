// vector_ops: element-wise vector kernels — bounds-checked add, a grid-stride saxpy, a templated
// scale-and-bias (int, float, double), clamp, float4 vector loads, f64 axpy and signed integer
// division. Written for warpforge's corpus (corpus/), in the style of everyday CUDA code.
// License: MIT OR Apache-2.0 (the warpforge project's).

extern "C" __global__ void vec_add(const float* a, const float* b, float* c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

extern "C" __global__ void saxpy_grid_stride(int n, float alpha, const float* __restrict__ x,
                                             float* __restrict__ y)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        y[i] = alpha * x[i] + y[i];
}

template <typename T>
__global__ void scale_bias(T* out, const T* in, T scale, T bias, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    out[i] = in[i] * scale + bias;
}

template __global__ void scale_bias<int>(int*, const int*, int, int, int);
template __global__ void scale_bias<float>(float*, const float*, float, float, int);
template __global__ void scale_bias<double>(double*, const double*, double, double, int);

extern "C" __global__ void clamp_inplace(float* x, int n, float lo, float hi)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] = fminf(fmaxf(x[i], lo), hi);
}

// n4 float4 elements; the tail (n % 4 scalars) is done by the first threads of block 0.
extern "C" __global__ void vec_mul_float4(const float* a, const float* b, float* c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int n4 = n / 4;
    if (i < n4) {
        float4 x = reinterpret_cast<const float4*>(a)[i];
        float4 y = reinterpret_cast<const float4*>(b)[i];
        reinterpret_cast<float4*>(c)[i] = make_float4(x.x * y.x, x.y * y.y, x.z * y.z, x.w * y.w);
    }
    if (blockIdx.x == 0 && threadIdx.x < n % 4) {
        int j = n4 * 4 + threadIdx.x;
        c[j] = a[j] * b[j];
    }
}

extern "C" __global__ void daxpy(int n, double a, const double* x, double* y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

extern "C" __global__ void int_divmod(const int* a, const int* b, int* q, int* r, int* m, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int x = a[i], y = b[i];
        q[i] = x / y;
        r[i] = x % y;
        m[i] = max(abs(x), min(x, y));
    }
}
