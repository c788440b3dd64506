// vote_match: warp vote and match intrinsics on code where every lane of the warp arrives.
//   vote_match_count - __any_sync, __all_sync, __ballot_sync, __match_any_sync (peer groups of equal
//                      keys: the leader of each group adds the group size), __match_all_sync
//   ballot_subset    - a mask from __ballot_sync before a branch, used as the mask of a shuffle
//                      inside the branch (the correct way to use a collective under divergence)
#define FULL 0xffffffffu

extern "C" __global__ void
vote_match_count(const int* __restrict__ keys, int* __restrict__ counts,
                 unsigned* __restrict__ flags, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int lane = threadIdx.x % 32;
    const int key = i < n ? keys[i] : -1;           // out-of-range lanes stay and vote
    const unsigned any_neg = __any_sync(FULL, key < 0);
    const unsigned all_pos = __all_sync(FULL, key > 0);
    const unsigned odd = __ballot_sync(FULL, key & 1);
    const unsigned peers = __match_any_sync(FULL, key);
    int pred;
    const unsigned same = __match_all_sync(FULL, key >> 4, &pred);
    const int leader = __ffs(peers) - 1;
    if (lane == leader && key >= 0) atomicAdd(&counts[key & 1023], __popc(peers));
    if (lane == 0) flags[i / 32] = odd ^ (all_pos << 31) ^ (any_neg << 30) ^ (pred ? same : 0u);
}

extern "C" __global__ void
ballot_subset(const float* __restrict__ in, float* __restrict__ out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const float x = i < n ? in[i] : 0.0f;
    const unsigned positive = __ballot_sync(FULL, x > 0.0f);
    float y = 0.0f;
    if (x > 0.0f) {
        const int first = __ffs(positive) - 1;
        y = __shfl_sync(positive, x, first);   // only the lanes in `positive` are here
    }
    if (i < n) out[i] = y;
}
