#!/bin/sh
# Rebuilds the committed seed corpus of the PTX, IR and archive fuzz targets (fuzz/corpus/<target>/seed-*)
# from the repository's PTX and .wfir files, the kernels it emits and archives of the sample pages
# (data/sample-pages.wfpa). Run from the repository root:
#   sh fuzz/seed-corpus.sh [path/to/warpforge]   (default: builds it with `cargo run`)
# ptx_sim and wfir inputs start with 8 bytes choosing the launch (see their targets); the seeds use
# one block of 32 threads and 512-byte buffers, 4 KiB buffers for the LZ4 kernels.
set -eu
warpforge=${1:-}
wf() {
    if [ -n "$warpforge" ]; then "$warpforge" "$@"; else cargo run -q --release -- "$@"; fi
}
emit() { wf emit "$@"; }
for t in ptx_lint ptx_sim wfir; do
    mkdir -p "fuzz/corpus/$t"
    rm -f "fuzz/corpus/$t"/seed-*
done
small='\000\200\000\007\000\001\003\000'
large='\000\200\000\077\000\001\003\000'
wfir_small='\000\007\001\003\000\000\000\000'
wfir_large='\000\077\001\003\000\000\000\000'
ptx_seed() { # name, file, config
    cp "$2" "fuzz/corpus/ptx_lint/seed-$1"
    { printf "$3"; cat "$2"; } > "fuzz/corpus/ptx_sim/seed-$1"
}
wfir_seed() { # name, file, config
    { printf "$3"; cat "$2"; } > "fuzz/corpus/wfir/seed-$1"
}
for f in analysis/tests/corpus/ptx/*.ptx analysis/tests/fixtures/*.ptx; do
    name=$(basename "$f")
    cp "$f" "fuzz/corpus/ptx_lint/seed-$name"
    case "$name" in
        # The linter gets every compilation; the simulator one or two of each corpus kernel.
        *.nvcc13-lineinfo.* | *.sm90.ptx) ;;
        *) { printf "$small"; cat "$f"; } > "fuzz/corpus/ptx_sim/seed-$name" ;;
    esac
done
for f in $(find . -name '*.wfir' -not -path './target/*' -not -path './fuzz/*' | sort); do
    wfir_seed "$(basename "$f")" "$f" "$wfir_small"
done
tmp=$(mktemp -d)
for k in vector-add warp-reduce warp-collectives lz4-compress lz4-compress-l0 lz4-decompress lz4-compact; do
    config=$small wconfig=$wfir_small
    case "$k" in lz4-*) config=$large wconfig=$wfir_large ;; esac
    emit --kernel "$k" --target ptx --sm 80 > "$tmp/$k.ptx"
    ptx_seed "emitted-$k.sm80.ptx" "$tmp/$k.ptx" "$config"
    emit --kernel "$k" --target ir > "$tmp/$k.wfir"
    wfir_seed "emitted-$k.wfir" "$tmp/$k.wfir" "$wconfig"
done
# archive_reader: archives of real pages at every level, so that mutations start past the header and
# the checksums (from empty inputs a 480 s run reached 185 coverage edges; from these, 1,128 at once):
# one typical page, and four pages of every kind (one LZ4 page that compresses well, the typical one,
# a raw page, a same-filled page).
mkdir -p fuzz/corpus/archive_reader
rm -f fuzz/corpus/archive_reader/seed-*
wf decompress data/sample-pages.wfpa "$tmp/sample.pages" > /dev/null
page() { dd if="$tmp/sample.pages" bs=4096 skip="$1" count=1 2> /dev/null; }
page 53 > "$tmp/one.pages"
{ page 19; page 53; page 256; page 5; } > "$tmp/mix.pages"
for level in 0 1 2 3; do
    for set in one mix; do
        wf compress --backend reference --level "$level" "$tmp/$set.pages" \
            "fuzz/corpus/archive_reader/seed-$set-l$level.wfpa" > /dev/null
    done
done
rm -r "$tmp"
du -sh fuzz/corpus/ptx_lint fuzz/corpus/ptx_sim fuzz/corpus/wfir fuzz/corpus/archive_reader
