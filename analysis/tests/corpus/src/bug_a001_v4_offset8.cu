// bug_a001_v4_offset8: PLANTED BUG (A001). float4 loads from a 16-byte-aligned char buffer at
// offset 8 + 16*tid: nvcc emits ld.shared.v4.f32 at an address that is 8 mod 16.
#define BLOCK 128

extern "C" __global__ void __launch_bounds__(BLOCK)
bug_a001_v4_offset8(const float4* __restrict__ in, float4* __restrict__ out)
{
    __shared__ __align__(16) char buf[16 * BLOCK + 16];
    const int t = threadIdx.x;
    reinterpret_cast<float4*>(buf)[t] = in[blockIdx.x * BLOCK + t];
    __syncthreads();
    const float4 v = *reinterpret_cast<const float4*>(buf + 8 + 16 * t);   // BUG(A001): ld.shared.v4, 8 mod 16
    out[blockIdx.x * BLOCK + t] = v;
}
