// atomics64: 64-bit atomics — a sum of 32-bit words into an unsigned long long (warp shuffle
// reduction, one atomicAdd per warp), per-bucket atomicMin/atomicMax on unsigned long long, a
// 64-bit-word bitmap built with atomicOr that also counts distinct keys, the popcount of the
// intersection of two bitmaps, and f64 statistics (atomicAdd on double, a maximum through the
// usual atomicCAS loop on the bit pattern, first
// guessed with a volatile load). Written for warpforge's corpus (corpus/), in the
// style of everyday CUDA code. License: MIT OR Apache-2.0 (the warpforge project's).

#define FULL_MASK 0xffffffffu

__device__ unsigned long long warp_sum_u64(unsigned long long v)
{
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(FULL_MASK, v, offset);
    return v;
}

// total += sum of words (grid-stride)
extern "C" __global__ void sum_u64_atomic(const unsigned* words, unsigned long long* total, int n)
{
    unsigned long long acc = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        acc += words[i];
    acc = warp_sum_u64(acc);
    if ((threadIdx.x & 31) == 0)
        atomicAdd(total, acc);
}

// lo[b] / hi[b]: smallest / largest key with key % buckets == b
extern "C" __global__ void bucket_minmax_u64(const unsigned long long* keys, unsigned long long* lo,
                                             unsigned long long* hi, int buckets, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned long long k = keys[i];
        int b = (int)(k % (unsigned long long)buckets);
        atomicMin(&lo[b], k);
        atomicMax(&hi[b], k);
    }
}

// bit k of the bitmap set for every key k; distinct = number of different keys
extern "C" __global__ void bitmap_build(const int* keys, unsigned long long* bitmap,
                                        unsigned long long* distinct, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int k = keys[i];
        unsigned long long bit = 1ull << (k & 63);
        unsigned long long old = atomicOr(&bitmap[k >> 6], bit);
        if (!(old & bit))
            atomicAdd(distinct, 1ull);
    }
}

// both[w] = a[w] & b[w]; count += popcount of the intersection, reduced per block in shared memory
extern "C" __global__ void bitmap_intersect(const unsigned long long* a, const unsigned long long* b,
                                            unsigned long long* both, unsigned long long* count, int words)
{
    __shared__ unsigned block_bits[32];
    int w = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned bits = 0;
    if (w < words) {
        unsigned long long m = a[w] & b[w];
        both[w] = m;
        bits = __popcll(m);
    }
    for (int offset = 16; offset > 0; offset >>= 1)
        bits += __shfl_down_sync(FULL_MASK, bits, offset);
    if ((threadIdx.x & 31) == 0)
        block_bits[threadIdx.x >> 5] = bits;
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned long long s = 0;
        for (int k = 0; k < (int)(blockDim.x >> 5); ++k)
            s += block_bits[k];
        atomicAdd(count, s);
    }
}

__device__ double atomic_max_f64(double* addr, double v)
{
    unsigned long long* p = (unsigned long long*)addr;
    // the first guess is read volatile: a plain load would race with other threads' atomicCAS
    unsigned long long old = *(volatile unsigned long long*)p, assumed;
    do {
        assumed = old;
        if (__longlong_as_double(assumed) >= v)
            break;
        old = atomicCAS(p, assumed, __double_as_longlong(v));
    } while (old != assumed);
    return __longlong_as_double(old);
}

// x = fixed[i] / 1024: stats[0] += x, stats[1] += x * x, stats[2] = max(stats[2], x)
extern "C" __global__ void f64_stats(const int* fixed, double* stats, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        double x = fixed[i] * (1.0 / 1024.0);
        atomicAdd(&stats[0], x);
        atomicAdd(&stats[1], x * x);
        atomic_max_f64(&stats[2], x);
    }
}
