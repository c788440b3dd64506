// bug_b001_divergent_loop: PLANTED BUG (B001). A smoothing loop whose trip count depends on the
// thread (threadIdx.x % 4), with a barrier in its body: threads leave the loop at different times.
extern "C" __global__ void __launch_bounds__(256)
bug_b001_divergent_loop(float* __restrict__ data)
{
    __shared__ float s[256];
    const int t = threadIdx.x;
    float v = data[blockIdx.x * 256 + t];
    for (int k = 0; k < t % 4; ++k) {
        s[t] = v;
        __syncthreads();                      // BUG(B001:warning): loop trip count depends on threadIdx.x
        v = 0.5f * (v + s[(t + 1) % 256]);
    }
    data[blockIdx.x * 256 + t] = v;
}
