#!/usr/bin/env bash
# Regenerates the lint corpus: ptx/*.ptx and manifest.tsv from src/ (see README.md).
#
#   analysis/tests/corpus/regenerate.sh            # install the compilers if missing, rebuild all
#   WARPFORGE_CORPUS_TOOLS=/opt/wf regenerate.sh   # where the compilers live (default /work/tools)
#   WARPFORGE_CORPUS_INSTALL_ONLY=1 regenerate.sh  # only install the compilers
#
# Needs: bash, python3 (3.10-3.13) with pip, unzip, g++ (nvcc's host compiler), network
# access to PyPI on the first run. No GPU and no CUDA install: the compilers come from PyPI wheels:
#   CUDA 13.0 nvcc  (sm_80, sm_90): nvidia-cuda-nvcc, nvidia-nvvm, nvidia-cuda-crt 13.0.88,
#                                   nvidia-cuda-runtime 13.0.96, nvidia-cuda-cccl 13.0.85
#   NVRTC 12.9      (sm_70):        nvidia-cuda-nvrtc-cu12 12.9.86, nvidia-cuda-runtime-cu12 12.9.79,
#                                   nvidia-cuda-cccl-cu12 12.9.27 (CUDA 13 dropped sm_70)
#   Triton 3.9.0    (sm_80, sm_90): triton==3.9.0 (pip install --target)
# The output is deterministic: sources are compiled from a fixed staging directory
# ($STAGE, default /tmp/warpforge-corpus) because nvcc hashes the source path into internal symbol
# names and both compilers write paths into .file directives / debug info; the toolchains are
# reached through symlinks there too, so the checkout and tools locations do not show in the PTX.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOOLS=${WARPFORGE_CORPUS_TOOLS:-/work/tools}
STAGE=${WARPFORGE_CORPUS_STAGE:-/tmp/warpforge-corpus}
PYTHON=${PYTHON:-python3}

NVCC_WHEELS=(nvidia-cuda-nvcc==13.0.88 nvidia-nvvm==13.0.88 nvidia-cuda-crt==13.0.88
             nvidia-cuda-runtime==13.0.96 nvidia-cuda-cccl==13.0.85)
NVRTC_WHEELS=(nvidia-cuda-nvrtc-cu12==12.9.86 nvidia-cuda-runtime-cu12==12.9.79
              nvidia-cuda-cccl-cu12==12.9.27)
TRITON_VERSION=3.9.0

log() { printf '== %s\n' "$*" >&2; }

