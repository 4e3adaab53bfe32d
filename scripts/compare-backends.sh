#!/usr/bin/env bash
# Compare the zcache back-ends on the traces shipped in traces/: for each
# trace, the kernel's own page-cache stream (real page contents) played
# into a zcache of one size, varying one thing at a time from the defaults
# (lzo, zsmalloc, lru, half-size rule): the compressor, the allocator, the
# policy, the admission rule.  Then active_only, which needs the model's
# "was active" bit, on the block traces through libzcache's page-cache
# model (synthetic contents).  Hits and disk reads are exact; cpu_ms is
# measured and varies from run to run.
# Usage: scripts/compare-backends.sh [CAPACITY] (default 1M); needs a
# Release build in build/ (scripts/run.sh makes one).
set -euo pipefail
cd "$(dirname "$0")/.."
cap=${1:-1M}
sweep=build/tools/zcache-sweep
[ -x $sweep ] || { echo "build first: bash scripts/run.sh" >&2; exit 2; }
for info in traces/*.info; do
  name=$(basename "$info" .info)
  t=traces/$name.kernel.zct
  echo "=== $name ($t), zcache $cap"
  $sweep --capacity "$cap" --set compressor=lzo,lz4,zstd,none \
    --zcache accept_percent=50 "$t" | head -6
  $sweep --capacity "$cap" --zcache compressor=lzo --set level=1,9 "$t" | sed -n 3,4p
  $sweep --capacity "$cap" --zcache compressor=zstd --set level=1,9,19 "$t" | sed -n 3,5p
  $sweep --capacity "$cap" --set allocator=zsmalloc,zbud,z3fold,xvmalloc "$t" | sed -n 2,5p
  $sweep --capacity "$cap" --set policy=lru,fifo,clock,frame_lru,gdsf "$t" | sed -n 2,6p
  $sweep --capacity "$cap" --zcache allocator=zbud --set policy=lru,frame_lru "$t" | sed -n 3,4p
  $sweep --capacity "$cap" --set accept_percent=50,75,100 "$t" | sed -n 2,4p
  $sweep --capacity "$cap" --set store_raw=true --set dedup=false,true "$t" | sed -n 2,3p
  $sweep --capacity "$cap" --set hysteresis_percent=0,90,100 "$t" | sed -n 2,4p
  echo
done
for info in traces/*.info; do
  name=$(basename "$info" .info)
  echo "=== $name (traces/$name.blkparse through the model, synthetic contents)"
  $sweep --format blkparse --page-cache 1024 --capacity "$cap" \
    --set active_only=false,true "traces/$name.blkparse" | head -3
  echo
done
