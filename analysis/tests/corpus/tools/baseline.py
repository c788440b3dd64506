#!/usr/bin/env python3
"""Runs `warpforge lint --format json` on every file of manifest.tsv and writes a Markdown table of
what it reports against what the manifest expects (the corpus's BASELINE.md).

usage: tools/baseline.py WARPFORGE_BINARY > BASELINE.md      (run from the corpus directory)
"""
import collections
import json
import os
import re
import subprocess
import sys

RULE_ORDER = ["B001", "W001", "W002", "A001", "S001", "F081", "R001", "N001"]


def read_manifest(path):
    rows = []
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            file, expect, kernel, where, note = line.rstrip("\n").split("\t")
            rows.append(dict(file=file, expect=expect, kernel=kernel, where=where, note=note))
    return rows


def source_lines(ptx_path):
    """PTX line -> source line of the main .cu file, from the nearest preceding .loc (-lineinfo)."""
    main, current, out = None, None, {}
    with open(ptx_path, errors="replace") as f:
        lines = f.read().split("\n")
    for text in lines:
        m = re.match(r'\s*\.file\s+(\d+)\s+"([^"]*)"', text)
        if m and m.group(2).endswith(".cu") and "/src/" in m.group(2):
            main = m.group(1)
    for n, text in enumerate(lines, 1):
        m = re.match(r"\s*\.loc\s+(\d+)\s+(\d+)", text)
        if m:
            current = int(m.group(2)) if m.group(1) == main else None
        out[n] = current
    return out


def n001_key(message, ptx_line):
    """(the opcode on the PTX line the note points at, what the note names as the instruction)."""
    m = re.match(r"`([^`]*)`", message)
    token = m.group(1) if m else message
    words = ptx_line.split()
    if words and words[0].startswith("@"):
        words = words[1:]
    opcode = words[0].rstrip(";") if words else ""
    if len(token) > 24:
        token = token[:24] + "…"
    return opcode, token


