// transpose: matrix transposes on 2-D grids — naive (uncoalesced writes), tiled through a 32x33
// shared tile (padding against bank conflicts, 32x8 threads, each moving four elements), and a
// tiled copy with the same access pattern, for rectangular matrices whose sides need not be
// multiples of the tile. Written for warpforge's corpus (corpus/), in the style of everyday CUDA
// code. License: MIT OR Apache-2.0 (the warpforge project's).

#define TILE 32
#define ROWS 8

extern "C" __global__ void transpose_naive(float* out, const float* in, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height)
        out[x * height + y] = in[y * width + x];
}

extern "C" __global__ void transpose_tiled(float* out, const float* in, int width, int height)
{
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        if (x < width && y + j < height)
            tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        if (x < height && y + j < width)
            out[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}

extern "C" __global__ void copy_tiled_u16(unsigned short* out, const unsigned short* in, int width, int height)
{
    __shared__ unsigned short tile[TILE][TILE + 2];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
#pragma unroll
    for (int j = 0; j < TILE; j += ROWS)
        if (x < width && y + j < height)
            tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
    __syncthreads();
#pragma unroll
    for (int j = 0; j < TILE; j += ROWS)
        if (x < width && y + j < height)
            out[(y + j) * width + x] = tile[threadIdx.y + j][threadIdx.x] ^ 0x5a5a;
}
