// bug_w002_partial_mask: PLANTED BUG (W002). A shuffle that every lane reaches, with a constant mask
// naming lanes 0..15 only: lanes 16..31 execute a collective whose mask excludes them.
extern "C" __global__ void
bug_w002_partial_mask(const float* __restrict__ in, float* __restrict__ out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? in[i] : 0.0f;
    v = __shfl_sync(0x0000ffffu, v, 0);      // BUG(W002): all 32 lanes, mask of 16
    if (i < n) out[i] = v;
}
