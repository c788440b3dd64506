// transpose: tiled matrix transpose through shared memory (32x33 tile, padded against bank
// conflicts), launched with 32x8 threads; each thread moves 4 elements in and 4 out.
#define TILE 32
#define ROWS 8

extern "C" __global__ void __launch_bounds__(TILE * ROWS)
transpose(float* __restrict__ out, const float* __restrict__ in, int width, int height)
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
