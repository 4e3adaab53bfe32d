#!/usr/bin/env bash
# The main job: install what is missing, build (Release), and sweep the
# traces shipped in traces/ (real workloads recorded with their page
# contents, see traces/README.md): for each, the access stream through
# libzcache's page cache at the kernel's resident size and the kernel's own
# page-cache stream, each into zcaches of several sizes; then the
# page-cache models against the kernel's own stream (zcache-fidelity); the
# memory-split question on one access stream, static and adaptive; then
# every back-end side by side on the same streams.  Plots go to
# build/plots/ when gnuplot is installed (its scripts are written there
# either way).
# `run.sh --bench [ARGS]` runs the core benchmark on this system's files
# instead (build/bench/zc-bench-core --help); `run.sh --configure-only`
# stops after configuring.  ZC_BUILD=DIR builds in DIR instead of build/.
set -euo pipefail
case ${1:-} in
  "" | --bench | --configure-only) ;;
  *)
    echo "usage: scripts/run.sh [--bench [ARGS] | --configure-only]" >&2
    exit 2
    ;;
esac
# ZC_BUILD as the caller meant it, before the cd below
case ${ZC_BUILD:-build} in
  /*) ;;
  *) [ -z "${ZC_BUILD:-}" ] || ZC_BUILD=$PWD/$ZC_BUILD ;;
esac
cd "$(dirname "$0")/.."
bash scripts/deps.sh
b=${ZC_BUILD:-build}
export ZC_BUILD=$b
# A build directory configured already keeps its settings (its tests stay
# built and listed for ctest: tests/run_sh_build.sh checks it); a new one
# is Release, without the tests.
if [ -f "$b/CMakeCache.txt" ]; then
  cmake -S . -B "$b" >/dev/null
else
  cmake -S . -B "$b" -DCMAKE_BUILD_TYPE=Release -DZC_BUILD_TESTS=OFF >/dev/null
fi
grep -q '^CMAKE_BUILD_TYPE:STRING=Release$' "$b/CMakeCache.txt" ||
  echo "run.sh: $b/ is not a Release build: its CPU times are not" \
    "comparable (rm -rf $b for a Release one)" >&2
[ "${1:-}" = --configure-only ] && exit 0
cmake --build "$b" -j"$(nproc)" >/dev/null
if [ "${1:-}" = --bench ]; then
  shift
  exec "$b/bench/zc-bench-core" "$@"
fi

# Fixed CPU prices for the cost model's columns, so the published tables
# do not move with the machine's load: LZO's thread CPU time per put and
# per zcache hit measured on this project's machine kind (README: Sweeps).
sweep=("$b/tools/zcache-sweep" --cpu-price put=6us,get=7us)
mkdir -p "$b/plots"
# The kernel's median resident page count of the traced file system, from
# the recording's .info: the page cache the kernel actually gave the files.
resident_median() {
  sed -n 's/.*resident pages: min [0-9]*, median \([0-9]*\),.*/\1/p' "$1"
}
for info in traces/*.info; do
  name=$(basename "$info" .info)
  pc=$(resident_median "$info")
  echo "== $name: what the programs asked for (traces/$name.zca) through"
  echo "   libzcache's page cache of $pc pages (the kernel's median resident"
  echo "   count), then a zcache of 0 to 4 MiB; contents from traces/$name.zcp"
  "${sweep[@]}" --page-cache "$pc" --capacity 0,256K,1M,4M \
    --plot "$b/plots/$name-access" "traces/$name.zca"
  echo
  echo "== $name: the kernel's own page-cache stream (traces/$name.kernel.zct),"
  echo "   zcache of 0 to 4 MiB"
  "${sweep[@]}" --capacity 0,256K,1M,4M --plot "$b/plots/$name" \
    "traces/$name.kernel.zct"
  echo
done
echo "== fidelity: each access stream through the lru and linux page-cache"
echo "   models, beside the kernel's own stream of the same run (README:"
echo "   Fidelity)"
for info in traces/*.info; do
  name=$(basename "$info" .info)
  "$b/tools/zcache-fidelity" --plot "$b/plots/$name-fidelity" "traces/$name"
  echo
done
echo "== sqlite-oltp: 8 MiB of memory split between the page cache and the"
echo "   zcache (the access stream through libzcache's model, real contents):"
echo "   static shares, then the adaptive controller moving the split as the"
echo "   trace runs (its split over time in"
echo "   $b/plots/sqlite-oltp-split-adaptive.csv)"
"${sweep[@]}" --memory 8M --share 0:100:10 --adaptive \
  --plot "$b/plots/sqlite-oltp-split" traces/sqlite-oltp.zca
echo
echo "== back-ends compared: each kernel stream into a 1 MiB zcache, one choice"
echo "   changed at a time (scripts/compare-backends.sh; README: Back-ends compared)"
bash scripts/compare-backends.sh 1M
if command -v gnuplot >/dev/null; then
  echo "plots: $b/plots/*.png and *.svg"
else
  echo "plots: gnuplot is not installed; the scripts are in $b/plots/*.gp"
fi
