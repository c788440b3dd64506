// bug_s001_off_by_one: PLANTED BUG (S001). A shared array sized exactly to the block
// (__launch_bounds__(256): at most 256 threads, .maxntid 256) read at threadIdx.x + 1: thread 255
// reads s[256], one past the end.
#define BLOCK 256

extern "C" __global__ void __launch_bounds__(BLOCK)
bug_s001_off_by_one(const int* __restrict__ in, int* __restrict__ out)
{
    __shared__ int s[BLOCK];
    const int t = threadIdx.x;
    s[t] = in[blockIdx.x * BLOCK + t];
    __syncthreads();
    out[blockIdx.x * BLOCK + t] = s[t] - s[t + 1];   // BUG(S001): s[256] for threadIdx.x == 255
}