# unpack_wheels DIR SPEC... : pip-download the wheels (no deps) and unzip them side by side in DIR.
unpack_wheels() {
    local dir=$1; shift
    mkdir -p "$TOOLS/wheels" "$dir"
    PIP_ROOT_USER_ACTION=ignore "$PYTHON" -m pip download --quiet --no-deps --only-binary=:all: -d "$TOOLS/wheels" "$@"
    local spec name version whl
    for spec in "$@"; do
        name=${spec%%==*}; version=${spec##*==}
        whl=$(ls "$TOOLS/wheels/${name//-/_}-${version}-"*.whl)
        unzip -qo "$whl" -d "$dir"
    done
}

install_tools() {
    local cu13="$TOOLS/cuda13/nvidia/cu13"
    if [[ ! -x "$cu13/bin/nvcc" || ! -e "$TOOLS/cuda13/.complete" ]]; then
        log "installing CUDA 13.0 nvcc into $TOOLS/cuda13"
        unpack_wheels "$TOOLS/cuda13" "${NVCC_WHEELS[@]}"
        # nvcc.profile looks for headers and libraries under $(TOP)/targets/x86_64-linux: the
        # wheels put them directly under TOP, so one symlink makes the layout whole.
        mkdir -p "$cu13/targets"
        ln -sfn .. "$cu13/targets/x86_64-linux"
        touch "$TOOLS/cuda13/.complete"
    fi
    if [[ ! -e "$TOOLS/nvrtc129/.complete" ]]; then
        log "installing NVRTC 12.9 into $TOOLS/nvrtc129"
        unpack_wheels "$TOOLS/nvrtc129" "${NVRTC_WHEELS[@]}"
        touch "$TOOLS/nvrtc129/.complete"
    fi
    # Triton goes into a plain --target directory (not a venv) so that its path inside the stage,
    # which Triton writes into .file directives for its own library code, has no Python version.
    if ! PYTHONPATH="$TOOLS/triton39" "$PYTHON" -c "import triton, sys; sys.exit(triton.__version__ != '$TRITON_VERSION')" 2>/dev/null; then
        log "installing triton $TRITON_VERSION into $TOOLS/triton39"
        rm -rf "$TOOLS/triton39"
        PIP_ROOT_USER_ACTION=ignore "$PYTHON" -m pip install --quiet --no-deps --target "$TOOLS/triton39" "triton==$TRITON_VERSION"
    fi
}

install_tools
# The simulator corpus (corpus/regenerate.sh at the repository root) uses the same compilers.
[[ -n "${WARPFORGE_CORPUS_INSTALL_ONLY:-}" ]] && exit 0

# ---- staging ---------------------------------------------------------------------------------
rm -rf "$STAGE"
mkdir -p "$STAGE/src"
cp "$HERE"/src/*.cu "$HERE"/src/*.py "$STAGE/src/"
ln -sfn "$(cd "$TOOLS/cuda13/nvidia/cu13" && pwd)" "$STAGE/cuda13"
ln -sfn "$(cd "$TOOLS/nvrtc129/nvidia" && pwd)" "$STAGE/nvrtc129"
ln -sfn "$(cd "$TOOLS/triton39" && pwd)" "$STAGE/triton"

NVCC="$STAGE/cuda13/bin/nvcc"
# Headers through the staging symlink first (nvcc resolves its own location to the real path).
NVCC_FLAGS=(-ptx -O3 -std=c++17 -I "$STAGE/cuda13/include" -isystem "$STAGE/cuda13/include/cccl")
NVRTC_LIB="$STAGE/nvrtc129/cuda_nvrtc/lib/libnvrtc.so.12"
NVRTC_FLAGS=(-arch=compute_70 -std=c++17 -I"$STAGE/nvrtc129/cuda_runtime/include"
             -I"$STAGE/nvrtc129/cuda_cccl/include" -diag-suppress=1444)
NVCC_VERSION=$("$NVCC" --version | sed -n 's/^Cuda compilation tools, //p')
TRITON_PY="$PYTHON"
export PYTHONPATH="$STAGE/triton${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONDONTWRITEBYTECODE=1
export TRITON_DEFAULT_FP_FUSION=1   # 3.9's default, stated so that 3.9 does not warn about it
export TRITON_CACHE_DIR="$STAGE/triton-cache"

OUT="$HERE/ptx"
rm -rf "$OUT"
mkdir -p "$OUT"

# header FILE LINE... : prepend comment lines to a generated PTX file (PTX comments, `//`).
header() {
    local file=$1; shift
    { printf '// %s\n' "$@"; cat "$file"; } > "$file.tmp"
    mv "$file.tmp" "$file"
}

cd "$STAGE/src"
for src in *.cu; do
    k=${src%.cu}
    log "$src"
    # sm_80: CUDA 13.0 nvcc
    "$NVCC" "${NVCC_FLAGS[@]}" -arch=sm_80 "$src" -o "$OUT/$k.nvcc13.sm80.ptx"
    header "$OUT/$k.nvcc13.sm80.ptx" "warpforge lint corpus: src/$src" \
        "nvcc -ptx -O3 -std=c++17 -arch=sm_80 ($NVCC_VERSION, PyPI nvidia-cuda-nvcc 13.0.88)"
    # sm_80 with -lineinfo: the same code with .loc lines (they map findings back to src/ lines)
    "$NVCC" "${NVCC_FLAGS[@]}" -arch=sm_80 -lineinfo "$src" -o "$OUT/$k.nvcc13-lineinfo.sm80.ptx"
    header "$OUT/$k.nvcc13-lineinfo.sm80.ptx" "warpforge lint corpus: src/$src" \
        "nvcc -ptx -O3 -std=c++17 -arch=sm_80 -lineinfo ($NVCC_VERSION, PyPI nvidia-cuda-nvcc 13.0.88)"
    # sm_90: CUDA 13.0 nvcc
    "$NVCC" "${NVCC_FLAGS[@]}" -arch=sm_90 "$src" -o "$OUT/$k.nvcc13.sm90.ptx"
    header "$OUT/$k.nvcc13.sm90.ptx" "warpforge lint corpus: src/$src" \
        "nvcc -ptx -O3 -std=c++17 -arch=sm_90 ($NVCC_VERSION, PyPI nvidia-cuda-nvcc 13.0.88)"
    # sm_70: NVRTC 12.9 (CUDA 13 no longer targets sm_70)
    "$PYTHON" "$HERE/tools/nvrtc_ptx.py" "$NVRTC_LIB" "$src" "$OUT/$k.nvrtc129.sm70.ptx" "${NVRTC_FLAGS[@]}"
    header "$OUT/$k.nvrtc129.sm70.ptx" "warpforge lint corpus: src/$src" \
        "NVRTC 12.9.86 (PyPI nvidia-cuda-nvrtc-cu12 12.9.86) -arch=compute_70 -std=c++17"
done
for src in *.py; do
    k=${src%.py}
    for arch in 80 90; do
        log "$src sm_$arch"
        "$TRITON_PY" "$HERE/tools/triton_ptx.py" "$src" "$arch" "$OUT/$k.triton39.sm$arch.ptx"
        header "$OUT/$k.triton39.sm$arch.ptx" "warpforge lint corpus: src/$src" \
            "triton $TRITON_VERSION, triton.compile(ASTSource(...), target=GPUTarget(\"cuda\", $arch, 32)); options in src/$src"
    done
done

# ---- the two inputs that must be rejected ----------------------------------------------------
# Not PTX: Triton's TTGIR (MLIR) for the same vector_add kernel, as a user might pass by mistake.
"$TRITON_PY" - "$OUT/not_ptx.ptx" <<'PY'
import sys, importlib.util, triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
spec = importlib.util.spec_from_file_location("vector_add", "vector_add.py")
m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
c = m.CORPUS
k = triton.compile(ASTSource(fn=c["kernel"], signature=c["signature"], constexprs=c["constexprs"]),
                   target=GPUTarget("cuda", 80, 32), options={"num_warps": c["num_warps"]})
open(sys.argv[1], "w").write(k.asm["ttgir"])
PY
# Truncated: smem_reduce's sm_80 PTX cut inside the first kernel, in the middle of the address
# operand of the first shared load after its second barrier: `ld.shared.f32 %f14, [%r3+5`.
"$PYTHON" - "$OUT/smem_reduce.nvcc13.sm80.ptx" "$OUT/truncated.nvcc13.sm80.ptx" <<'PY'
import sys
lines = open(sys.argv[1]).read().split("\n")
bars = [i for i, l in enumerate(lines) if l.lstrip().startswith("bar.sync")]
cut = next(i for i in range(bars[1], len(lines)) if "ld.shared" in lines[i])
keep = lines[:cut] + [lines[cut][: lines[cut].index("]") - 1]]
open(sys.argv[2], "w").write("\n".join(keep))   # no final newline: the file just stops
PY

cd "$HERE"
"$PYTHON" "$HERE/tools/make_manifest.py" "$HERE" > "$HERE/manifest.tsv"
log "wrote $(ls "$OUT" | wc -l) files in ptx/ ($(du -sh "$OUT" | cut -f1)), manifest.tsv"
