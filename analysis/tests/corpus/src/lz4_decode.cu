// lz4_decode: an LZ4 block decoder, one warp per independent chunk. Lane 0 parses each sequence
// header (token, extended lengths, offset) and broadcasts it with __shfl_sync; the warp copies the
// literals 32 bytes at a time, then the match in rounds of min(offset, 32) bytes (a match may
// overlap its own output), with __syncwarp() between rounds. Every branch around a warp collective
// is warp-uniform: the chunk index is (blockIdx.x*blockDim.x+threadIdx.x)/32 and all loop bounds
// come from lane 0 through shuffles.
extern "C" __global__ void __launch_bounds__(128)
lz4_decode_warp(const unsigned char* __restrict__ in, const unsigned* __restrict__ in_off,
                const unsigned* __restrict__ in_len, unsigned char* __restrict__ out,
                const unsigned* __restrict__ out_off, unsigned* __restrict__ out_len,
                unsigned nchunks)
{
    const unsigned lane = threadIdx.x % 32;
    const unsigned chunk = (blockIdx.x * blockDim.x + threadIdx.x) / 32;   // one chunk per warp
    if (chunk >= nchunks) return;   // whole warps leave together (blockDim.x is a multiple of 32)
    const unsigned char* src = in + in_off[chunk];
    const unsigned src_len = in_len[chunk];
    unsigned char* dst = out + out_off[chunk];
    unsigned ip = 0, op = 0;
    while (ip < src_len) {
        unsigned lit = 0, lit_at = 0, mlen = 0, moff = 0, next = 0;
        if (lane == 0) {                  // lane 0 parses one sequence header
            unsigned p = ip;
            const unsigned token = src[p++];
            lit = token >> 4;
            if (lit == 15) { unsigned b; do { b = src[p++]; lit += b; } while (b == 255); }
            lit_at = p;
            p += lit;
            if (p < src_len) {            // the last sequence has literals only
                moff = src[p] | (src[p + 1] << 8);
                p += 2;
                mlen = token & 15;
                if (mlen == 15) { unsigned b; do { b = src[p++]; mlen += b; } while (b == 255); }
                mlen += 4;
            }
            next = p;
        }
        lit = __shfl_sync(0xffffffffu, lit, 0);
        lit_at = __shfl_sync(0xffffffffu, lit_at, 0);
        mlen = __shfl_sync(0xffffffffu, mlen, 0);
        moff = __shfl_sync(0xffffffffu, moff, 0);
        ip = __shfl_sync(0xffffffffu, next, 0);
        for (unsigned k = lane; k < lit; k += 32) dst[op + k] = src[lit_at + k];
        op += lit;
        __syncwarp();
        if (mlen != 0 && moff == 0) break;                 // corrupt input: stop this chunk
        const unsigned step = moff < 32 ? moff : 32;
        for (unsigned done = 0; done < mlen; done += step) {
            const unsigned k = done + lane;
            if (lane < step && k < mlen) dst[op + k] = dst[op + k - moff];
            __syncwarp();
        }
        op += mlen;
    }
    if (lane == 0) out_len[chunk] = op;
}
