// wmma_gemm: small GEMMs on the tensor cores — nvcuda::wmma with one warp per 16x16 tile of C
// (one warp per block, or 2x2 warps per block), for f16 inputs with f32 or f16 accumulation,
// bfloat16 -> f32, tf32 -> f32 (precision::tf32, m16n16k8) and signed / unsigned 8-bit -> s32,
// with row- and column-major A and B; and a hand-written tile of mma.sync m16n8k16 (f16 in, f32
// accumulate) fed by ldmatrix from padded shared memory, in the manner of CUTLASS-style kernels.
// Where an architecture lacks an operation (bfloat16/tf32/8-bit wmma and mma.sync before sm_80,
// sm_72 for 8-bit), the kernel falls back to plain per-lane loops computing the same tile; so does
// every wmma kernel under NVRTC here, whose PyPI installation lacks mma.h's crt/mma.h.
// Written for warpforge's corpus (corpus/), in the style of everyday CUDA code.
// License: MIT OR Apache-2.0 (the warpforge project's).
#include <cuda_fp16.h>
#include <cuda_bf16.h>

#if !defined(__CUDACC_RTC__)
#include <mma.h>
using namespace nvcuda;
#define HAVE_WMMA 1
#if __CUDA_ARCH__ >= 800
#define HAVE_AMPERE_WMMA 1
#endif
#if __CUDA_ARCH__ >= 720
#define HAVE_INT8_WMMA 1
#endif
#endif

#ifdef HAVE_WMMA
template <typename L> struct is_row { static constexpr bool value = false; };
template <> struct is_row<wmma::row_major> { static constexpr bool value = true; };

// Inputs for the tf32 fragments are rounded to tf32 after loading; other fragments are used as
// loaded.
template <typename Frag> __device__ void round_inputs(Frag&) {}
#ifdef HAVE_AMPERE_WMMA
template <typename L>
__device__ void round_inputs(wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, L>& f)
{
    for (int i = 0; i < f.num_elements; ++i)
        f.x[i] = wmma::__float_to_tf32(f.x[i]);
}
template <typename L>
__device__ void round_inputs(wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, L>& f)
{
    for (int i = 0; i < f.num_elements; ++i)
        f.x[i] = wmma::__float_to_tf32(f.x[i]);
}
#endif

// The 16x16 tile (tm, tn) of C (M x N, row-major) = A (M x K) * B (K x N); A and B row- or
// column-major as LA, LB say; M, N multiples of 16, K of KS. One warp.
template <typename In, typename FragIn, typename Acc, int KS, typename LA, typename LB>
__device__ void wmma_tile(const In* A, const In* B, Acc* C, int M, int N, int K, int tm, int tn)
{
    wmma::fragment<wmma::matrix_a, 16, 16, KS, FragIn, LA> a;
    wmma::fragment<wmma::matrix_b, 16, 16, KS, FragIn, LB> b;
    wmma::fragment<wmma::accumulator, 16, 16, KS, Acc> c;
    wmma::fill_fragment(c, Acc(0));
    for (int k = 0; k < K; k += KS) {
        const In* pa = is_row<LA>::value ? A + tm * 16 * K + k : A + k * M + tm * 16;
        const In* pb = is_row<LB>::value ? B + k * N + tn * 16 : B + tn * 16 * K + k;
        wmma::load_matrix_sync(a, pa, is_row<LA>::value ? K : M);
        wmma::load_matrix_sync(b, pb, is_row<LB>::value ? N : K);
        round_inputs(a);
        round_inputs(b);
        wmma::mma_sync(c, a, b, c);
    }
    wmma::store_matrix_sync(C + tm * 16 * N + tn * 16, c, N, wmma::mem_row_major);
}
#endif

// The same tile with a loop per lane (architectures without the wmma shape).
template <bool A_ROW, bool B_ROW, typename In, typename Acc>
__device__ void scalar_tile(const In* A, const In* B, Acc* C, int M, int N, int K, int tm, int tn)
{
    for (int e = threadIdx.x % 32; e < 256; e += 32) {
        int r = tm * 16 + e / 16, c = tn * 16 + e % 16;
        Acc acc = 0;
        for (int k = 0; k < K; ++k) {
            Acc a = Acc(A_ROW ? A[r * K + k] : A[k * M + r]);
            Acc b = Acc(B_ROW ? B[k * N + c] : B[c * K + k]);
            acc += a * b;
        }
        C[r * N + c] = acc;
    }
}

// Warps of a block cover blockDim.x / 32 x blockDim.y tiles of C.
#define TILE_COORDS                                                  \
    int tn = (blockIdx.x * blockDim.x + threadIdx.x) / 32;          \
    int tm = blockIdx.y * blockDim.y + threadIdx.y;                  \
    if (tm * 16 >= M || tn * 16 >= N)                                \
        return;

extern "C" __global__ void wmma_f16_f32_rowcol(const half* A, const half* B, float* C, int M, int N, int K)
{
    TILE_COORDS
#ifdef HAVE_WMMA
    wmma_tile<half, half, float, 16, wmma::row_major, wmma::col_major>(A, B, C, M, N, K, tm, tn);
#else
    scalar_tile<true, false>(A, B, C, M, N, K, tm, tn);
#endif
}

extern "C" __global__ void wmma_f16_f32_rowrow(const half* A, const half* B, float* C, int M, int N, int K)
{
    TILE_COORDS
#ifdef HAVE_WMMA
    wmma_tile<half, half, float, 16, wmma::row_major, wmma::row_major>(A, B, C, M, N, K, tm, tn);
#else
    scalar_tile<true, true>(A, B, C, M, N, K, tm, tn);
#endif
}

