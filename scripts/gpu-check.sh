#!/usr/bin/env bash
# Every CUDA check and GPU figure in one go (see docs/gpu.md):
#   scripts/gpu-check.sh          build, then run (a machine with Rust and an NVIDIA GPU)
#   scripts/gpu-check.sh bundle   only check the page corpus and unpack it into $BIN/dev.pages (no cargo)
#   scripts/gpu-check.sh build    bundle, then release binaries into $BIN/; prints the bundle's size (the pages
#                                 travel xz-compressed as $BIN/dev.pages.xz, and the binaries as
#                                 $BIN/bin.tar.xz, when the bundle is near the limit; `run` unpacks them)
#   scripts/gpu-check.sh run      run only, from $BIN/ (a GPU machine without Rust: carry $BIN there)
#   scripts/gpu-check.sh perf-build  here: the side-by-side bench (ours at every level, nvCOMP 6.0, the
#                                 batch API, lz4_flex, WebGPU), libnvcomp.so.6 from $WHEELS and the pages
#                                 (xz) into $PERF_BIN/; prints its size against the carry limit
#   scripts/gpu-check.sh perf     there: every figure, verified; perf.json, perf-summary.txt, perf.log
#                                 and ncu's CSV under $OUT (carry $PERF_BIN and .gl)
# Environment:
#   BIN     the bundle folder, relative to the repository root or absolute (default gpu-bin, git-ignored)
#   CORPUS  the page corpus bundled by `bundle`/`build`, xz-compressed (*.xz) or plain
#           (default ../shared/corpus/dev.pages.xz, relative to the repository root)
#   PAGES   a plain file of whole 4 KiB pages: `bundle`/`build` bundle it instead of CORPUS, and
#           `run` reads it instead of $BIN/dev.pages
#   MIB     MiB pushed through compress_batch, and of pages for `perf` (default 1024)
#   PERF_BIN  the perf bundle folder (default gpu-perf, git-ignored)
#   WHEELS  where `perf-build` finds the nvCOMP 6.0 wheel (default .whl, git-ignored)
#   NCU     Nsight Compute for `perf` (default: PATH, $CUDA_HOME/bin, /usr/local/cuda*/bin, /opt/nvidia)
#   BENCH_TIMEOUT, NCU_TIMEOUT, SANITIZER_TIMEOUT, WEBGPU_TIMEOUT  seconds `perf` gives the bench (310),
#                                 ncu (90), each compute-sanitizer tool (30) and the WebGPU rerun with
#                                 warps emulated (40): 530 s, 560 s with each cut step's 5 s to die,
#                                 inside the device machine's 10 minutes a command (a lent machine's
#                                 15 minutes allow one such call)
#   STEP_TIMEOUT, RUN_BUDGET  seconds `run` gives each step (150) and all of them (570: one of the
#                                 device machine's 10-minute commands less a margin for the table); a
#                                 step cut at its bound is FAILED, the steps left when the budget is
#                                 spent are SKIPPED, each saying so
#   GL      the folder of Vulkan loader .debs `perf` installs when no loader is there (default .gl)
#   OUT     when set (the device machine sets it), the combined log gpu-check.log and the summary
#           gpu-check-summary.txt are written there (2 files); otherwise into a temp folder, printed
#   SANITIZER  compute-sanitizer to use (default: PATH, then $CUDA_HOME/bin, then /usr/local/cuda*/bin)
# Exit status: 0 when no step failed (skipped steps do not count), 1 when one did, 2 for a missing
# corpus / pages / binary or a bad usage, 128+N when interrupted by signal N.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
BIN=${BIN:-gpu-bin}
PERF_BIN=${PERF_BIN:-gpu-perf}
WHEELS=${WHEELS:-.whl}
GL=${GL:-.gl}
CORPUS=${CORPUS:-../shared/corpus/dev.pages.xz}
MODE=${1:-all}
PAGE_BYTES=4096
CARRY_LIMIT=$((64 << 20)) # what travels to the device machine: working tree + carried folders
# test_it: the root package's integration tests (tests/it/, one binary); each step runs its modules.
BINARIES=(warpforge gpu_batch test_it)

