"""Launches of src/warp_coop.cu (written for warpforge's corpus)."""
import numpy as np
from corpus import Case, buf, out, scalar, ints, uniform, generate

LANG = "cuda"
HELDOUT = False


def tile_votes(a):
    v = np.concatenate([a["in"], np.zeros(12, np.int32)]).reshape(-1, 8)
    o = []
    for t, tile in enumerate(v):
        any_ = int((tile < 0).any())
        all_ = int((tile >= -50).all())
        bal = sum(1 << k for k in range(8) if tile[k] & 1)
        o += [any_ | (all_ << 1) | (bal << 2) | ((t % 8) << 16)] * 8
    return {"out": o[:500]}


def compact(a):
    x = a["in"].reshape(4, 256)
    o = np.zeros((4, 256), np.int32)
    counts = []
    for b in range(4):
        keep = x[b][x[b] % 3 == 0]
        o[b, :len(keep)] = keep
        counts.append(len(keep))
    return {"out": o.reshape(-1), "counts": counts}


def groups(a):
    k = a["keys"].reshape(-1, 32)
    leader = [[int(np.argmax(w == w[l])) for l in range(32)] for w in k]
    size = [[int((w == w[l]).sum()) for l in range(32)] for w in k]
    return {"leader": np.array(leader).reshape(-1), "size": np.array(size).reshape(-1)}


# warps 2 and 5 hold values below 0.5 in magnitude, so that __all_sync sees both answers
VOTE_X = generate(uniform(-1, 1, 126), "f32", 256).reshape(8, 32)
VOTE_X[[2, 5]] *= np.float32(0.5)
VOTE_X = VOTE_X.reshape(-1)


def votes(a):
    w = a["x"].reshape(8, 32)
    o = [int((r < 0).any()) + 2 * int((np.abs(r) < 0.9).all()) + 4 * int((r > 0.5).sum()) for r in w]
    return {"out": np.repeat(o, 32)}


CASES = [
    Case("cg_tile16_sum", "cg_tile16_sum", (8,), (128,),
         [buf("in", "i32", 1000, ints(-1000, 1000, 121)), out("out", "i32", 64), scalar("n", "i32", 1000)],
         lambda a: {"out": np.concatenate([a["in"], np.zeros(24, np.int32)]).reshape(64, 16).sum(1)}),
    Case("cg_tile_votes", "cg_tile_votes", (8,), (64,),
         [buf("in", "i32", 500, ints(-60, 100, 122)), out("out", "u32", 500), scalar("n", "i32", 500)],
         tile_votes),
    # small integers as floats: exact in any order
    Case("syncwarp_reduce", "syncwarp_reduce", (2,), (256,),
         [buf("in", "f32", 512, ints(-8, 8, 123)), out("out", "f32", 16)],
         lambda a: {"out": a["in"].astype(np.float64).reshape(16, 32).sum(1)}),
    Case("block_compact", "block_compact", (4,), (256,),
         [buf("in", "i32", 1024, ints(-1000, 1000, 124)), out("out", "i32", 1024), out("counts", "i32", 4)],
         compact),
    Case("match_groups", "match_groups", (2,), (128,),
         [buf("keys", "i32", 256, ints(0, 6, 125)), out("leader", "i32", 256), out("size", "i32", 256)],
         groups),
    Case("warp_votes", "warp_votes", (2,), (128,),
         [buf("x", "f32", 256, data=VOTE_X), out("out", "i32", 256)],
         votes),
]
