// bug_a001_misaligned_int: PLANTED BUG (A001). A byte buffer in shared memory read back as ints at
// base + 4*tid + 2: every such address is 2 mod 4 (misaligned address, error 716).
#define BLOCK 128

extern "C" __global__ void __launch_bounds__(BLOCK)
bug_a001_misaligned_int(const int* __restrict__ in, int* __restrict__ out)
{
    __shared__ __align__(16) unsigned char buf[4 * BLOCK + 4];
    const int t = threadIdx.x;
    reinterpret_cast<int*>(buf)[t] = in[blockIdx.x * BLOCK + t];
    __syncthreads();
    const int v = *reinterpret_cast<const int*>(buf + 4 * t + 2);   // BUG(A001): ld.shared.u32, 2 mod 4
    out[blockIdx.x * BLOCK + t] = v;
}
