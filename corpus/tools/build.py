#!/usr/bin/env python3
"""Builds the simulator corpus from the staging directory (run by ../regenerate.sh).

usage: build.py STAGE OUT_DIR [SOURCE_STEM...]

For every cases/<stem>.py: compiles src/<stem>.cu four ways (nvcc 13 sm_80, the same with
-lineinfo, sm_90; NVRTC 12.9 sm_70) or each Triton case of src/<stem>.py two ways (sm_80, sm_90),
then writes one launch JSON per (case, build), the expected outputs (numpy) per case, manifest.tsv.
Compiler outputs are cached in STAGE/cache by a hash of the source and the command.
"""
import concurrent.futures
import hashlib
import importlib.util
import json
import os
import re
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import corpus  # noqa: E402

LINT_TOOLS = os.path.join(HERE, "..", "..", "analysis", "tests", "corpus", "tools")
ENV = os.environ
PYTHON = ENV.get("PYTHON", sys.executable)
NVCC_VERSION = ENV.get("NVCC_VERSION", "nvcc 13.0")
MAX_ENTRY_BYTES = 64 * 1024


def cuda_builds(stage):
    nvcc = [f"{stage}/cuda13/bin/nvcc", "-ptx", "-O3", "-std=c++17", "-I", f"{stage}/cuda13/include",
            "-isystem", f"{stage}/cuda13/include/cccl"]
    nvrtc = [PYTHON, os.path.join(LINT_TOOLS, "nvrtc_ptx.py"),
             f"{stage}/nvrtc129/cuda_nvrtc/lib/libnvrtc.so.12"]
    nvrtc_flags = ["-arch=compute_70", "-std=c++17", f"-I{stage}/nvrtc129/cuda_runtime/include",
                   f"-I{stage}/nvrtc129/cuda_cccl/include", "-diag-suppress=1444",
                   f"-I{stage}/nvrtc-stub"]
    v = f"({NVCC_VERSION}, PyPI nvidia-cuda-nvcc 13.0.88)"
    return [
        ("nvcc13.sm80", lambda s, o: nvcc + ["-arch=sm_80", s, "-o", o],
         f"nvcc -ptx -O3 -std=c++17 -arch=sm_80 {v}"),
        ("nvcc13-lineinfo.sm80", lambda s, o: nvcc + ["-arch=sm_80", "-lineinfo", s, "-o", o],
         f"nvcc -ptx -O3 -std=c++17 -arch=sm_80 -lineinfo {v}"),
        ("nvcc13.sm90", lambda s, o: nvcc + ["-arch=sm_90", s, "-o", o],
         f"nvcc -ptx -O3 -std=c++17 -arch=sm_90 {v}"),
        ("nvrtc129.sm70", lambda s, o: nvrtc + [s, o] + nvrtc_flags,
         "NVRTC 12.9.86 (PyPI nvidia-cuda-nvrtc-cu12 12.9.86) -arch=compute_70 -std=c++17"),
    ]


def triton_builds(case_file, case):
    tp = os.path.join(LINT_TOOLS, "triton_ptx.py")
    return [
        (f"triton39.sm{a}", (lambda a: lambda s, o: [PYTHON, tp, case_file, str(a), o, case])(a),
         f'triton 3.9.0, triton.compile(ASTSource(...), target=GPUTarget("cuda", {a}, 32)); '
         f"case {case} of cases/{os.path.basename(case_file)}")
        for a in (80, 90)
    ]


def compile_cached(stage, src, cmd, out, header, inputs=()):
    h = hashlib.sha256("\0".join(cmd).encode())
    for path in (src, *inputs):
        with open(path, "rb") as f:
            h.update(f.read())
    key = h.hexdigest()
    cached = os.path.join(stage, "cache", key + ".ptx")
    if not os.path.exists(cached):
        os.makedirs(os.path.dirname(cached), exist_ok=True)
        r = subprocess.run([cached + ".tmp" if c == out else c for c in cmd],
                           capture_output=True, text=True, cwd=os.path.dirname(src))
        if r.returncode != 0:
            raise SystemExit(f"compile failed: {' '.join(cmd)}\n{r.stdout}\n{r.stderr}")
        if os.path.exists(cached + ".tmp.meta.json"):
            os.rename(cached + ".tmp.meta.json", cached + ".meta.json")
        os.rename(cached + ".tmp", cached)
    with open(cached) as f:
        text = f.read()
    meta = {}
    if os.path.exists(cached + ".meta.json"):
        with open(cached + ".meta.json") as f:
            meta = json.load(f)
    with open(out, "w") as f:
        f.write("".join(f"// {h}\n" for h in header) + text)
    return text, meta