say() { echo "gpu-check: $*"; }
err() { echo "gpu-check: $*" >&2; }
abs() { if [[ $1 == /* ]]; then echo "$1"; else echo "$ROOT/$1"; fi; }
mib() { awk -v b="$1" 'BEGIN { printf "%.1f MiB", b / 1048576 }'; }

# Checks the page corpus and unpacks it into $BIN/dev.pages. Runs before any cargo build, so a
# missing corpus stops `build` in a second, not after minutes of compiling.
bundle() {
  local src what dest=$BIN/dev.pages
  if [[ -n ${PAGES:-} ]]; then src=$PAGES what="PAGES"; else src=$CORPUS what="CORPUS"; fi
  if [[ ! -f $src || ! -r $src ]]; then
    err "no page corpus: $what=$src is missing (looked for $(abs "$src"))."
    err "  The GPU checks need a file of whole 4 KiB pages, bundled into $BIN/dev.pages so that it travels"
    err "  with the binaries. Fix: set CORPUS to an xz-compressed (.xz) or plain file of 4 KiB pages, e.g."
    err "    CORPUS=/path/to/dev.pages.xz $0 ${MODE}"
    err "  or set PAGES to a plain file of 4 KiB pages. ../shared/corpus/dump_pages.py makes a fresh corpus."
    err "  Nothing was built."
    exit 2
  fi
  mkdir -p "$BIN"
  if [[ -e $dest && $src -ef $dest ]]; then
    say "pages already in $dest"
  elif [[ $src == *.xz ]]; then
    if ! command -v xz >/dev/null; then
      err "$what=$src is xz-compressed but xz is not installed: install xz-utils, or unpack it elsewhere"
      err "  and set PAGES to the unpacked file. Nothing was built."
      exit 2
    fi
    xz -dc -- "$src" > "$dest.part" || { rm -f "$dest.part"; err "xz could not unpack $what=$src"; exit 2; }
    mv -f "$dest.part" "$dest"
  else
    cp -f -- "$src" "$dest.part" && mv -f "$dest.part" "$dest"
  fi
  local bytes
  bytes=$(wc -c < "$dest")
  if ((bytes == 0 || bytes % PAGE_BYTES != 0)); then
    rm -f "$dest"
    err "$what=$src holds $bytes bytes (unpacked), not a whole, non-zero number of 4 KiB pages."
    err "  Fix: set CORPUS or PAGES to a file of whole 4 KiB pages. Nothing was built."
    exit 2
  fi
  say "$((bytes / PAGE_BYTES)) pages ($(mib "$bytes")) from $src in $dest"
}

# The release executables the test targets were built into, from cargo's JSON messages.
test_executable() { # json-file, test-target
  grep '"reason":"compiler-artifact"' "$1" | grep '"kind":\["test"\]' | grep "\"name\":\"$2\"" \
    | sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -1
}

build() {
  bundle
  cargo build --release --bin warpforge --example gpu_batch
  local target=${CARGO_TARGET_DIR:-target}
  cp "$target/release/warpforge" "$target/release/examples/gpu_batch" "$BIN/"
  local json exe
  json=$(mktemp)
  cargo test --release --test it --no-run --message-format=json > "$json"
  exe=$(test_executable "$json" it)
  if [[ -z $exe || ! -x $exe ]]; then
    rm -f "$json"
    err "cargo named no executable for test target it"
    exit 1
  fi
  cp "$exe" "$BIN/test_it"
  rm -f "$json"

  # What travels to the device machine: the working tree (tracked and untracked files that git does
  # not ignore) plus the carried folders, 64 MiB in all.
  local bundle_b tree_b=0
  if git rev-parse --git-dir >/dev/null 2>&1; then
    tree_b=$(git ls-files -z -co --exclude-standard | du -cb --files0-from=- 2>/dev/null | tail -1 | cut -f1) || true
    tree_b=${tree_b:-0}
  fi
  bundle_b=$(du -sb "$BIN" | cut -f1)
  # Well under the limit leaves room for other carried folders: past 48 MiB, drop the symbol tables
  # (panics still name their file and line; backtraces lose function names).
  if ((bundle_b + tree_b > CARRY_LIMIT - (16 << 20))) && command -v strip >/dev/null; then
    say "$(mib $((bundle_b + tree_b))) to carry is close to the limit: stripping symbols from the binaries"
    for t in "${BINARIES[@]}"; do strip "$BIN/$t" || err "could not strip $BIN/$t"; done
    bundle_b=$(du -sb "$BIN" | cut -f1)
  fi
  # Still close: the pages travel xz-compressed (`run` unpacks them into its scratch folder).
  if ((bundle_b + tree_b > CARRY_LIMIT - (8 << 20))) && command -v xz >/dev/null; then
    say "$(mib $((bundle_b + tree_b))) to carry: packing the pages with xz ($BIN/dev.pages.xz; run unpacks them)"
    xz -T2 -6 -c "$BIN/dev.pages" > "$BIN/dev.pages.xz.part" && mv -f "$BIN/dev.pages.xz.part" "$BIN/dev.pages.xz"
    rm -f "$BIN/dev.pages"
    bundle_b=$(du -sb "$BIN" | cut -f1)
  else
    rm -f "$BIN/dev.pages.xz"
  fi
  local page_file=dev.pages
  [[ -f $BIN/dev.pages ]] || page_file=dev.pages.xz
  say "binaries and pages in $BIN/: $(mib "$bundle_b") ($(cd "$BIN" && du -bh "${BINARIES[@]}" "$page_file" | tr '\t\n' ' ' | sed 's/ $//')),"
  # Still over: the binaries travel as one xz tarball too (`run` unpacks it in place).
  rm -f "$BIN/bin.tar.xz"
  if ((bundle_b + tree_b > CARRY_LIMIT - (4 << 20))) && command -v xz >/dev/null; then
    say "$(mib $((bundle_b + tree_b))) to carry: packing the binaries with xz ($BIN/bin.tar.xz; run unpacks them)"
    tar -C "$BIN" -cf - "${BINARIES[@]}" | xz -T2 -6 > "$BIN/bin.tar.xz.part" && mv -f "$BIN/bin.tar.xz.part" "$BIN/bin.tar.xz"
    (cd "$BIN" && rm -f "${BINARIES[@]}")
    bundle_b=$(du -sb "$BIN" | cut -f1)
    say "packed: $BIN/ is $(mib "$bundle_b") ($(cd "$BIN" && du -bh bin.tar.xz "$page_file" | tr '\t\n' ' ' | sed 's/ $//'))"
  fi
  say "  plus the working tree $(mib "$tree_b"): $(mib $((bundle_b + tree_b))) of the $(mib "$CARRY_LIMIT") that travel"
  if ((bundle_b + tree_b > CARRY_LIMIT)); then
    err "the bundle is too large to carry to the device machine; set CORPUS or PAGES to a smaller corpus"
    exit 1
  elif ((bundle_b + tree_b > CARRY_LIMIT - (8 << 20))); then
    err "warning: less than 8 MiB of the carry limit is left for anything else"
  fi
  case $(abs "$BIN") in
    "$ROOT"/*) say "on the GPU machine: carry [\"${BIN#"$ROOT"/}\"] and run scripts/gpu-check.sh run" ;;
    *) say "note: $BIN is outside the repository: only folders inside it can be carried to a GPU machine" ;;
  esac
}

run() {
  local pages=${PAGES:-$BIN/dev.pages} packed=''
  # `build` packs the pages with xz when the bundle would not travel otherwise: unpacked below.
  if [[ -z ${PAGES:-} && ! -s $pages && -s $BIN/dev.pages.xz ]]; then packed=$BIN/dev.pages.xz; fi
  if [[ -z $packed && ! -s $pages ]]; then
    if [[ -n ${PAGES:-} ]]; then
      err "PAGES=$pages is missing or empty (looked for $(abs "$pages")): set PAGES to a file of 4 KiB pages."
    else
      err "no pages to run on: $BIN/dev.pages is missing (looked for $(abs "$BIN/dev.pages"))."
      err "  Fix: run \`scripts/gpu-check.sh build\` first (it bundles the corpus into $BIN/ with the binaries;"
      err "  carry $BIN to the GPU machine), or set PAGES to a file of 4 KiB pages."
    fi
    exit 2
  fi
  local missing=() t
  if [[ -s $BIN/bin.tar.xz ]]; then
    tar -C "$BIN" -xJf "$BIN/bin.tar.xz" || { err "could not unpack $BIN/bin.tar.xz"; exit 2; }
  fi
  for t in "${BINARIES[@]}"; do [[ -x $BIN/$t ]] || missing+=("$BIN/$t"); done
  if ((${#missing[@]})); then
    err "missing binaries: ${missing[*]}"
    err "  Fix: run \`scripts/gpu-check.sh build\` on a machine with Rust first, and carry $BIN here."
    exit 2
  fi

  local mib_n=${MIB:-1024}
  RUN_START=$SECONDS
  WORK=$(mktemp -d "${TMPDIR:-/tmp}/gpu-check.XXXXXX")
  mkdir -p "$WORK/logs"
  if [[ -n $packed ]]; then
    pages=$WORK/dev.pages
    unpack_pages "$packed" "$pages" || { err "could not unpack $packed"; exit 2; }
  fi
  if [[ -n ${OUT:-} ]]; then RESULTS=$OUT; else RESULTS=$WORK; fi
  mkdir -p "$RESULTS"
  COMBINED=$RESULTS/gpu-check.log
  SUMMARY=$RESULTS/gpu-check-summary.txt
  : > "$COMBINED"
  STEPS=(nvidia-smi info tests doc-snippets run-cuda-vs-sim differential-cuda ptx-corpus-cuda corpus-cuda float-cuda device-functions-cuda batch batch-no-async
    cli-roundtrip sanitizer-memcheck sanitizer-racecheck sanitizer-synccheck sanitizer-registered)
  declare -gA RESULT=() NOTE=() TIME=()
  CURRENT='' SIGNAL=''
  trap finish EXIT
  trap 'SIGNAL=INT; exit 130' INT
  trap 'SIGNAL=TERM; exit 143' TERM
  trap 'SIGNAL=HUP; exit 129' HUP

  if command -v nvidia-smi >/dev/null; then
    timed_step nvidia-smi nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv
  else
    skip nvidia-smi "nvidia-smi not on PATH (no NVIDIA driver?)"
  fi
  timed_step info "$BIN/warpforge" info
  export WARPFORGE_REQUIRE_CUDA=1
  export WARPFORGE_BIN; WARPFORGE_BIN=$(abs "$BIN/warpforge")
  timed_step tests "$BIN/test_it" gpu_batch:: registered_pages::registered_pages_round_trip_on_cuda \
    --test-threads=1
  timed_step doc-snippets "$BIN/test_it" reference_gpu_batch_doc:: --test-threads=1
  # `warpforge run --backend cuda --check sim`: a user's .wfir kernel and every catalog kernel.
  # (the module's tests less its WebGPU ones: the three that run on CUDA)
  timed_step run-cuda-vs-sim "$BIN/test_it" cli_run_backends:: --skip webgpu --test-threads=1
  # Random verified kernels: the emitted PTX on the GPU against the simulator, bit for bit.
  export WARPFORGE_DIFF_CASES=${DIFF_CASES:-2000}
  timed_step differential-cuda "$BIN/test_it" \
    differential::random_kernels_give_identical_buffers_on_sim_and_cuda --nocapture
  # Other compilers' PTX (the lint corpus: nvcc 13, NVRTC 12.9) on the GPU against the PTX simulator.
  timed_step ptx-corpus-cuda "$BIN/test_it" ptx_corpus_cuda:: --nocapture
  # corpus/ (every launch file): integers bit-identical to the simulator, floats within their bounds.
  timed_step corpus-cuda "$BIN/test_it" corpus_cuda:: --nocapture --skip ptx_corpus_cuda::
  # Float kernels: the math functions against docs/kernels.md's PTX column, f32 atomics, the zoo.
  timed_step float-cuda "$BIN/test_it" math_functions::math_functions_are_within_their_bounds_on_cuda \
    float_atomics::float_atomic_add_sums_exactly_on_cuda \
    float_atomics::f64_atomic_add_sums_exactly_on_cuda \
    half_floats::halves_convert_and_round_once_on_cuda f64_generic::doubles_are_ieee_on_cuda \
    zoo::zoo_kernels_match_their_references_on_cuda --nocapture --test-threads=1
  # The LZ4 device functions inside other kernels (the fused XOR-delta codec, the default level).
  timed_step device-functions-cuda "$BIN/test_it" lz4_device::device_functions_match_the_cpu_on_cuda \
    --nocapture --test-threads=1
  timed_step batch "$BIN/gpu_batch" --backend cuda --pages "$pages" --mib "$mib_n"
  timed_step batch-no-async "$BIN/gpu_batch" --backend cuda --pages "$pages" --mib "$mib_n" --no-async --latency-calls 0
  timed_step cli-roundtrip cli_roundtrip "$BIN/warpforge" "$pages" "$WORK"
  rm -f "$WORK/c.wfpa" "$WORK/d.pages"
  local sanitizer looked
  if sanitizer=$(find_sanitizer); then
    for t in memcheck racecheck synccheck; do
      timed_step "sanitizer-$t" "$sanitizer" --tool "$t" --error-exitcode 9 \
        "$BIN/gpu_batch" --backend cuda --pages "$pages" --mib 16 --batch 1024
    done
    # The caller's registered pages: uploads from and downloads into them in place.
    timed_step sanitizer-registered "$sanitizer" --tool memcheck --error-exitcode 9 \
      "$BIN/test_it" registered_pages::registered_pages_round_trip_on_cuda --test-threads=1
  else
    looked=$sanitizer
    skip sanitizer-memcheck "compute-sanitizer not found (looked: $looked)"
    skip sanitizer-racecheck "compute-sanitizer not found (above)"
    skip sanitizer-synccheck "compute-sanitizer not found (above)"
    skip sanitizer-registered "compute-sanitizer not found (above)"
  fi
}

# warpforge compress at every level, then decompress, with --backend cuda: each archive must be
# byte-identical to the CPU reference's at that level, and the pages must come back identical.
cli_roundtrip() { # warpforge, pages, scratch folder
  local level
  for level in 1 2 3; do
    "$1" compress --backend cuda --level "$level" "$2" "$3/c$level.wfpa" &&
      "$1" compress --backend reference --level "$level" "$2" "$3/r$level.wfpa" &&
      cmp "$3/c$level.wfpa" "$3/r$level.wfpa" &&
      "$1" decompress --backend cuda "$3/c$level.wfpa" "$3/d.pages" &&
      cmp "$2" "$3/d.pages" &&
      echo "level $level: cuda archive identical to reference; round trip ok: $(wc -c < "$2") bytes -> $(wc -c < "$3/c$level.wfpa") bytes -> identical pages" ||
      return 1
  done
}

# Looks for compute-sanitizer (it comes with the CUDA toolkit, not the driver): SANITIZER, PATH,
# $CUDA_HOME/bin, then /usr/local/cuda*/bin, newest first. Prints the path, or where it looked.
find_sanitizer() {
  local looked=() d dirs=()
  if [[ -n ${SANITIZER:-} ]]; then
    [[ -x $SANITIZER ]] && { echo "$SANITIZER"; return 0; }
    looked+=("SANITIZER=$SANITIZER")
  fi
  if command -v compute-sanitizer 2>/dev/null; then return 0; fi
  looked+=("PATH")
  if [[ -n ${CUDA_HOME:-} ]]; then dirs+=("$CUDA_HOME/bin"); else looked+=("\$CUDA_HOME/bin (CUDA_HOME unset)"); fi
  local found=()
  for d in /usr/local/cuda*/bin; do [[ -d $d ]] && found+=("$d"); done
  if ((${#found[@]})); then
    mapfile -t found < <(printf '%s\n' "${found[@]}" | sort -rV)
    dirs+=("${found[@]}")
  else
    looked+=("/usr/local/cuda*/bin (none)")
  fi
  for d in ${dirs[@]+"${dirs[@]}"}; do
    [[ -x $d/compute-sanitizer ]] && { echo "$d/compute-sanitizer"; return 0; }
    looked+=("$d")
  done
  local joined
  joined=$(IFS=,; echo "${looked[*]}")
  echo "${joined//,/, }"
  return 1
}

# Runs one check: its output goes to the terminal, the combined log and its own log; a failure is
# recorded, never fatal.
step() { # name, command...
  local name=$1 rc start=$SECONDS
  shift
  CURRENT=$name
  printf '\n== %s: %s\n' "$name" "$*" | tee -a "$COMBINED"
  set +e
  : > "$WORK/logs/$name.txt"
  "$@" < /dev/null 2>&1 | tee -a "$COMBINED" "$WORK/logs/$name.txt"
  rc=${PIPESTATUS[0]}
  set -e
  TIME[$name]=$((SECONDS - start))
  case $rc in
    0) RESULT[$name]=ok ;;
    124) RESULT[$name]=FAILED NOTE[$name]="exit 124: cut at its time limit (what it printed is in the log)" ;;
    137) RESULT[$name]=FAILED NOTE[$name]="exit 137: killed (past its time limit's grace, or out of memory)" ;;
    9) RESULT[$name]=FAILED NOTE[$name]="exit 9: compute-sanitizer reported errors, or the command exited 9" ;;
    *) RESULT[$name]=FAILED NOTE[$name]="exit $rc" ;;
  esac
  printf '== %s: %s%s\n' "$name" "${RESULT[$name]}" "${NOTE[$name]:+ (${NOTE[$name]})}" | tee -a "$COMBINED"
  CURRENT=''
  write_summary > "$SUMMARY" # kept current, so that a killed run still leaves one
}

skip() { # name, why
  RESULT[$1]=SKIPPED NOTE[$1]=$2
  printf '\n== %s: SKIPPED (%s)\n' "$1" "$2" | tee -a "$COMBINED"
  write_summary > "$SUMMARY"
}

write_summary() {
  local name result fails=0
  echo "== gpu-check summary"
  printf '%-20s %-8s %5s  %s\n' step result time note
  for name in "${STEPS[@]}"; do
    result=${RESULT[$name]:-}
    if [[ -z $result && $name == "$CURRENT" ]]; then
      result=FAILED NOTE[$name]="interrupted${SIGNAL:+ by SIG$SIGNAL}"
    fi
    [[ $result == FAILED ]] && fails=$((fails + 1))
    printf '%-20s %-8s %5s  %s\n' "$name" "${result:-not run}" "${TIME[$name]:+${TIME[$name]}s}" "${NOTE[$name]:-}"
  done
  local log
  for log in batch batch-no-async; do
    if [[ -s $WORK/logs/$log.txt ]] && grep -q "compress_batch:\|measured H2D\|ratio" "$WORK/logs/$log.txt"; then
      echo "-- $log:"
      grep -h "^device:\|compress_batch:\|measured H2D\|decompress_batch:\|^ratio" "$WORK/logs/$log.txt" | sed 's/^/   /' || true
    fi
  done
  # perf: the bench's own table (every figure with its labels), then ncu's.
  if [[ -s $WORK/logs/bench.txt ]] && grep -q "^== gpu_kernel_bench summary" "$WORK/logs/bench.txt"; then
    sed -n '/^== gpu_kernel_bench summary/,$p' "$WORK/logs/bench.txt"
  fi
  if [[ -s ${RESULTS:-$WORK}/ncu-summary.txt ]]; then cat "${RESULTS:-$WORK}/ncu-summary.txt"; fi
  if [[ -n ${OUT:-} ]]; then echo "logs: $COMBINED (under \$OUT)"; else echo "logs: $COMBINED, one per step in $WORK/logs/"; fi
  if [[ -n $SIGNAL ]]; then echo "gpu-check: interrupted by SIG$SIGNAL"; fi
  if ((fails)); then echo "gpu-check: $fails step(s) FAILED"; else echo "gpu-check: no step failed"; fi
}

finish() {
  local rc=$? fails=0 name bytes
  set +e
  trap - EXIT INT TERM HUP
  write_summary > "$SUMMARY"
  echo
  cat "$SUMMARY"
  for name in "${STEPS[@]}"; do [[ ${RESULT[$name]:-} == FAILED ]] && fails=$((fails + 1)); done
  # Files come back from $OUT only up to 16 MiB each: keep the combined log's ends if it is larger.
  bytes=$(wc -c < "$COMBINED" 2>/dev/null || echo 0)
  if ((bytes > 15 << 20)); then
    { head -c $((7 << 20)) "$COMBINED"; printf '\n[... %s bytes cut ...]\n' "$((bytes - (14 << 20)))"
      tail -c $((7 << 20)) "$COMBINED"; } > "$COMBINED.cut" && mv -f "$COMBINED.cut" "$COMBINED"
  fi
  if [[ -n ${OUT:-} ]]; then rm -rf "$WORK"; else rm -f "$WORK/c.wfpa" "$WORK/d.pages" "$WORK/dev.pages"; fi
  if [[ -n $SIGNAL ]]; then exit "$rc"; fi
  if ((fails)); then exit 1; fi
  if ((rc != 0)); then exit "$rc"; fi # the script itself broke: say so by its status
  exit 0
}

# ---- perf: warpforge's kernels side by side with nvCOMP (issue 21, docs/gpu.md "Side by side") ----

# The nvCOMP 6.0 wheel (PyPI nvidia-libnvcomp-cu13), downloaded here into $WHEELS; prints its path.
nvcomp_wheel() {
  local w
  for w in "$WHEELS"/nvidia_libnvcomp_cu13-6.0.*-py3-none-manylinux*_x86_64.whl; do
    [[ -f $w ]] && { echo "$w"; return 0; }
  done
  return 1
}

# Reads one member of a wheel (a zip) to stdout: unzip, else Python's zipfile.
wheel_member() { # wheel, member
  if command -v unzip >/dev/null; then
    unzip -p "$1" "$2"
  else
    python3 -c 'import sys, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]))' "$1" "$2"
  fi
}

# Here (Rust, no GPU): the pages (xz), libnvcomp.so.6 and its 6.0 headers checked, the bench binary,
# all in $PERF_BIN; its size against what may travel.
perf_build() {
  local wheel
  if ! wheel=$(nvcomp_wheel); then
    err "no nvCOMP 6.0 wheel in $WHEELS/ (looked for $(abs "$WHEELS")/nvidia_libnvcomp_cu13-6.0.*.whl)."
    err "  Fix, in the repository root of this machine (it needs PyPI; the GPU machine has no network):"
    err "    python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \\"
    err "      --platform manylinux_2_28_x86_64 -d $WHEELS 'nvidia-libnvcomp-cu13==6.0.*' 'nvidia-nvcomp-cu13==6.0.*'"
    err "  (.whl/ in the repository root is git-ignored), or set WHEELS to the folder that holds them. Nothing was built."
    exit 2
  fi
  BIN=$PERF_BIN bundle
  say "compressing the pages for the trip: $PERF_BIN/dev.pages.xz"
  xz -T2 -6 -c "$PERF_BIN/dev.pages" > "$PERF_BIN/dev.pages.xz.part" && mv -f "$PERF_BIN/dev.pages.xz.part" "$PERF_BIN/dev.pages.xz"
  rm -f "$PERF_BIN/dev.pages"

  # The library, and the 6.0 headers whose prototypes examples/gpu_kernel_bench/nvcomp.rs copies.
  local inc
  inc=$(mktemp -d)
  wheel_member "$wheel" nvidia/libnvcomp/lib64/libnvcomp.so.6 > "$PERF_BIN/libnvcomp.so.6" || {
    err "$wheel holds no nvidia/libnvcomp/lib64/libnvcomp.so.6: not the nvCOMP 6.0 wheel?"; exit 2; }
  for h in nvcomp/version.h nvcomp/lz4.h nvcomp/shared_types.h; do
    wheel_member "$wheel" "nvidia/libnvcomp/include/$h" > "$inc/${h##*/}" || {
      err "$wheel holds no include/$h"; exit 2; }
  done
  if ! grep -q '^#define NVCOMP_VER_MAJOR 6$' "$inc/version.h" || ! grep -q '^#define NVCOMP_VER_MINOR 0$' "$inc/version.h"; then
    err "$wheel is not nvCOMP 6.0 (include/nvcomp/version.h): the bench's prototypes are 6.0's"; exit 2
  fi
  local f
  for f in nvcompBatchedLZ4CompressAsync nvcompBatchedLZ4DecompressAsync nvcompBatchedLZ4CompressGetTempSize \
    nvcompBatchedLZ4DecompressGetTempSize nvcompBatchedLZ4CompressGetMaxOutputChunkSize; do
    grep -q "^nvcompStatus_t $f($" "$inc/lz4.h" || { err "include/nvcomp/lz4.h declares no $f"; exit 2; }
  done
  rm -rf "$inc"
  say "nvCOMP 6.0 from $wheel: $PERF_BIN/libnvcomp.so.6 ($(mib "$(wc -c < "$PERF_BIN/libnvcomp.so.6")")), headers checked"

  cargo build --release --example gpu_kernel_bench
  local target=${CARGO_TARGET_DIR:-target}
  cp "$target/release/examples/gpu_kernel_bench" "$PERF_BIN/"
  if command -v strip >/dev/null; then strip "$PERF_BIN/gpu_kernel_bench" || err "could not strip the bench"; fi
  # nvCOMP opened here as it will be there (host-side calls only): the library loads, its symbols
  # resolve, its version is 6.0.
  "$PERF_BIN/gpu_kernel_bench" --nvcomp-info "$PERF_BIN/libnvcomp.so.6" || { err "the bench could not open nvCOMP"; exit 1; }

  local tree_b=0 bundle_b gl_b=0
  if git rev-parse --git-dir >/dev/null 2>&1; then
    tree_b=$(git ls-files -z -co --exclude-standard | du -cb --files0-from=- 2>/dev/null | tail -1 | cut -f1) || true
    tree_b=${tree_b:-0}
  fi
  bundle_b=$(du -sb "$PERF_BIN" | cut -f1)
  [[ -d .gl ]] && gl_b=$(du -sb .gl | cut -f1)
  say "bundle $PERF_BIN/: $(mib "$bundle_b") ($(cd "$PERF_BIN" && du -bh gpu_kernel_bench libnvcomp.so.6 dev.pages.xz | tr '\t\n' ' ' | sed 's/ $//')),"
  say "  plus the working tree $(mib "$tree_b") and .gl $(mib "$gl_b"): $(mib $((bundle_b + tree_b + gl_b))) of the $(mib "$CARRY_LIMIT") that travel"
  if ((bundle_b + tree_b + gl_b > CARRY_LIMIT)); then
    err "the perf bundle is too large to carry to the device machine ($(mib $((bundle_b + tree_b + gl_b))) > $(mib "$CARRY_LIMIT"))"
    exit 1
  fi
  [[ -d .gl ]] || say "note: no .gl/ (the Vulkan loader .debs, docs/gpu.md): the WebGPU figure will be skipped there"
  case $(abs "$PERF_BIN") in
    "$ROOT"/*) say "on the GPU machine: carry [\"${PERF_BIN#"$ROOT"/}\", \".gl\"] and run scripts/gpu-check.sh perf" ;;
    *) say "note: $PERF_BIN is outside the repository: only folders inside it can be carried to a GPU machine" ;;
  esac
}

# Nsight Compute: PATH, $CUDA_HOME/bin, /usr/local/cuda*/bin, /opt/nvidia/nsight-compute/*; prints
# the path or where it looked.
find_ncu() {
  if [[ -n ${NCU:-} && -x ${NCU:-} ]]; then echo "$NCU"; return 0; fi
  if command -v ncu 2>/dev/null; then return 0; fi
  local d
  for d in ${CUDA_HOME:+"$CUDA_HOME/bin"} $(printf '%s\n' /usr/local/cuda*/bin /opt/nvidia/nsight-compute/*/ 2>/dev/null | sort -rV); do
    [[ -x $d/ncu ]] && { echo "$d/ncu"; return 0; }
  done
  echo "NCU, PATH, \$CUDA_HOME/bin, /usr/local/cuda*/bin, /opt/nvidia/nsight-compute/*"
  return 1
}

# Occupancy, issue rate, cache hit rates and stall reasons of our compress and decompress kernels (one
# launch each, every level; the compact kernel, a copy, is left out to keep the step inside NCU_TIMEOUT)
# from ncu's CSV.
ncu_step() { # ncu, pages
  local csv=$RESULTS/ncu.csv
  bounded "${NCU_TIMEOUT:-90}" "$1" --clock-control none --target-processes all --kernel-name "regex:lz4_(compress|decompress)" --csv --log-file "$csv" \
    --metrics sm__warps_active.avg.pct_of_peak_sustained_active,sm__maximum_warps_per_active_cycle_pct,sm__inst_issued.avg.per_cycle_active,smsp__issue_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,gpu__time_duration.sum,l1tex__t_sector_hit_rate.pct,lts__t_sector_hit_rate.pct,smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct,smsp__warp_issue_stalled_short_scoreboard_per_warp_active.pct,smsp__warp_issue_stalled_mio_throttle_per_warp_active.pct \
    "$PERF_BIN/gpu_kernel_bench" --pages "$2" --mib 256 --sets 1 --warmup 0 --runs 1 --only ours || return
  if grep -q '"ID"' "$csv"; then
    python3 - "$csv" <<'PY' | tee "$RESULTS/ncu-summary.txt"
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
head, body = rows[0], rows[1:]
col = {n: i for i, n in enumerate(head)}
need = ["ID", "Metric Name", "Metric Unit", "Metric Value"]
kname = next((c for c in ("Kernel Name", "Function Name", "Demangled Name") if c in col), None)
if kname is None or any(c not in col for c in need):
    print("ncu's CSV has columns this summary does not know (" + ", ".join(head) + "); the raw CSV is ncu.csv")
    sys.exit(0)
names = {"sm__warps_active.avg.pct_of_peak_sustained_active": "achieved occ %",
         "sm__maximum_warps_per_active_cycle_pct": "theoretical occ %",
         "sm__inst_issued.avg.per_cycle_active": "issued/cycle/SM (max 4)",
         "smsp__issue_active.avg.pct_of_peak_sustained_active": "issue active %",
         "launch__registers_per_thread": "regs/thread",
         "gpu__time_duration.sum": "duration",
         "l1tex__t_sector_hit_rate.pct": "L1 sector hit %",
         "lts__t_sector_hit_rate.pct": "L2 sector hit %",
         "smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct": "stalled on L1TEX (global) %",
         "smsp__warp_issue_stalled_short_scoreboard_per_warp_active.pct": "stalled on MIO (shared, shfl) %",
         "smsp__warp_issue_stalled_mio_throttle_per_warp_active.pct": "stalled, MIO queue full %"}
print("ncu (--clock-control none), one launch of each kernel (lz4_compress_pages_from_input: its timed launch, then its check), 256 MiB of pages, levels in Lz4Level::ALL order:")
for r in body:
    k = r[col[kname]] + " #" + r[col["ID"]]
    m, unit, v = r[col["Metric Name"]], r[col["Metric Unit"]], r[col["Metric Value"]]
    if m in names:
        print(f"  {k:<36} {names[m]:<32} {v} {unit}")
PY
  else
    echo "ncu wrote no metrics (see $csv)"
    return 1
  fi
}

# There (GPU, no Rust): every figure, then the summary table.
perf() {
  local missing=() t
  for t in gpu_kernel_bench libnvcomp.so.6 dev.pages.xz; do [[ -s $PERF_BIN/$t ]] || missing+=("$PERF_BIN/$t"); done
  if ((${#missing[@]})); then
    err "missing from the perf bundle: ${missing[*]} (looked in $(abs "$PERF_BIN"))."
    err "  Fix: run \`scripts/gpu-check.sh perf-build\` on a machine with Rust first (it needs the nvCOMP"
    err "  wheels in $WHEELS/), and carry $PERF_BIN (and .gl) here."
    exit 2
  fi
  if ! command -v nvidia-smi >/dev/null && ! has_library 'libcuda\.so'; then
    err "no NVIDIA GPU here: neither nvidia-smi nor libcuda.so is on this machine. \`perf\` measures on a GPU"
    err "  machine (carry $PERF_BIN and .gl there); nothing was measured."
    exit 2
  fi
  WORK=$(mktemp -d "${TMPDIR:-/tmp}/gpu-perf.XXXXXX")
  mkdir -p "$WORK/logs"
  if [[ -n ${OUT:-} ]]; then RESULTS=$OUT; else RESULTS=$WORK; fi
  mkdir -p "$RESULTS"
  COMBINED=$RESULTS/perf.log
  SUMMARY=$RESULTS/perf-summary.txt
  : > "$COMBINED"
  # In order of what the figures are for: the perf table, why a kernel waits, whether every kernel and
  # the batch API are clean under compute-sanitizer, then what subgroups buy on WebGPU.
  STEPS=(nvidia-smi unpack vulkan bench ncu sanitizer-memcheck sanitizer-racecheck sanitizer-synccheck
    webgpu-emulated)
  declare -gA RESULT=() NOTE=() TIME=()
  CURRENT='' SIGNAL=''
  trap finish EXIT
  trap 'SIGNAL=INT; exit 130' INT
  trap 'SIGNAL=TERM; exit 143' TERM
  trap 'SIGNAL=HUP; exit 129' HUP
  if command -v nvidia-smi >/dev/null; then
    step nvidia-smi nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
  else
    skip nvidia-smi "nvidia-smi not on PATH"
  fi
  local pages=$WORK/dev.pages
  step unpack unpack_pages "$PERF_BIN/dev.pages.xz" "$pages"
  if [[ -n $(compgen -G "$GL/*.deb") ]] && ! has_library libvulkan; then
    step vulkan install_vulkan_loader
  else
    skip vulkan "$(if has_library libvulkan; then echo "a Vulkan loader is already installed"; else echo "no $GL/*.deb carried and no Vulkan loader: WebGPU will have no GPU adapter"; fi)"
  fi
  local icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
  if [[ -z ${VK_DRIVER_FILES:-} && -f $icd ]]; then export VK_DRIVER_FILES=$icd; fi
  # Each step bounded so that all of them fit one of the device machine's 10-minute commands; the
  # bench writes perf.json after every section, so a cut run still leaves what it measured.
  step bench bounded "${BENCH_TIMEOUT:-310}" "$PERF_BIN/gpu_kernel_bench" --pages "$pages" --mib "${MIB:-1024}" \
    --nvcomp "$PERF_BIN/libnvcomp.so.6" --json "$RESULTS/perf.json"
  local ncu
  if ncu=$(find_ncu); then
    step ncu ncu_step "$ncu" "$pages"
    if [[ ${RESULT[ncu]} == FAILED ]] && grep -q "ERR_NVGPUCTRPERM\|LibraryNotLoaded\|not permitted" "$WORK/logs/ncu.txt"; then
      RESULT[ncu]=SKIPPED NOTE[ncu]="ncu may not read the counters here: $(grep -m1 "ERR_NVGPUCTRPERM\|LibraryNotLoaded\|not permitted" "$WORK/logs/ncu.txt" | cut -c1-120)"
      write_summary > "$SUMMARY"
    fi
  else
    skip ncu "ncu not found (looked: $ncu): no occupancy or issue-rate figures"
  fi
  # Every kernel of ours (each level, from-input, decompress, compact, the fused device functions) and
  # the CUDA batch API at every level (ordinary, page-locked and registered pages) under each tool, on
  # 1 MiB of pages (256), every output verified by the bench as in its timed run.
  local sanitizer t
  if sanitizer=$(find_sanitizer); then
    for t in memcheck racecheck synccheck; do
      step "sanitizer-$t" bounded "${SANITIZER_TIMEOUT:-30}" "$sanitizer" --tool "$t" --error-exitcode 9 \
        "$PERF_BIN/gpu_kernel_bench" --pages "$pages" --mib 1 --sets 1 --warmup 0 --runs 1 --host-runs 1 \
        --fused-pages 256 --only ours,host,fused
    done
  else
    for t in memcheck racecheck synccheck; do
      skip "sanitizer-$t" "compute-sanitizer not found (looked: $sanitizer)"
    done
  fi
  # The same WebGPU batch API with warps emulated through workgroup memory, beside the bench's row on
  # native subgroups (where the adapter's subgroups measured 32 or 64 wide): what subgroups buy.
  WARPFORGE_WEBGPU_WARPS=emulated step webgpu-emulated bounded "${WEBGPU_TIMEOUT:-40}" \
    "$PERF_BIN/gpu_kernel_bench" --pages "$pages" --mib 64 --only webgpu --host-runs 2 \
    --json "$RESULTS/perf-webgpu-emulated.json"
}

# Runs a command for at most N seconds where `timeout` exists (exit 124 when cut, 137 when it had to be
# killed 5 s later). A function of this script runs in a child bash that has the script's functions
# (`timeout` runs programs only); it sees exported variables and its arguments, nothing else.
bounded() { # seconds, command...
  local limit=$1
  shift
  if ! command -v timeout >/dev/null; then "$@"; return; fi
  if declare -F "$1" >/dev/null; then
    timeout -k 5 "$limit" bash -c "$(declare -f); set -uo pipefail; \"\$@\"" bounded "$@"
  else
    timeout -k 5 "$limit" "$@"
  fi
}

# One step of `run`, bounded by STEP_TIMEOUT (default 150 s) and by what is left of RUN_BUDGET
# (default 570 s: the device machine's 10-minute command less a margin for the table), so that a hung
# step costs its bound, not the call, and the table always comes back. With less than 15 s left the
# step is SKIPPED, saying so.
timed_step() { # name, command...
  local name=$1 budget=${RUN_BUDGET:-570} limit left
  shift
  left=$((budget - (SECONDS - RUN_START)))
  if ((left < 15)); then
    skip "$name" "no time left: $budget s of RUN_BUDGET spent"
    return
  fi
  limit=${STEP_TIMEOUT:-150}
  if ((limit > left - 5)); then limit=$((left - 5)); fi # 5 s for a cut step to die
  step "$name" bounded "$limit" "$@"
}

# Whether the dynamic linker's cache lists a library matching the pattern. grep reads all of
# ldconfig's output: `grep -q` would stop early and, under pipefail, ldconfig's SIGPIPE would read as
# "not found".
has_library() { # pattern
  ldconfig -p 2>/dev/null | grep -- "$1" >/dev/null
}

unpack_pages() { # xz file, destination
  if command -v xz >/dev/null; then
    xz -dc -- "$1" > "$2"
  else
    python3 -c 'import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], "wb"))' "$1" "$2"
  fi
  echo "$(($(wc -c < "$2") / PAGE_BYTES)) pages in $2"
}

# The Vulkan loader from the carried .debs (the device README's recipe), so that wgpu finds the GPU.
install_vulkan_loader() {
  local f
  for f in "$GL"/*.deb; do dpkg -x "$f" / || return 1; done
  ldconfig
  ldconfig -p | grep libvulkan
}

case $MODE in
  bundle) bundle ;;
  build) build ;;
  run) run ;;
  perf-build) perf_build ;;
  perf) perf ;;
  all) build; run ;;
  -h | --help | help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' ;;
  *) err "usage: $0 [bundle|build|run|perf-build|perf] (no argument: build, then run; --help for the environment)"; exit 2 ;;
esac
