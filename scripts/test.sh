#!/usr/bin/env bash
# The project's test command: provisions what it can (scripts/provision.sh: the ptxas wheel, lavapipe when
# root), runs every crate's unit, integration and doc tests, then prints one summary line.
set -uo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/provision.sh
. scripts/provision.sh || exit 1
# A first build (no target/ yet, as in a fresh clone) gains nothing from incremental caches and pays for
# writing them: off, unless the caller decided.
if [ ! -d target/debug ] && [ -z "${CARGO_INCREMENTAL:-}" ]; then
  export CARGO_INCREMENTAL=0
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
cargo test --workspace "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
passed=$(grep -Eo '^test result: [a-zA-Z]+\. [0-9]+ passed' "$log" | awk '{s += $4} END {print s + 0}')
failed=$(grep -Eo '[0-9]+ failed;' "$log" | awk '{s += $1} END {print s + 0}')
ignored=$(grep -Eo '[0-9]+ ignored;' "$log" | awk '{s += $1} END {print s + 0}')
# Tests that returned early because a tool or device is missing say so with "*** SKIPPED"; they count as
# skipped, not passed. Counted wherever the marker stands on a line (libtest may print it after "test x ...").
loud=$(grep -o '\*\*\* SKIPPED' "$log" | wc -l)
passed=$((passed - loud))
ignored=$((ignored + loud))
echo
if [ "$loud" -gt 0 ]; then
  echo "skipped for a missing tool or device:"
  grep -o '\*\*\* SKIPPED[^*]*' "$log" | sed 's/^\*\*\* SKIPPED /  /' | sort | uniq -c | sort -rn | head -n 20
fi
echo "warpforge tests: ${passed} passed, ${failed} failed, ${ignored} skipped"
if [ "$status" -ne 0 ]; then exit "$status"; fi
if [ "$passed" -le 0 ]; then echo "no test ran"; exit 1; fi
