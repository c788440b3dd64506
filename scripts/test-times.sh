#!/usr/bin/env bash
# Where the README's test command spends its time: runs ./scripts/test.sh (provisioning included) with
# cargo's --timings, then prints one row per test binary (unit, integration and doc tests of every
# crate): the seconds its own compilation took (cargo's timing data; for an integration test, compiling
# and linking that one file) and the seconds its tests ran (libtest's "finished in"), then the totals
# and the wall time of the whole command.
#
#   scripts/test-times.sh                  # the table, sorted by build + run time
#   scripts/test-times.sh -- ARGS          # ARGS go to scripts/test.sh (and on to cargo test)
#   scripts/test-times.sh --report [DIR]   # the table again from a finished run's DIR (target/test-times)
#
# For a "fresh clone" figure run it in a new clone (git clone . /tmp/x && /tmp/x/scripts/test-times.sh):
# nothing under target/ is reused then. The raw log and cargo's report stay in target/test-times/.
set -uo pipefail
cd "$(dirname "$0")/.."
out=target/test-times
if [ "${1:-}" = "--report" ]; then
  out=${2:-$out}
  [ -f "$out/test.log" ] || { echo "no $out/test.log: run scripts/test-times.sh first" >&2; exit 2; }
  wall=$(cat "$out/wall" 2>/dev/null || echo 0)
  status=0
else
  [ "${1:-}" = "--" ] && shift
  mkdir -p "$out"
  start=$(date +%s)
  ./scripts/test.sh --timings "$@" 2>&1 | tee "$out/test.log"
  status=${PIPESTATUS[0]}
  wall=$(($(date +%s) - start))
  echo "$wall" > "$out/wall"
  cp target/cargo-timings/cargo-timing.html "$out/" 2>/dev/null || true
fi
log="$out/test.log"
python3 - "$log" "$out/cargo-timing.html" "$wall" <<'PY'
import glob, json, os, re, sys

log_path, html_path, wall = sys.argv[1], sys.argv[2], int(sys.argv[3])
build = {}
try:
    html = open(html_path, encoding="utf-8").read()
    units = json.loads(re.search(r"const UNIT_DATA = (\[.*?\]);\n", html, re.S).group(1))
    for u in units:
        # "corpus_run \"test\" (test)": an integration test; "warpforge_ir \"lib\" (test)": a crate's unit
        # tests; anything else (a library, a build script, a binary, an example) is built for them.
        m = re.fullmatch(r'(\S+) "(\w+)"( \(test\))?', u["target"].strip())
        if m and m.group(3):
            kind = "test" if m.group(2) == "test" else "unit-" + m.group(2)
            key = (u["name"], kind, m.group(1))
        else:
            key = (u["name"], "dep", u["name"] + " " + u["target"].strip())
        build[key] = build.get(key, 0.0) + float(u["duration"])
    build_end = max(float(u["start"]) + float(u["duration"]) for u in units)
except (OSError, AttributeError, ValueError) as e:
    build_end = None
    print(f"(no cargo timing data: {e})")

rows = []  # (label, build, run, tests)
current = None
running = re.compile(r"^\s+Running (\S+) \((target/[^/]+)/deps/([A-Za-z0-9_]+)-([0-9a-f]+)\)")

def package_of(profile_dir, hash_):
    """The package a test binary belongs to: cargo's fingerprint folder has the binary's hash."""
    found = glob.glob(f"{profile_dir}/.fingerprint/*-{hash_}")
    return os.path.basename(found[0])[: -len(hash_) - 1] if found else "?"

doc = re.compile(r"^\s+Doc-tests (\S+)")
result = re.compile(r"^test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored.*finished in ([0-9.]+)s")
for line in open(log_path, encoding="utf-8", errors="replace"):
    if m := running.match(line):
        pkg = package_of(m.group(2), m.group(4))
        current = [f"{pkg}: {m.group(1)}", m.group(1), m.group(3), pkg]
    elif m := doc.match(line):
        current = [f"{m.group(1)}: doc-tests", "doc", m.group(1), m.group(1)]
    elif (m := result.match(line)) and current:
        rows.append((current, int(m.group(1)) + int(m.group(2)) + int(m.group(3)), float(m.group(4))))
        current = None

def build_time(cur):
    label, path, crate, package = cur
    if path == "doc":
        return None
    want = "test"
    if path.startswith("unittests"):
        want = "unit-bin" if path.endswith("main.rs") else "unit-lib"
    return sum(v for (p, kind, name), v in build.items() if kind == want and name == crate and p == package)

table = []
for cur, tests, run in rows:
    b = build_time(cur)
    table.append((cur[0], b, run, tests))
table.sort(key=lambda r: -((r[1] or 0) + r[2]))
print()
print(f"{'test binary':<62} {'build s':>8} {'run s':>8} {'tests':>6}")
for label, b, run, tests in table:
    bs = "-" if b is None else f"{b:.1f}"
    print(f"{label[:62]:<62} {bs:>8} {run:>8.1f} {tests:>6}")
test_build = sum(r[1] or 0 for r in table)
deps_build = sum(v for (pkg, kind, name), v in build.items() if kind == "dep")
print(f"{'binaries: ' + str(len(table)):<62} {test_build:>8.1f} {sum(r[2] for r in table):>8.1f} {sum(r[3] for r in table):>6}")
print(f"everything else built (libraries, build scripts, binaries, examples; summed): {deps_build:.0f} s")
if build_end is not None:
    print(f"compilation wall time (cargo --timings, both cores): {build_end:.0f} s")
print(f"wall time of ./scripts/test.sh (provisioning, build, tests): {wall // 60} min {wall % 60} s")
PY
exit "$status"
