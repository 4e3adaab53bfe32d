#!/usr/bin/env bash
# Compare the zcache back-ends on the traces shipped in traces/: for each
# trace, the kernel's own page-cache stream (real page contents) played
# into a zcache of one size, varying one thing at a time from the defaults
# (lzo, zsmalloc, lru, half-size rule): the compressor, the allocator, the
# policy, the admission rule.  Then active_only, which needs the model's
# "was active" bit, on the access streams through libzcache's page-cache
# model at the kernel's median resident size (real contents, from the
# recording's pack).  Hits and disk reads are exact; cpu_ms is
# measured and varies from run to run.
# Usage: scripts/compare-backends.sh [CAPACITY] (default 1M); needs a
# Release build in build/, or in $ZC_BUILD (scripts/run.sh makes one).
set -euo pipefail
cd "$(dirname "$0")/.."
cap=${1:-1M}
sweep=${ZC_BUILD:-build}/tools/zcache-sweep
[ -x "$sweep" ] || { echo "build first: bash scripts/run.sh" >&2; exit 2; }
# The table rows of one sweep (no header, no notes), after a note of what
# every row shares.
rows() {
  local base=$1
  shift
  "$sweep" "$@" | awk -v base="$base" '$1 == "-" || $1 ~ /^[0-9]+$/ {
    label = base
    for (i = 2; i <= NF - 10; i++) label = label (label == "" ? "" : " ") $i
    printf "%-40s", label
    for (i = NF - 9; i <= NF; i++) printf " %9s", $i
    printf "\n"
  }'
}
header() {
  printf "%-40s" "$1"
  for c in accesses pc_hit% zc_hit% disk_reads in_mem% kept% density cpu_ms \
    wasted_ms saved_ms; do printf " %9s" "$c"; done
  printf "\n"
}
for info in traces/*.info; do
  name=$(basename "$info" .info)
  t=traces/$name.kernel.zct
  header "=== $name, kernel stream, $cap"
  rows "" --capacity "$cap" --set compressor=lzo,lz4,zstd,none "$t"
  rows "compressor=lzo" --capacity "$cap" --zcache compressor=lzo --set level=1,9 "$t"
  rows "compressor=zstd" --capacity "$cap" --zcache compressor=zstd --set level=1,9,19 "$t"
  rows "" --capacity "$cap" --set allocator=zsmalloc,zbud,z3fold,xvmalloc "$t"
  rows "" --capacity "$cap" --set policy=lru,fifo,clock,frame_lru,gdsf "$t"
  rows "allocator=zbud" --capacity "$cap" --zcache allocator=zbud --set policy=lru,frame_lru "$t"
  rows "" --capacity "$cap" --set accept_percent=50,75,100 "$t"
  rows "" --capacity "$cap" --set store_raw=true --set dedup=false,true "$t"
  rows "" --capacity "$cap" --set hysteresis_percent=0,90,100 "$t"
  echo
done
echo "active_only needs the model's \"was active\" bit: the access streams through"
echo "libzcache's page cache at the kernel's median resident size, contents"
echo "from each recording's pack"
for info in traces/*.info; do
  name=$(basename "$info" .info)
  pc=$(sed -n 's/.*resident pages: min [0-9]*, median \([0-9]*\),.*/\1/p' "$info")
  header "=== $name.zca, P=$pc, $cap"
  rows "" --page-cache "$pc" --capacity "$cap" \
    --set active_only=false,true "traces/$name.zca"
  echo
done
