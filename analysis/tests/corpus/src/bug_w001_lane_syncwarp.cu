// bug_w001_lane_syncwarp: PLANTED BUG (W001). raking_warp0 with its __syncwarp() (full mask) moved
// under a lane-dependent branch: lanes 16..31 never arrive.
#define BLOCK 256

extern "C" __global__ void __launch_bounds__(BLOCK)
bug_w001_lane_syncwarp(const int* __restrict__ in, int* __restrict__ out)
{
    __shared__ int s[BLOCK];
    const int tid = threadIdx.x;
    s[tid] = in[blockIdx.x * BLOCK + tid];
    __syncthreads();
    if (tid < 32) {
        int sum = 0;
        for (int k = 0; k < BLOCK / 32; ++k) sum += s[tid * (BLOCK / 32) + k];
        if (tid < 16) __syncwarp();         // BUG(W001): bar.warp.sync 0xffffffff by half the warp
        if (tid == 0) out[blockIdx.x] = sum;
    }
}
