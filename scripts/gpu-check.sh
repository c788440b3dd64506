#!/usr/bin/env bash
# Every CUDA check and GPU figure in one go (see docs/gpu.md):
#   scripts/gpu-check.sh          build, then run (a machine with Rust and an NVIDIA GPU)
#   scripts/gpu-check.sh build    build only: release binaries into gpu-bin/ (copy that folder over)
#   scripts/gpu-check.sh run      run only, from gpu-bin/ (a GPU machine without Rust)
# Environment: PAGES (a file of 4 KiB pages; default ../shared/corpus/dev.pages.xz, unpacked),
# MIB (MiB pushed through compress_batch, default 1024), BIN (default gpu-bin).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-gpu-bin}
MODE=${1:-all}

build() {
  cargo build --release --bin warpforge --example gpu_batch
  mkdir -p "$BIN"
  cp target/release/warpforge target/release/examples/gpu_batch "$BIN/"
  for t in gpu_batch reference_gpu_batch_doc; do
    exe=$(cargo test --release --test "$t" --no-run --message-format=json 2>/dev/null \
      | sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -1)
    cp "$exe" "$BIN/test_$t"
  done
  echo "gpu-check: binaries in $BIN/"
}

run() {
  local pages=${PAGES:-}
  if [[ -z $pages ]]; then
    pages=/tmp/warpforge-dev.pages
    [[ -s $pages ]] || xz -dc ../shared/corpus/dev.pages.xz > "$pages"
  fi
  local mib=${MIB:-1024} fails=0 log
  log=$(mktemp -d)
  step() { # name, command...
    local name=$1; shift
    echo "== $name: $*"
    if "$@" 2>&1 | tee "$log/$name.txt"; then echo "$name: ok" >> "$log/summary"; else echo "$name: FAILED" >> "$log/summary"; fails=$((fails+1)); fi
  }
  command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
  "$BIN/warpforge" info
  export WARPFORGE_REQUIRE_CUDA=1
  step tests "$BIN/test_gpu_batch" --test-threads=1
  step doc-snippets "$BIN/test_reference_gpu_batch_doc" --test-threads=1
  step batch "$BIN/gpu_batch" --backend cuda --pages "$pages" --mib "$mib"
  step batch-no-async "$BIN/gpu_batch" --backend cuda --pages "$pages" --mib "$mib" --no-async
  step cli-roundtrip bash -c "'$BIN/warpforge' compress --backend cuda '$pages' '$log/c.wfpa' && '$BIN/warpforge' decompress --backend cuda '$log/c.wfpa' '$log/d.pages' && cmp '$pages' '$log/d.pages'"
  if command -v compute-sanitizer >/dev/null; then
    for tool in memcheck racecheck synccheck; do
      step "sanitizer-$tool" compute-sanitizer --tool "$tool" --error-exitcode 9 "$BIN/gpu_batch" --backend cuda --pages "$pages" --mib 16 --batch 1024
    done
  else
    echo "sanitizer: compute-sanitizer not found" >> "$log/summary"; fails=$((fails+1))
  fi
  echo; echo "== gpu-check summary"; cat "$log/summary"
  grep -h "compress_batch:\|measured H2D\|decompress_batch:\|ratio" "$log"/batch.txt || true
  [[ $fails -eq 0 ]]
}

case $MODE in
  build) build ;;
  run) run ;;
  all) build; run ;;
  *) echo "usage: $0 [build|run]" >&2; exit 2 ;;
esac
