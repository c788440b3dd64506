// bug_s001_past_end: PLANTED BUG (S001). Writes a second copy of each element at s[BLOCK + t],
// past the end of s for every thread (the array was meant to be 2*BLOCK long).
#define BLOCK 128

extern "C" __global__ void __launch_bounds__(BLOCK)
bug_s001_past_end(const int* __restrict__ in, int* __restrict__ out)
{
    __shared__ int s[BLOCK];
    const int t = threadIdx.x;
    const int v = in[blockIdx.x * BLOCK + t];
    s[t] = v;
    s[BLOCK + t] = 2 * v;                     // BUG(S001): index 128..255 in an array of 128
    __syncthreads();
    out[blockIdx.x * BLOCK + t] = s[BLOCK - 1 - t];
}
