// half_ops: half-precision arithmetic — elementwise __half2 / __nv_bfloat162 kernels (add, multiply,
// fused multiply-add, max, min, ReLU, negation, absolute value) templated on the pair type,
// float <-> half / bfloat16 conversions (round to nearest even), a dot product of half or bfloat16
// vectors accumulated in f32 (one partial per block, shuffle + shared-memory reduction) and a
// mixed-precision axpy (half storage, f32 arithmetic).
// Written for warpforge's corpus (corpus/), in the style of everyday CUDA code.
// License: MIT OR Apache-2.0 (the warpforge project's).
#include <cuda_fp16.h>
#include <cuda_bf16.h>

// The pair-type operations the kernels need, one overload per type. bfloat16 fma has no
// instruction before sm_80: there it goes through f32 (which may round twice).
__device__ __forceinline__ __half2 fma2(__half2 a, __half2 b, __half2 c) { return __hfma2(a, b, c); }
__device__ __forceinline__ __nv_bfloat162 fma2(__nv_bfloat162 a, __nv_bfloat162 b, __nv_bfloat162 c)
{
#if __CUDA_ARCH__ >= 800
    return __hfma2(a, b, c);
#else
    float2 fa = __bfloat1622float2(a), fb = __bfloat1622float2(b), fc = __bfloat1622float2(c);
    return __floats2bfloat162_rn(__fmaf_rn(fa.x, fb.x, fc.x), __fmaf_rn(fa.y, fb.y, fc.y));
#endif
}
__device__ __forceinline__ __half2 zero2(__half2) { return __float2half2_rn(0.0f); }
__device__ __forceinline__ __nv_bfloat162 zero2(__nv_bfloat162) { return __float2bfloat162_rn(0.0f); }
__device__ __forceinline__ float2 to_float2(__half2 v) { return __half22float2(v); }
__device__ __forceinline__ float2 to_float2(__nv_bfloat162 v) { return __bfloat1622float2(v); }

// n2 pairs: sum = a + b, prod = a * b, fused = a * b + c, mx / mn = max / min(a, b),
// relu = max(a, 0), neg = -a, absb = |b|.
template <typename T2>
__global__ void elementwise2(const T2* a, const T2* b, const T2* c, T2* sum, T2* prod, T2* fused,
                             T2* mx, T2* mn, T2* relu, T2* neg, T2* absb, int n2)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n2; i += gridDim.x * blockDim.x) {
        T2 x = a[i], y = b[i], z = c[i];
        sum[i] = __hadd2(x, y);
        prod[i] = __hmul2(x, y);
        fused[i] = fma2(x, y, z);
        mx[i] = __hmax2(x, y);
        mn[i] = __hmin2(x, y);
        relu[i] = __hmax2(x, zero2(x));
        neg[i] = __hneg2(x);
        absb[i] = __habs2(y);
    }
}

template __global__ void elementwise2<__half2>(const __half2*, const __half2*, const __half2*, __half2*,
                                               __half2*, __half2*, __half2*, __half2*, __half2*,
                                               __half2*, __half2*, int);
template __global__ void elementwise2<__nv_bfloat162>(const __nv_bfloat162*, const __nv_bfloat162*,
                                                      const __nv_bfloat162*, __nv_bfloat162*,
                                                      __nv_bfloat162*, __nv_bfloat162*,
                                                      __nv_bfloat162*, __nv_bfloat162*,
                                                      __nv_bfloat162*, __nv_bfloat162*,
                                                      __nv_bfloat162*, int);

// Conversions of n floats (n even): to half and back, pairs to half2, pairs to bfloat162 and back.
extern "C" __global__ void convert_halves(const float* x, __half* h, float* h_back, __half2* h2,
                                          __nv_bfloat162* bf2, float* bf_back, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (2 * i + 1 >= n)
        return;
    float2 v = make_float2(x[2 * i], x[2 * i + 1]);
    __half lo = __float2half_rn(v.x), hi = __float2half_rn(v.y);
    h[2 * i] = lo;
    h[2 * i + 1] = hi;
    h_back[2 * i] = __half2float(lo);
    h_back[2 * i + 1] = __half2float(hi);
    h2[i] = __float22half2_rn(v);
    __nv_bfloat162 b = __floats2bfloat162_rn(v.x, v.y);
    bf2[i] = b;
    float2 bb = __bfloat1622float2(b);
    bf_back[2 * i] = bb.x;
    bf_back[2 * i + 1] = bb.y;
}

// partial[blockIdx.x] = sum over this block's pairs of x * y, in f32 (blocks of 256 threads,
// grid-stride over n2 pairs).
template <typename T2>
__global__ void dot2_partial(const T2* x, const T2* y, float* partial, int n2)
{
    __shared__ float warp_sums[8];
    float acc = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n2; i += gridDim.x * blockDim.x) {
        float2 a = to_float2(x[i]), b = to_float2(y[i]);
        acc = fmaf(a.x, b.x, acc);
        acc = fmaf(a.y, b.y, acc);
    }
    for (int o = 16; o > 0; o >>= 1)
        acc += __shfl_down_sync(0xffffffffu, acc, o);
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0)
        warp_sums[warp] = acc;
    __syncthreads();
    if (warp == 0) {
        acc = lane < blockDim.x / 32 ? warp_sums[lane] : 0.0f;
        for (int o = 4; o > 0; o >>= 1)
            acc += __shfl_down_sync(0xffffffffu, acc, o);
        if (lane == 0)
            partial[blockIdx.x] = acc;
    }
}

template __global__ void dot2_partial<__half2>(const __half2*, const __half2*, float*, int);
template __global__ void dot2_partial<__nv_bfloat162>(const __nv_bfloat162*, const __nv_bfloat162*,
                                                      float*, int);

// y = alpha * x + y over n elements stored as half or bfloat16, computed in f32 and rounded once
// to the storage type; the tail element of an odd n is handled alone.
template <typename T>
__device__ __forceinline__ float to_f(T v);
template <>
__device__ __forceinline__ float to_f<__half>(__half v) { return __half2float(v); }
template <>
__device__ __forceinline__ float to_f<__nv_bfloat16>(__nv_bfloat16 v) { return __bfloat162float(v); }
template <typename T>
__device__ __forceinline__ T from_f(float v);
template <>
__device__ __forceinline__ __half from_f<__half>(float v) { return __float2half_rn(v); }
template <>
__device__ __forceinline__ __nv_bfloat16 from_f<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }

template <typename T>
__global__ void axpy_mixed(float alpha, const T* x, T* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = from_f<T>(alpha * to_f<T>(x[i]) + to_f<T>(y[i]));
}

template __global__ void axpy_mixed<__half>(float, const __half*, __half*, int);
template __global__ void axpy_mixed<__nv_bfloat16>(float, const __nv_bfloat16*, __nv_bfloat16*, int);
