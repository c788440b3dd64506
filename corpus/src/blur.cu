// blur: a 3x3 box filter on multi-channel images, one channel per blockIdx.z of a 3-D grid, edges
// clamped; a template instantiated for int (truncating mean), float and double (correctly rounded
// mean). Written for warpforge's corpus (corpus/), in the style of everyday CUDA code.
// License: MIT OR Apache-2.0 (the warpforge project's).

template <typename T>
__global__ void box3x3(const T* in, T* out, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height)
        return;
    size_t plane = (size_t)blockIdx.z * width * height;
    const T* src = in + plane;
    T sum = 0;
    for (int dy = -1; dy <= 1; ++dy) {
        int yy = min(max(y + dy, 0), height - 1);
        for (int dx = -1; dx <= 1; ++dx) {
            int xx = min(max(x + dx, 0), width - 1);
            sum += src[yy * width + xx];
        }
    }
    out[plane + y * width + x] = sum / T(9);
}

template __global__ void box3x3<int>(const int*, int*, int, int);
template __global__ void box3x3<float>(const float*, float*, int, int);
template __global__ void box3x3<double>(const double*, double*, int, int);
