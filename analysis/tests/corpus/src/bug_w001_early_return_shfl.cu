// bug_w001_early_return_shfl: PLANTED BUG (W001). The bounds check returns early, then a full-mask
// shuffle: in the warp that straddles n, the lanes that returned are named in the mask but absent.
// (nvcc puts the -1 mask in a register, not an immediate.)
extern "C" __global__ void
bug_w001_early_return_shfl(const float* __restrict__ in, float* __restrict__ out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = in[i];
    v += __shfl_down_sync(0xffffffffu, v, 1);   // BUG(W001): lanes past n have returned
    out[i] = v;
}
