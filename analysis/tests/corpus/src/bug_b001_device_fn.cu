// bug_b001_device_fn: PLANTED BUG (B001). device_barrier's out-of-line exchange() (which contains
// __syncthreads()) called under a branch on loaded data: only the threads whose input is positive
// reach the barrier inside the function.
#define BLOCK 128

__device__ __noinline__ float exchange(float* s, float v)
{
    s[threadIdx.x] = v;
    __syncthreads();                          // the barrier, reached through the call below
    const float other = s[(threadIdx.x + 1) % BLOCK];
    __syncthreads();
    return other;
}

extern "C" __global__ void __launch_bounds__(BLOCK)
bug_b001_device_fn(const float* __restrict__ in, float* __restrict__ out)
{
    __shared__ float s[BLOCK];
    const int i = blockIdx.x * BLOCK + threadIdx.x;
    float v = in[i];
    if (v > 0.0f) v = exchange(s, v);         // BUG(B001:warning): bar.sync (line 9), divergent call
    out[i] = v;
}
