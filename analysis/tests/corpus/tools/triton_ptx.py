#!/usr/bin/env python3
"""Compile one Triton kernel file of the corpus to PTX for an sm_NN target, without a GPU.

usage: triton_ptx.py SRC.py ARCH OUT.ptx [CASE]     (ARCH: 80 or 90)

SRC.py defines a @triton.jit kernel and a CORPUS dict: kernel, signature, constexprs, num_warps,
optionally num_stages and divisible_by_16 (names of arguments promised to be multiples of 16, as
Triton's launcher would specialise them: pointers 16-byte aligned, integers divisible by 16). With CASE, SRC.py has a TRITON dict of such dicts instead and CASE picks one
(the simulator corpus, corpus/cases/ at the repository root), and OUT.ptx.meta.json gets
Triton's shared-memory size for the launch. The PTX is Triton's own output (its "ptx" stage), written unchanged.
"""
import importlib.util
import json
import os
import sys

import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource


def main() -> int:
    src_path, arch, out_path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    case = sys.argv[4] if len(sys.argv) > 4 else None
    name = os.path.splitext(os.path.basename(src_path))[0]
    spec = importlib.util.spec_from_file_location(name, src_path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    c = mod.CORPUS if case is None else mod.TRITON[case]
    options = {"num_warps": c["num_warps"]}
    if "num_stages" in c:
        options["num_stages"] = c["num_stages"]
    attrs = {(c["kernel"].arg_names.index(a),): [["tt.divisibility", 16]]
             for a in c.get("divisible_by_16", [])}
    src = ASTSource(fn=c["kernel"], signature=c["signature"], constexprs=c["constexprs"], attrs=attrs)
    compiled = triton.compile(src, target=GPUTarget("cuda", arch, 32), options=options)
    with open(out_path, "w") as f:
        f.write(compiled.asm["ptx"])
    if case is not None:   # the launch needs Triton's shared-memory size (dynamic shared memory)
        with open(out_path + ".meta.json", "w") as f:
            json.dump({"shared": compiled.metadata.shared, "name": compiled.metadata.name}, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
