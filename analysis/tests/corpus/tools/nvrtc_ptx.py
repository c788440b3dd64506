#!/usr/bin/env python3
"""Compile one CUDA C++ file to PTX with NVRTC (loaded with ctypes; no CUDA install, no GPU).

usage: nvrtc_ptx.py LIBNVRTC SRC.cu OUT.ptx [nvrtc options...]

The source is passed to NVRTC under its base name, so the output does not depend on where the
checkout lives. Writes the PTX exactly as NVRTC returns it (without the trailing NUL).
"""
import ctypes
import os
import sys


def main() -> int:
    lib_path, src_path, out_path, *opts = sys.argv[1:]
    nvrtc = ctypes.CDLL(lib_path)
    major, minor = ctypes.c_int(), ctypes.c_int()
    nvrtc.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor))
    nvrtc.nvrtcGetErrorString.restype = ctypes.c_char_p

    def check(status, what):
        if status != 0:
            raise SystemExit(f"{what}: {nvrtc.nvrtcGetErrorString(status).decode()}")

    with open(src_path, "rb") as f:
        src = f.read()
    prog = ctypes.c_void_p()
    check(nvrtc.nvrtcCreateProgram(ctypes.byref(prog), src,
                                   os.path.basename(src_path).encode(), 0, None, None),
          "nvrtcCreateProgram")
    c_opts = (ctypes.c_char_p * len(opts))(*[o.encode() for o in opts])
    status = nvrtc.nvrtcCompileProgram(prog, len(opts), c_opts)
    log_size = ctypes.c_size_t()
    nvrtc.nvrtcGetProgramLogSize(prog, ctypes.byref(log_size))
    log = ctypes.create_string_buffer(log_size.value)
    nvrtc.nvrtcGetProgramLog(prog, log)
    if log.value.strip():
        sys.stderr.write(log.value.decode(errors="replace"))
    check(status, f"nvrtcCompileProgram({src_path})")
    ptx_size = ctypes.c_size_t()
    check(nvrtc.nvrtcGetPTXSize(prog, ctypes.byref(ptx_size)), "nvrtcGetPTXSize")
    ptx = ctypes.create_string_buffer(ptx_size.value)
    check(nvrtc.nvrtcGetPTX(prog, ptx), "nvrtcGetPTX")
    with open(out_path, "wb") as f:
        f.write(ptx.value)
    return 0


if __name__ == "__main__":
    sys.exit(main())
