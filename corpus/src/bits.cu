// bits: integer bit manipulation and hashing — popc, clz, ffs, brev, byte_perm, funnel shifts,
// 64-bit mul-hi, sad, a bit-field extract and insert, the murmur3 32-bit finaliser, xorshift64*,
// FNV-1a over bytes and a bitwise CRC-32 with an unrolled inner loop.
// Written for warpforge's corpus (corpus/), in the style of everyday CUDA code.
// License: MIT OR Apache-2.0 (the warpforge project's).

extern "C" __global__ void bit_tricks(const unsigned* a, const unsigned* b, unsigned* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned x = a[i], y = b[i];
    unsigned* o = out + 8 * i;
    o[0] = __popc(x) | (__clz(y) << 8) | (__ffs(x) << 16);
    o[1] = __brev(x);
    o[2] = __byte_perm(x, y, 0x7531);
    o[3] = __funnelshift_l(x, y, y & 31);
    o[4] = __funnelshift_r(x, y, 40);
    o[5] = __umulhi(x, y);
    o[6] = __sad(x & 0xffff, y & 0xffff, x >> 24);
    unsigned field = (x >> (y & 15)) & 0x3ff;          // extract 10 bits at y % 16
    o[7] = (y & ~(0xffu << 12)) | ((field & 0xff) << 12);  // insert 8 of them at bit 12
}

extern "C" __global__ void bits64(const unsigned long long* a, unsigned long long* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned long long x = a[i];
    unsigned long long* o = out + 4 * i;
    o[0] = (unsigned long long)__popcll(x) | ((unsigned long long)__clzll(x) << 32);
    o[1] = __brevll(x);
    o[2] = __umul64hi(x, 0x9e3779b97f4a7c15ull);
    o[3] = (x << 13) | (x >> 51);
}

__device__ __forceinline__ unsigned fmix32(unsigned h)
{
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}

extern "C" __global__ void hashes(const unsigned* keys, unsigned* murmur, unsigned long long* xs, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    murmur[i] = fmix32(keys[i] ^ 0x9747b28cu);
    unsigned long long s = keys[i] | ((unsigned long long)i << 32) | 1ull;
    for (int r = 0; r < 4; ++r) {
        s ^= s >> 12;
        s ^= s << 25;
        s ^= s >> 27;
    }
    xs[i] = s * 0x2545f4914f6cdd1dull;
}

// One 32-byte record per thread.
extern "C" __global__ void fnv_crc32(const unsigned char* records, unsigned* fnv, unsigned* crc, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const unsigned char* r = records + 32 * i;
    unsigned h = 2166136261u, c = 0xffffffffu;
    for (int k = 0; k < 32; ++k) {
        h = (h ^ r[k]) * 16777619u;
        c ^= r[k];
#pragma unroll 8
        for (int bit = 0; bit < 8; ++bit)
            c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
    }
    fnv[i] = h;
    crc[i] = ~c;
}
