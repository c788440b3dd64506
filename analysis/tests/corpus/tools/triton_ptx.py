#!/usr/bin/env python3
"""Compile one Triton kernel file of the corpus to PTX for an sm_NN target, without a GPU.

usage: triton_ptx.py SRC.py ARCH OUT.ptx      (ARCH: 80 or 90)

SRC.py defines a @triton.jit kernel and a CORPUS dict: kernel, signature, constexprs, num_warps,
optionally num_stages. The PTX is Triton's own output (its "ptx" stage), written unchanged.
"""
import importlib.util
import os
import sys

import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource


def main() -> int:
    src_path, arch, out_path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    name = os.path.splitext(os.path.basename(src_path))[0]
    spec = importlib.util.spec_from_file_location(name, src_path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    c = mod.CORPUS
    options = {"num_warps": c["num_warps"]}
    if "num_stages" in c:
        options["num_stages"] = c["num_stages"]
    src = ASTSource(fn=c["kernel"], signature=c["signature"], constexprs=c["constexprs"])
    compiled = triton.compile(src, target=GPUTarget("cuda", arch, 32), options=options)
    with open(out_path, "w") as f:
        f.write(compiled.asm["ptx"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
