"""Launches of src/bits.cu (written for warpforge's corpus). References in Python integers."""
import numpy as np
from corpus import Case, buf, out, scalar, bits

LANG = "cuda"
HELDOUT = False
M32, M64 = (1 << 32) - 1, (1 << 64) - 1


def clz(x, w):
    return w - x.bit_length()


def ffs(x):
    return (x & -x).bit_length()


def brev(x, w):
    return int(format(x, f"0{w}b")[::-1], 2)


def byte_perm(x, y, sel):
    b = (x | (y << 32)).to_bytes(8, "little")
    return sum(b[(sel >> (4 * k)) & 7] << (8 * k) for k in range(4))


def bit_tricks(a):
    o = []
    for x, y in zip(map(int, a["a"]), map(int, a["b"])):
        wide = x | (y << 32)
        field = (x >> (y & 15)) & 0x3FF
        o += [bin(x).count("1") | (clz(y, 32) << 8) | (ffs(x) << 16),
              brev(x, 32),
              byte_perm(x, y, 0x7531),
              ((wide << (y & 31)) >> 32) & M32,
              (wide >> 8) & M32,
              (x * y) >> 32,
              (abs((x & 0xFFFF) - (y & 0xFFFF)) + (x >> 24)) & M32,
              (y & ~(0xFF << 12) & M32) | ((field & 0xFF) << 12)]
    return {"out": o}


def bits64(a):
    o = []
    for x in map(int, a["a"]):
        o += [bin(x).count("1") | (clz(x, 64) << 32), brev(x, 64), (x * 0x9E3779B97F4A7C15) >> 64,
              ((x << 13) | (x >> 51)) & M64]
    return {"out": np.array(o, np.uint64)}   # not through float64: values above 2^63


def fmix32(h):
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & M32
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & M32
    return h ^ (h >> 16)


def hashes(a):
    mm, xs = [], []
    for i, k in enumerate(map(int, a["keys"])):
        mm.append(fmix32(k ^ 0x9747B28C))
        s = k | (i << 32) | 1
        for _ in range(4):
            s ^= s >> 12
            s = (s ^ (s << 25)) & M64
            s ^= s >> 27
        xs.append((s * 0x2545F4914F6CDD1D) & M64)
    return {"murmur": mm, "xs": np.array(xs, np.uint64)}


def fnv_crc(a):
    fnv, crc = [], []
    recs = a["records"].reshape(-1, 32)
    for r in recs:
        h, c = 2166136261, 0xFFFFFFFF
        for byte in map(int, r):
            h = ((h ^ byte) * 16777619) & M32
            c ^= byte
            for _ in range(8):
                c = (c >> 1) ^ (0xEDB88320 if c & 1 else 0)
        fnv.append(h)
        crc.append(c ^ M32)
    return {"fnv": fnv, "crc": crc}


CASES = [
    Case("bit_tricks", "bit_tricks", (3,), (128,),
         [buf("a", "u32", 300, bits(101)), buf("b", "u32", 300, bits(102)), out("out", "u32", 2400),
          scalar("n", "i32", 300)],
         bit_tricks),
    Case("bits64", "bits64", (2,), (128,),
         [buf("a", "u64", 200, bits(103)), out("out", "u64", 800), scalar("n", "i32", 200)],
         bits64),
    Case("hashes", "hashes", (4,), (128,),
         [buf("keys", "u32", 500, bits(104)), out("murmur", "u32", 500), out("xs", "u64", 500),
          scalar("n", "i32", 500)],
         hashes),
    Case("fnv_crc32", "fnv_crc32", (2,), (128,),
         [buf("records", "u8", 6400, bits(105)), out("fnv", "u32", 200), out("crc", "u32", 200),
          scalar("n", "i32", 200)],
         fnv_crc),
]