extern "C" __global__ void wmma_f16_f16_colrow(const half* A, const half* B, half* C, int M, int N, int K)
{
    TILE_COORDS
#ifdef HAVE_WMMA
    wmma_tile<half, half, half, 16, wmma::col_major, wmma::row_major>(A, B, C, M, N, K, tm, tn);
#else
    scalar_tile<false, true>(A, B, C, M, N, K, tm, tn);
#endif
}

extern "C" __global__ void wmma_bf16_f32_rowcol(const __nv_bfloat16* A, const __nv_bfloat16* B, float* C,
                                                int M, int N, int K)
{
    TILE_COORDS
#ifdef HAVE_AMPERE_WMMA
    wmma_tile<__nv_bfloat16, __nv_bfloat16, float, 16, wmma::row_major, wmma::col_major>(A, B, C, M, N, K, tm, tn);
#else
    scalar_tile<true, false>(A, B, C, M, N, K, tm, tn);
#endif
}

extern "C" __global__ void wmma_tf32_f32_rowrow(const float* A, const float* B, float* C, int M, int N, int K)
{
    TILE_COORDS
#ifdef HAVE_AMPERE_WMMA
    wmma_tile<float, wmma::precision::tf32, float, 8, wmma::row_major, wmma::row_major>(A, B, C, M, N, K, tm, tn);
#else
    scalar_tile<true, true>(A, B, C, M, N, K, tm, tn);
#endif
}

extern "C" __global__ void wmma_s8_s32_rowcol(const signed char* A, const signed char* B, int* C, int M, int N, int K)
{
    TILE_COORDS
#ifdef HAVE_INT8_WMMA
    wmma_tile<signed char, signed char, int, 16, wmma::row_major, wmma::col_major>(A, B, C, M, N, K, tm, tn);
#else
    scalar_tile<true, false>(A, B, C, M, N, K, tm, tn);
#endif
}

extern "C" __global__ void wmma_u8_s32_colrow(const unsigned char* A, const unsigned char* B, int* C, int M, int N, int K)
{
    TILE_COORDS
#ifdef HAVE_INT8_WMMA
    wmma_tile<unsigned char, unsigned char, int, 16, wmma::col_major, wmma::row_major>(A, B, C, M, N, K, tm, tn);
#else
    scalar_tile<false, true>(A, B, C, M, N, K, tm, tn);
#endif
}

// C (M x N, f32, row-major) = A (M x K, f16, row-major) * B, B given transposed (N x K, row-major:
// the "col" operand of mma.sync). Blocks of 4 warps cover 16 rows x 32 columns: the block stages a
// 16x16 slice of A and a 32x16 slice of B^T per step of k (rows padded to 24 halves, 48 bytes, so
// that ldmatrix's row addresses stay 16-byte aligned); warp w computes columns 8w..8w+7 with one
// m16n8k16 mma.sync per step. M a multiple of 16, N of 32, K of 16.
#define PAD 24
extern "C" __global__ void mma_sync_f16_f32(const half* A, const half* Bt, float* C, int M, int N, int K)
{
    __shared__ __align__(16) half As[16][PAD];
    __shared__ __align__(16) half Bs[32][PAD];
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    int row0 = blockIdx.y * 16, col0 = blockIdx.x * 32;
    float c[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int k0 = 0; k0 < K; k0 += 16) {
        for (int i = threadIdx.x; i < 16 * 16; i += blockDim.x)
            As[i / 16][i % 16] = A[(row0 + i / 16) * K + k0 + i % 16];
        for (int i = threadIdx.x; i < 32 * 16; i += blockDim.x)
            Bs[i / 16][i % 16] = Bt[(col0 + i / 16) * K + k0 + i % 16];
        __syncthreads();
#if __CUDA_ARCH__ >= 800
        unsigned a[4], b[2];
        // ldmatrix .x4: lanes 8m..8m+7 give the rows of 8x8 matrix m; matrices in the order
        // A[0:8, 0:8], A[8:16, 0:8], A[0:8, 8:16], A[8:16, 8:16] (the mma's a0..a3)
        int m = lane / 8, r = lane % 8;
        unsigned a_addr = static_cast<unsigned>(__cvta_generic_to_shared(&As[r + (m % 2) * 8][(m / 2) * 8]));
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                     : "=r"(a[0]), "=r"(a[1]), "=r"(a[2]), "=r"(a[3]) : "r"(a_addr));
        // .x2: lanes 0..7 give B^T[8w + r][0:8], lanes 8..15 B^T[8w + r][8:16] (b0, b1)
        int l = lane % 16;
        unsigned b_addr = static_cast<unsigned>(__cvta_generic_to_shared(&Bs[warp * 8 + l % 8][(l / 8) * 8]));
        asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\n"
                     : "=r"(b[0]), "=r"(b[1]) : "r"(b_addr));
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                     "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                     : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
        // the same fragment positions, one product at a time
        for (int i = 0; i < 4; ++i) {
            int r = lane / 4 + (i / 2) * 8, n = warp * 8 + (lane % 4) * 2 + i % 2;
            for (int k = 0; k < 16; ++k)
                c[i] = fmaf(__half2float(As[r][k]), __half2float(Bs[n][k]), c[i]);
        }
#endif
        __syncthreads();
    }
    // c0, c1: row lane/4, columns 2 (lane%4) and +1; c2, c3: the same 8 rows further down
    int r = row0 + lane / 4, n = col0 + warp * 8 + (lane % 4) * 2;
    C[r * N + n] = c[0];
    C[r * N + n + 1] = c[1];
    C[(r + 8) * N + n] = c[2];
    C[(r + 8) * N + n + 1] = c[3];
}
