// raking_warp0: CUB's raking reduction written out by hand. All 256 threads store to shared memory,
// one barrier, then only warp 0 (threadIdx.x < 32, uniform within every warp) rakes 8 elements per
// lane, with __syncwarp() between its shared-memory steps, then a shuffle reduction. The other
// warps skip the warp-level code.
#define BLOCK 256
#define FULL 0xffffffffu

extern "C" __global__ void __launch_bounds__(BLOCK)
raking_warp0(const int* __restrict__ in, int* __restrict__ out)
{
    __shared__ int s[BLOCK];
    const int tid = threadIdx.x;
    s[tid] = in[blockIdx.x * BLOCK + tid];
    __syncthreads();
    if (tid < 32) {
        int sum = 0;
        for (int k = 0; k < BLOCK / 32; ++k) sum += s[tid * (BLOCK / 32) + k];
        __syncwarp();                  // every lane has read its 8 elements
        s[tid] = sum;
        __syncwarp();
        sum += s[tid ^ 16];
        for (int off = 8; off > 0; off >>= 1) sum += __shfl_down_sync(FULL, sum, off);
        if (tid == 0) out[blockIdx.x] = sum;
    }
}
