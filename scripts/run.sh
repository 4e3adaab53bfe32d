#!/usr/bin/env bash
# The main job: install what is missing, build (Release), and sweep the
# traces shipped in traces/ (real workloads recorded with their page
# contents, see traces/README.md): for each, the kernel's own page-cache
# stream played into zcaches of several sizes, one table per trace; then
# the memory-split question on one block trace, static and adaptive; then
# every back-end side by side on the same streams.  Plots go to
# build/plots/ when gnuplot is installed (its scripts are written there
# either way).
# `run.sh --bench [ARGS]` runs the core benchmark on this system's files
# instead (build/bench/zc-bench-core --help).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DZC_BUILD_TESTS=OFF >/dev/null
cmake --build build -j"$(nproc)" >/dev/null
if [ "${1:-}" = --bench ]; then
  shift
  exec build/bench/zc-bench-core "$@"
fi

sweep=build/tools/zcache-sweep
mkdir -p build/plots
for info in traces/*.info; do
  name=$(basename "$info" .info)
  echo "== $name: the kernel's page-cache stream (traces/$name.kernel.zct)," \
    "zcache of 0 to 4 MiB"
  $sweep --capacity 0,256K,512K,1M,2M,4M --plot "build/plots/$name" \
    "traces/$name.kernel.zct" 2>/dev/null
  echo
done
echo "== sqlite-queries: 4 MiB of memory split between the page cache and the"
echo "   zcache (block trace through libzcache's model; synthetic contents, since"
echo "   the block trace carries none): static shares, then the adaptive"
echo "   controller moving the split as the trace runs (its split over time in"
echo "   build/plots/sqlite-queries-split-adaptive.csv)"
$sweep --format blkparse --memory 4M --share 0:100:10 --adaptive \
  --plot build/plots/sqlite-queries-split traces/sqlite-queries.blkparse 2>/dev/null
echo
echo "== back-ends compared: each kernel stream into a 1 MiB zcache, one choice"
echo "   changed at a time (scripts/compare-backends.sh; README: Back-ends compared)"
bash scripts/compare-backends.sh 1M
if command -v gnuplot >/dev/null; then
  echo "plots: build/plots/*.png and *.svg"
else
  echo "plots: gnuplot is not installed; the scripts are in build/plots/*.gp"
fi
