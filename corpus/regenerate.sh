#!/usr/bin/env bash
# Regenerates the simulator corpus: ptx/, launch/, expected/, inputs/ and manifest.tsv from src/
# and cases/ (see README.md).
#
#   corpus/regenerate.sh              # everything
#   corpus/regenerate.sh STEM...      # only these cases/<STEM>.py (no manifest)
#
# The compilers are the lint corpus's (CUDA 13.0 nvcc, NVRTC 12.9.86, Triton 3.9.0, all from PyPI,
# installed if missing into $WARPFORGE_CORPUS_TOOLS, default /work/tools, by
# analysis/tests/corpus/regenerate.sh). Needs python3 with numpy (the expected outputs are
# computed with it). Sources are compiled from a fixed staging directory
# ($WARPFORGE_SIM_CORPUS_STAGE, default /tmp/warpforge-sim-corpus) so that paths do not show in
# the PTX; compiler outputs are cached there (cache/), keyed by source and command.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOOLS=${WARPFORGE_CORPUS_TOOLS:-/work/tools}
STAGE=${WARPFORGE_SIM_CORPUS_STAGE:-/tmp/warpforge-sim-corpus}
PYTHON=${PYTHON:-python3}

WARPFORGE_CORPUS_INSTALL_ONLY=1 "$HERE/../analysis/tests/corpus/regenerate.sh"

mkdir -p "$STAGE"
rm -rf "$STAGE/src" "$STAGE/cases" "$STAGE/nvrtc-stub"
cp -r "$HERE/src" "$HERE/cases" "$HERE/tools/nvrtc-stub" "$STAGE/"
ln -sfn "$(cd "$TOOLS/cuda13/nvidia/cu13" && pwd)" "$STAGE/cuda13"
ln -sfn "$(cd "$TOOLS/nvrtc129/nvidia" && pwd)" "$STAGE/nvrtc129"
ln -sfn "$(cd "$TOOLS/triton39" && pwd)" "$STAGE/triton"

export NVCC_VERSION=$("$STAGE/cuda13/bin/nvcc" --version | sed -n 's/^Cuda compilation tools, //p')
export PYTHONPATH="$STAGE/triton:$HERE/tools${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONDONTWRITEBYTECODE=1
export TRITON_DEFAULT_FP_FUSION=1
export TRITON_CACHE_DIR="$STAGE/triton-cache"
export PYTHON

if [[ $# -eq 0 ]]; then
    rm -rf "$HERE/ptx" "$HERE/launch" "$HERE/expected" "$HERE/inputs"
fi
"$PYTHON" "$HERE/tools/build.py" "$STAGE" "$HERE" "$@"
echo "== $(ls "$HERE/launch" | wc -l) entries, $(ls "$HERE/ptx" | wc -l) PTX files ($(du -sh "$HERE" | cut -f1) in all)" >&2
