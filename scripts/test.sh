#!/usr/bin/env bash
# The project's test command: every crate's unit, integration and doc tests, then one summary line.
set -uo pipefail
cd "$(dirname "$0")/.."
log=$(mktemp)
trap 'rm -f "$log"' EXIT
cargo test --workspace "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
passed=$(grep -Eo '^test result: [a-zA-Z]+\. [0-9]+ passed' "$log" | awk '{s += $4} END {print s + 0}')
failed=$(grep -Eo '[0-9]+ failed;' "$log" | awk '{s += $1} END {print s + 0}')
ignored=$(grep -Eo '[0-9]+ ignored;' "$log" | awk '{s += $1} END {print s + 0}')
# Tests that returned early because a tool or device is missing say so on a "*** SKIPPED" line; they
# count as skipped, not passed.
loud=$(grep -c '^\*\*\* SKIPPED' "$log")
passed=$((passed - loud))
ignored=$((ignored + loud))
echo
echo "warpforge tests: ${passed} passed, ${failed} failed, ${ignored} skipped"
if [ "$status" -ne 0 ]; then exit "$status"; fi
if [ "$passed" -eq 0 ]; then echo "no test ran"; exit 1; fi
