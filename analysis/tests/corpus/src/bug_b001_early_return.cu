// bug_b001_early_return: PLANTED BUG (B001). The bounds check returns early, so in the last block
// the threads past n never reach the barrier that the others wait at.
extern "C" __global__ void __launch_bounds__(256)
bug_b001_early_return(const float* __restrict__ in, float* __restrict__ out, int n)
{
    __shared__ float s[256];
    const int i = blockIdx.x * 256 + threadIdx.x;
    if (i >= n) return;
    s[threadIdx.x] = in[i];
    __syncthreads();                          // BUG(B001:warning): threads with i >= n have returned
    out[i] = s[255 - threadIdx.x];
}