def main() -> int:
    binary = sys.argv[1]
    rows = read_manifest("manifest.tsv")
    table = []
    totals = collections.Counter()
    n001 = collections.Counter()
    clean_warnings, clean_files, clean_accesses = 0, 0, 0
    clean_by_rule = collections.Counter()
    false_errors, missed, weak, bad_errors = [], [], [], []
    builds = collections.defaultdict(collections.Counter)
    for row in rows:
        build = "-" if row["expect"] == "error" else row["file"].split(".", 1)[1].removesuffix(".ptx")
        bstat = builds[build]
        bstat["files"] += 1
        proc = subprocess.run([binary, "lint", "--format", "json", row["file"]],
                              capture_output=True, text=True)
        try:
            diags = json.loads(proc.stdout) if proc.stdout.strip() else []
        except json.JSONDecodeError:
            diags = []
        counts = collections.Counter()
        with open(row["file"], errors="replace") as f:
            ptx_lines = f.read().split("\n")
        for d in diags:
            counts[(d["rule"], d["severity"])] += 1
            totals[(d["rule"], d["severity"])] += 1
            if d["rule"] == "N001":
                line = d["location"]["line"]
                text = ptx_lines[line - 1] if 0 < line <= len(ptx_lines) else ""
                n001[n001_key(d["message"], text)] += 1
                bstat["notes"] += 1
        errors = {r: c for (r, s), c in counts.items() if s == "error"}
        warnings = {r: c for (r, s), c in counts.items() if s == "warning"}
        notes = sum(c for (r, s), c in counts.items() if s == "note")
        expect = row["expect"]
        if expect == "clean":
            clean_files += 1
            clean_warnings += sum(warnings.values())
            # A grouped "cannot prove" warning lists its other accesses in "also".
            clean_accesses += sum(1 + len(d.get("also", [])) for d in diags
                                  if d["severity"] == "warning")
            clean_by_rule.update(warnings)
            bstat["clean"] += 1
            bstat["clean_warnings"] += sum(warnings.values())
            if errors:
                bstat["false"] += 1
                verdict = "FALSE ERROR " + ",".join(sorted(errors))
                false_errors.append((row["file"], sorted(errors)))
            else:
                verdict = "ok"
        elif expect == "error":
            msg = (proc.stderr.strip().splitlines() or [""])[-1]
            if proc.returncode == 2:
                verdict = f"ok (exit 2: {msg[:80]})"
            else:
                verdict = f"NOT REJECTED (exit {proc.returncode}, {len(diags)} findings)"
                bad_errors.append((row["file"], proc.returncode))
        else:
            wanted = expect.split(",")
            src_of = source_lines(row["file"])
            parts = []
            for rule in wanted:
                hits = [d for d in diags if d["rule"] == rule and d["kernel"] == row["kernel"]]
                err = [d for d in hits if d["severity"] == "error"]
                if err:
                    lines = sorted({src_of.get(d["location"]["line"]) for d in err} - {None})
                    at = f" at src line {','.join(map(str, lines))}" if lines else ""
                    parts.append(f"ok {rule}{at}")
                    bstat["caught"] += 1
                elif hits:
                    parts.append(f"WEAK {rule} (warning only)")
                    weak.append((row["file"], rule))
                    bstat["weak"] += 1
                else:
                    parts.append(f"MISSED {rule}")
                    missed.append((row["file"], rule))
                    bstat["missed"] += 1
            verdict = "; ".join(parts)
        fmt = lambda d: " ".join(f"{r}×{c}" for r, c in sorted(d.items(), key=lambda x: RULE_ORDER.index(x[0]) if x[0] in RULE_ORDER else 99)) or "–"
        table.append((row["file"].removeprefix("ptx/"), expect, str(proc.returncode), fmt(errors),
                      fmt(warnings), str(notes) if notes else "–", verdict))

    out = sys.stdout.write
    out("# Lint corpus baseline\n\n")
    commit = subprocess.run(["git", "log", "-1", "--format=%h %s", "--", "../../src", "../../../src"],
                            capture_output=True, text=True).stdout.strip() or "unknown"
    out("What `warpforge lint` reports today on every file of the corpus, against `manifest.tsv`.\n")
    out(f"Linter built from the last commit touching it: {commit}.\n")
    out("Regenerate (from this directory, after building the linter):\n\n")
    out("```sh\ncargo build --release\n"
        "python3 tools/baseline.py ../../../target/release/warpforge > BASELINE.md\n"
        "# each file is linted alone: warpforge lint --format json ptx/FILE.ptx\n```\n\n")
    out("Verdicts: `ok` — a clean file with no error, a planted bug whose rule fires as an error in its "
        "kernel (with the source line of the finding where the PTX has `-lineinfo`), or an invalid file "
        "rejected with exit 2; `FALSE ERROR` — an error on clean code; `MISSED` — the planted bug's rule "
        "does not fire in that kernel; `WEAK` — it fires as a warning only; `NOT REJECTED` — an invalid "
        "file linted as if valid.\n\n")
    n_bug = sum(1 for r in rows if r["expect"] not in ("clean", "error"))
    out("## Summary\n\n")
    out(f"- files: {len(rows)} ({clean_files} clean, {n_bug} planted-bug, "
        f"{len(rows) - clean_files - n_bug} invalid)\n")
    out(f"- clean files with false errors: {len(false_errors)} of {clean_files}"
        + (": " + ", ".join(f"{f.removeprefix('ptx/')} ({','.join(r)})" for f, r in false_errors) if false_errors else "") + "\n")
    out(f"- planted bugs missed: {len(missed)} of {n_bug}"
        + (": " + ", ".join(f"{f.removeprefix('ptx/')} ({r})" for f, r in missed) if missed else "") + "\n")
    out(f"- planted bugs reported as a warning only: {len(weak)}"
        + (": " + ", ".join(f"{f.removeprefix('ptx/')} ({r})" for f, r in weak) if weak else "") + "\n")
    out(f"- invalid files not rejected: {len(bad_errors)} of {len(rows) - clean_files - n_bug}"
        + (": " + ", ".join(f"{f.removeprefix('ptx/')} (exit {rc})" for f, rc in bad_errors) if bad_errors else "") + "\n")
    out(f"- warned accesses per clean file (a grouped warning counts each access it lists): "
        f"{clean_accesses / max(clean_files, 1):.1f}\n")
    out(f"- warnings per clean file: {clean_warnings / max(clean_files, 1):.1f} on average "
        f"({clean_warnings} in {clean_files} files: "
        + ", ".join(f"{r} {c}" for r, c in clean_by_rule.most_common()) + ")\n\n")
    out("By build (`-lineinfo` is the same code as `nvcc13.sm80` with `.loc` lines):\n\n"
        "| build | files | clean files with false errors | planted bugs: error / warning only / missed "
        "| warnings per clean file | N001 notes |\n|---|---|---|---|---|---|\n")
    for build, b in sorted(builds.items()):
        if build == "-":
            continue
        avg = f"{b['clean_warnings'] / b['clean']:.1f}" if b["clean"] else "–"
        out(f"| {build} | {b['files']} | {b['false']} of {b['clean']} | "
            f"{b['caught']} / {b['weak']} / {b['missed']} | {avg} | {b['notes']} |\n")
    out("\n")
    out("Findings by rule and severity, all files:\n\n| rule | error | warning | note |\n|---|---|---|---|\n")
    for rule in RULE_ORDER:
        e, w, n = (totals[(rule, s)] for s in ("error", "warning", "note"))
        if e or w or n:
            out(f"| {rule} | {e} | {w} | {n} |\n")
    out("\nN001 (unmodelled) notes by the opcode on the PTX line they point at, and the text the note "
        "names as the instruction (different when a multi-line instruction, a brace-enclosed operand "
        "list or a label is split wrongly):\n\n| PTX opcode | note names | notes |\n|---|---|---|\n")
    by_opcode = collections.Counter()
    for (opcode, token), v in n001.items():
        by_opcode[opcode] += v
    for opcode, total in by_opcode.most_common():
        tokens = collections.Counter({tok: v for (op, tok), v in n001.items() if op == opcode})
        shown = ", ".join(f"`{tok}` ×{v}" for tok, v in tokens.most_common(3))
        more = f", … ({len(tokens) - 3} more)" if len(tokens) > 3 else ""
        out(f"| `{opcode}` | {shown}{more} | {total} |\n")
    out("\n## Per file\n\n| file | expect | exit | errors | warnings | notes | verdict |\n"
        "|---|---|---|---|---|---|---|\n")
    for r in table:
        out("| " + " | ".join(r) + " |\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