ENTRY = re.compile(r"\.entry\s+([A-Za-z0-9_$]+)\s*\(([^)]*)\)", re.S)
PARAM = re.compile(r"\.param\s+(?:\.align\s+\d+\s+)?\.(\w+)(?:\s+\.ptr(?:\s+\.\w+)*(?:\s+\.align\s+\d+)?)?\s+([A-Za-z0-9_$]+)(\[\d+\])?")


def entries(text):
    out = {}
    for m in ENTRY.finditer(text):
        out[m.group(1)] = [(p.group(1), p.group(2), p.group(3)) for p in PARAM.finditer(m.group(2))]
    return out


def resolve(ents, want, where):
    if want in ents:
        return want
    hits = [e for e in ents if e.startswith(f"_Z{len(want)}{want}")] or [e for e in ents if want in e]
    if len(hits) != 1:
        raise SystemExit(f"{where}: entry `{want}` matches {hits} of {list(ents)}")
    return hits[0]


def load_cases(path):
    spec = importlib.util.spec_from_file_location(os.path.basename(path)[:-3], path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def scalar_json(p):
    v = p.value
    return float(v) if p.ty[0] == "f" else int(v)


def write_case_data(out_dir, stem, case, heldout):
    """Expected outputs (numpy reference) and file inputs of one case; returns the params' JSON."""
    arrays, params, total = {}, [], 0
    for p in case.params:
        if isinstance(p, corpus.Scalar):
            arrays[p.name] = p.value
        else:
            arrays[p.name] = p.values().copy()
    want = case.ref({k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in arrays.items()})
    for p in case.params:
        if isinstance(p, corpus.Scalar):
            params.append({"name": p.name, "kind": "scalar", "type": p.ty, "value": scalar_json(p)})
            continue
        j = {"name": p.name, "kind": "buffer", "type": p.ty, "len": p.n, "output": p.output}
        if p.writable:
            j["writable"] = True
        nbytes = p.n * np.dtype(corpus.TYPES[p.ty]).itemsize
        total += nbytes
        if p.data is not None:
            rel = f"inputs/{stem}.{case.name}.{p.name}.bin"
            with open(os.path.join(out_dir, rel), "wb") as f:
                f.write(arrays[p.name].tobytes())
            j["init"] = {"file": rel}
        else:
            j["init"] = p.init
        if p.output:
            w = np.asarray(want[p.name])
            if p.ty == "bf16" and w.dtype != np.uint16:   # values: round once to bfloat16
                w = corpus.bf16_bits(w)
            w = w.astype(corpus.TYPES[p.ty]).reshape(-1)
            assert w.size == p.n, f"{stem}.{case.name}: expected {p.name} has {w.size} elements, not {p.n}"
            rel = f"expected/{stem}.{case.name}.{p.name}.bin"
            with open(os.path.join(out_dir, rel), "wb") as f:
                f.write(w.tobytes())
            j["expected"], j["compare"] = rel, p.cmp
            total += nbytes
        params.append(j)
    missing = set(want) - {p.name for p in case.params if not isinstance(p, corpus.Scalar) and p.output}
    assert not missing, f"{stem}.{case.name}: reference returns non-outputs {missing}"
    assert total <= MAX_ENTRY_BYTES, f"{stem}.{case.name}: {total} bytes of data"
    return params


SIZES = {"u64": 8, "b64": 8, "s64": 8, "f64": 8, "u32": 4, "b32": 4, "s32": 4, "f32": 4,
         "u16": 2, "b16": 2, "s16": 2, "f16": 2, "u8": 1, "b8": 1, "s8": 1}
JSON_SIZES = {"u8": 1, "i8": 1, "u16": 2, "i16": 2, "f16": 2, "bf16": 2, "u32": 4, "i32": 4, "f32": 4,
              "u64": 8, "i64": 8, "f64": 8}


def check_params(where, ptx_params, params, triton):
    params = list(params)
    if triton:   # Triton 3.x appends global_scratch and profile_scratch pointers: pass null
        for _, name, _ in ptx_params[len(params):]:
            params.append({"name": name, "kind": "scalar", "type": "u64", "value": 0})
    if len(params) != len(ptx_params):
        raise SystemExit(f"{where}: {len(params)} parameters given, the entry has {ptx_params}")
    for p, (ty, name, arr) in zip(params, ptx_params):
        size = SIZES.get(ty, 0)
        if arr or (p["kind"] == "buffer" and size != 8) or (
                p["kind"] == "scalar" and JSON_SIZES[p["type"]] != size):
            raise SystemExit(f"{where}: parameter {p['name']} ({p['kind']} {p['type']}) vs .{ty} {name}{arr or ''}")
    return params


def main():
    stage, out_dir, *only = sys.argv[1:]
    for d in ("ptx", "launch", "expected", "inputs"):
        os.makedirs(os.path.join(out_dir, d), exist_ok=True)
    stems = sorted(f[:-3] for f in os.listdir(os.path.join(stage, "cases"))
                   if f.endswith(".py") and not f.startswith("_"))
    if only:
        stems = [s for s in stems if s in only]
    jobs, mods = [], {}
    for stem in stems:
        case_file = os.path.join(stage, "cases", stem + ".py")
        mod = mods[stem] = load_cases(case_file)
        ext = ".cu" if mod.LANG == "cuda" else ".py"
        srcs = getattr(mod, "SOURCES", [stem + ext])
        src = os.path.join(stage, "src", srcs[0])
        names = [c.name for c in mod.CASES]
        assert len(set(names)) == len(names), f"{stem}: duplicate case names"
        if mod.LANG == "cuda":
            for tag, cmd, what in cuda_builds(stage):
                out = os.path.join(out_dir, "ptx", f"{stem}.{tag}.ptx")
                jobs.append((stem, None, tag, src, cmd(srcs[0], out), out,
                             [f"warpforge corpus: src/{srcs[0]}", what], []))
        else:
            for case in mod.CASES:
                for tag, cmd, what in triton_builds(case_file, case.name):
                    out = os.path.join(out_dir, "ptx", f"{stem}.{case.name}.{tag}.ptx")
                    jobs.append((stem, case.name, tag, case_file, cmd(src, out), out,
                                 [f"warpforge corpus: src/{', src/'.join(srcs)}", what],
                                 [os.path.join(stage, "src", x) for x in srcs]))
    texts = {}
    with concurrent.futures.ThreadPoolExecutor(int(ENV.get("JOBS", "2"))) as pool:
        futs = {pool.submit(compile_cached, stage, j[3], j[4], j[5], j[6], j[7]): j for j in jobs}
        for fut in concurrent.futures.as_completed(futs):
            j = futs[fut]
            texts[(j[0], j[1], j[2])] = (*fut.result(), j[5])
            print(f"== {os.path.basename(j[5])}", file=sys.stderr)
    manifest = []
    for stem in stems:
        mod = mods[stem]
        heldout = bool(getattr(mod, "HELDOUT", False))
        ext = ".cu" if mod.LANG == "cuda" else ".py"
        where = ",".join(f"src/{x}" for x in getattr(mod, "SOURCES", [stem + ext]))
        for case in mod.CASES:
            params = write_case_data(out_dir, stem, case, heldout)
            tags = [t for t, _, _ in (cuda_builds(stage) if mod.LANG == "cuda" else triton_builds("", ""))]
            for tag in tags:
                text, meta, ptx_path = texts[(stem, None if mod.LANG == "cuda" else case.name, tag)]
                ents = entries(text)
                entry = resolve(ents, case.entry, f"{stem}.{case.name} ({tag})")
                ps = check_params(f"{stem}.{case.name} ({tag})", ents[entry], params, mod.LANG == "triton")
                compiler, arch = tag.rsplit(".", 1)
                doc = {"id": f"{stem}.{case.name}.{tag}", "kernel": f"{stem}.{case.name}",
                       "source": where, "ptx": os.path.relpath(ptx_path, out_dir),
                       "compiler": compiler, "arch": arch, "heldout": heldout, "entry": entry,
                       "grid": list(case.grid), "block": list(case.block),
                       "dynamic_shared": meta.get("shared", case.shared), "params": ps}
                with open(os.path.join(out_dir, "launch", doc["id"] + ".json"), "w") as f:
                    json.dump(doc, f, indent=1)
                    f.write("\n")
        for key, (text, _, ptx_path) in sorted(texts.items()):
            if key[0] == stem:
                manifest.append((os.path.relpath(ptx_path, out_dir), where,
                                 "heldout" if heldout else "tuned"))
    if not only:
        with open(os.path.join(out_dir, "manifest.tsv"), "w") as f:
            f.write("# warpforge corpus: one line per file of ptx/, tab-separated.\n"
                    "# columns: file  expect  kernel  where  part  note (as analysis/tests/corpus/manifest.tsv,\n"
                    "# plus `part`: tuned, or heldout = not to be used to tune the simulator or linter)\n"
                    "# Generated by tools/build.py (run by regenerate.sh).\n")
            for file, where, part in sorted(set(manifest)):
                f.write(f"{file}\tclean\t-\t{where}\t{part}\t-\n")


if __name__ == "__main__":
    main()
