// stencils: neighbourhood computations — a 1-D 7-point stencil with a shared halo, a 2-D 5-point
// Jacobi step on 16x16 tiles with halos, a 1-D convolution whose taps live in __constant__ memory,
// and a 3-D 7-point Laplacian on a 3-D grid of 3-D blocks. Written for warpforge's corpus
// (corpus/), in the style of everyday CUDA code. License: MIT OR Apache-2.0 (the warpforge project's).

#define RADIUS 3
#define BLOCK1D 128

extern "C" __global__ void stencil1d(const int* in, int* out, int n)
{
    __shared__ int s[BLOCK1D + 2 * RADIUS];
    int g = blockIdx.x * BLOCK1D + threadIdx.x;
    int l = threadIdx.x + RADIUS;
    s[l] = g < n ? in[g] : 0;
    if (threadIdx.x < RADIUS) {
        int left = g - RADIUS, right = g + BLOCK1D;
        s[l - RADIUS] = left >= 0 ? in[left] : 0;
        s[l + BLOCK1D] = right < n ? in[right] : 0;
    }
    __syncthreads();
    int acc = 0;
#pragma unroll
    for (int o = -RADIUS; o <= RADIUS; ++o)
        acc += s[l + o] * (RADIUS + 1 - abs(o));
    if (g < n)
        out[g] = acc;
}

#define T2 16

// One Jacobi step with fixed (copied) boundary: out = 0.25 * (N + S + E + W) inside.
extern "C" __global__ void jacobi2d(const float* in, float* out, int nx, int ny)
{
    __shared__ float s[T2 + 2][T2 + 2];
    int x = blockIdx.x * T2 + threadIdx.x;
    int y = blockIdx.y * T2 + threadIdx.y;
    int tx = threadIdx.x + 1, ty = threadIdx.y + 1;
    bool inside = x < nx && y < ny;
    s[ty][tx] = inside ? in[y * nx + x] : 0.0f;
    if (threadIdx.x == 0 && x > 0 && y < ny)
        s[ty][0] = in[y * nx + x - 1];
    if (threadIdx.x == T2 - 1 && x + 1 < nx && y < ny)
        s[ty][T2 + 1] = in[y * nx + x + 1];
    if (threadIdx.y == 0 && y > 0 && x < nx)
        s[0][tx] = in[(y - 1) * nx + x];
    if (threadIdx.y == T2 - 1 && y + 1 < ny && x < nx)
        s[T2 + 1][tx] = in[(y + 1) * nx + x];
    __syncthreads();
    if (!inside)
        return;
    if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1)
        out[y * nx + x] = s[ty][tx];
    else
        out[y * nx + x] = 0.25f * (s[ty - 1][tx] + s[ty + 1][tx] + s[ty][tx - 1] + s[ty][tx + 1]);
}

__constant__ float taps[5] = {0.0625f, 0.25f, 0.375f, 0.25f, 0.0625f};

extern "C" __global__ void conv1d_const(const float* in, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float acc = 0.0f;
#pragma unroll
    for (int k = 0; k < 5; ++k) {
        int j = min(max(i + k - 2, 0), n - 1);
        acc += taps[k] * in[j];
    }
    out[i] = acc;
}

// nx x ny x nz volume, x fastest; the boundary is zero.
extern "C" __global__ void laplace3d(const int* in, int* out, int nx, int ny, int nz)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;
    if (x >= nx || y >= ny || z >= nz)
        return;
    int i = (z * ny + y) * nx + x;
    if (x == 0 || y == 0 || z == 0 || x == nx - 1 || y == ny - 1 || z == nz - 1) {
        out[i] = 0;
        return;
    }
    out[i] = in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx] + in[i - nx * ny] + in[i + nx * ny] - 6 * in[i];
}
