// bug_w001_lane_branch_shfl: PLANTED BUG (W001). A full-mask shuffle inside a branch taken by the
// lower half of each warp only.
extern "C" __global__ void
bug_w001_lane_branch_shfl(const float* __restrict__ in, float* __restrict__ out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int lane = threadIdx.x % 32;
    float v = i < n ? in[i] : 0.0f;
    if (lane < 16)
        v += __shfl_xor_sync(0xffffffffu, v, 1);   // BUG(W001): only lanes 0..15 get here
    if (i < n) out[i] = v;
}
