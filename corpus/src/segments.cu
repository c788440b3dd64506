// segments: warp-level segment work — an inclusive segmented scan driven by head flags (shuffles
// carry the flag with the value), reduce-by-key over sorted keys (one atomicAdd per run tail), a
// per-warp run-length encoding with __ballot_sync and __ffs, a block-wide inclusive prefix maximum
// (shuffle scan per warp, warp totals scanned in shared memory), and the per-block digit counts of
// an LSD radix sort pass, lanes with the same digit found by four ballots. Written for
// warpforge's corpus (corpus/), in the style of everyday CUDA code. License: MIT OR Apache-2.0
// (the warpforge project's).

#define FULL_MASK 0xffffffffu
#define SEG_BLOCK 256
#define RADIX_BINS 16
#define NEG_INF __int_as_float(0xff800000)

// out[i] = sum of vals from the last head at or before i, segments also restart at each warp
extern "C" __global__ void seg_scan_warp(const int* vals, const unsigned char* heads, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    int v = 0;
    int f = 1;
    if (i < n) {
        v = vals[i];
        f = heads[i] != 0;
    }
    if (lane == 0)
        f = 1;
    for (int d = 1; d < 32; d <<= 1) {
        int up_v = __shfl_up_sync(FULL_MASK, v, d);
        int up_f = __shfl_up_sync(FULL_MASK, f, d);
        if (lane >= d) {
            if (!f)
                v += up_v;
            f |= up_f;
        }
    }
    if (i < n)
        out[i] = v;
}

// keys sorted ascending: sums[k] += every vals[i] with keys[i] == k
extern "C" __global__ void reduce_by_key(const int* keys, const int* vals, int* sums, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    bool valid = i < n;
    int k = valid ? keys[i] : -1;
    int v = valid ? vals[i] : 0;
    int prev = __shfl_up_sync(FULL_MASK, k, 1);
    int next = __shfl_down_sync(FULL_MASK, k, 1);
    int head = lane == 0 || prev != k;
    bool tail = lane == 31 || next != k;
    for (int d = 1; d < 32; d <<= 1) {
        int up_v = __shfl_up_sync(FULL_MASK, v, d);
        int up_h = __shfl_up_sync(FULL_MASK, head, d);
        if (lane >= d && !head) {
            v += up_v;
            head = up_h;
        }
    }
    if (valid && tail)
        atomicAdd(&sums[k], v);
}

// each warp encodes its 32 elements: run values and lengths at warp * 32 + run, runs per warp
extern "C" __global__ void rle_warp(const int* in, int* run_vals, int* run_lens, int* run_counts, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned lane = threadIdx.x & 31;
    int warp = i >> 5;
    int base = warp * 32;
    bool valid = i < n;
    int x = valid ? in[i] : 0;
    int left = __shfl_up_sync(FULL_MASK, x, 1);
    bool head = valid && (lane == 0 || left != x);
    unsigned heads = __ballot_sync(FULL_MASK, head);
    int limit = min(32, n - base);
    if (head) {
        int run = __popc(heads & ((1u << lane) - 1u));
        unsigned later = heads & ~((2u << lane) - 1u);
        int end = later ? __ffs(later) - 1 : limit;
        run_vals[base + run] = x;
        run_lens[base + run] = end - (int)lane;
    }
    if (lane == 0 && valid)
        run_counts[warp] = __popc(heads);
}

// out[i] = max(in[b * SEG_BLOCK .. i]) within block b
extern "C" __global__ void __launch_bounds__(SEG_BLOCK) block_prefix_max(const float* in, float* out, int n)
{
    __shared__ float warp_max[SEG_BLOCK / 32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    int warp = threadIdx.x >> 5;
    float x = i < n ? in[i] : NEG_INF;
    for (int d = 1; d < 32; d <<= 1) {
        float y = __shfl_up_sync(FULL_MASK, x, d);
        if (lane >= d)
            x = fmaxf(x, y);
    }
    if (lane == 31)
        warp_max[warp] = x;
    __syncthreads();
    if (warp == 0) {
        float w = lane < SEG_BLOCK / 32 ? warp_max[lane] : NEG_INF;
        for (int d = 1; d < SEG_BLOCK / 32; d <<= 1) {
            float y = __shfl_up_sync(FULL_MASK, w, d);
            if (lane >= d)
                w = fmaxf(w, y);
        }
        __syncwarp();
        if (lane < SEG_BLOCK / 32)
            warp_max[lane] = w;
    }
    __syncthreads();
    if (warp > 0)
        x = fmaxf(x, warp_max[warp - 1]);
    if (i < n)
        out[i] = x;
}

// counts[b * 16 + d]: how many keys of block b have digit d at bits shift..shift+3
extern "C" __global__ void radix_digit_counts(const unsigned* keys, unsigned* counts, int shift, int n)
{
    __shared__ unsigned bins[RADIX_BINS];
    if (threadIdx.x < RADIX_BINS)
        bins[threadIdx.x] = 0;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned lane = threadIdx.x & 31;
    bool valid = i < n;
    unsigned digit = valid ? (keys[i] >> shift) & (RADIX_BINS - 1) : 0;
    unsigned peers = __ballot_sync(FULL_MASK, valid);
    for (int b = 0; b < 4; ++b) {
        unsigned bit = (digit >> b) & 1u;
        unsigned ones = __ballot_sync(FULL_MASK, bit);
        peers &= bit ? ones : ~ones;
    }
    if (valid && (unsigned)(__ffs(peers) - 1) == lane)
        atomicAdd(&bins[digit], __popc(peers));
    __syncthreads();
    if (threadIdx.x < RADIX_BINS)
        counts[blockIdx.x * RADIX_BINS + threadIdx.x] = bins[threadIdx.x];
}
