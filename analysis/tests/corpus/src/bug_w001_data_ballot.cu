// bug_w001_data_ballot: PLANTED BUG (W001). vote_match's ballot moved inside a branch on the loaded
// value: only the lanes with a positive input execute the full-mask __ballot_sync.
extern "C" __global__ void
bug_w001_data_ballot(const float* __restrict__ in, unsigned* __restrict__ out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const float x = i < n ? in[i] : 0.0f;
    unsigned b = 0;
    if (x > 0.0f)
        b = __ballot_sync(0xffffffffu, x > 1.0f);  // BUG(W001): data-dependent branch
    if (i < n) out[i] = b;
}
