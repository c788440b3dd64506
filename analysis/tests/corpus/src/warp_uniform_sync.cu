// warp_uniform_sync: warp collectives under branches that are uniform within each warp although
// they differ between warps of the block: the global warp index (blockIdx.x*blockDim.x+threadIdx.x)/32
// (blockDim.x is a multiple of 32), and a flag loaded from read-only memory at that warp's index.
#define FULL 0xffffffffu

extern "C" __global__ void __launch_bounds__(256)
warp_uniform_sync(float* __restrict__ data, const int* __restrict__ warp_flags, int n)
{
    const unsigned gtid = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned warp = gtid / 32;                  // the same for the 32 lanes of a warp
    float v = gtid < n ? data[gtid] : 0.0f;
    if (warp % 2 == 0) {                              // even warps only
        v += __shfl_xor_sync(FULL, v, 1);
        __syncwarp();
    }
    if (warp_flags[warp] != 0) {                      // warp-uniform flag
        __syncwarp();
        v = __shfl_sync(FULL, v, 0);
    }
    if (gtid < n) data[gtid] = v;
}
