#!/usr/bin/env bash
# bench-sweep.sh - what a sweep of 8 zcache sizes costs against one replay
# of the same trace, measured in one run (the sweep issue's target: at most
# 2x).  The trace is generated: 1,000,000 single-page reads over 300,000
# pages, 30% of them in a hot set of 3,000 (a fixed LCG, so every run and
# machine sees the same trace).  Each command runs RUNS times (default 3),
# alternating; medians are reported.
#   bash bench/bench-sweep.sh [RUNS]     (after building build/)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
bin=build/tools
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# An LCG whose products stay below 2^53, so awk's doubles are exact.
awk 'BEGIN { x = 12345; for (i = 0; i < 1000000; i++) {
  x = (x * 69069 + 1) % 4294967296; r = x / 4294967296
  x = (x * 69069 + 1) % 4294967296
  print (r < 0.3 ? int(x / 65536) % 3000 : int(x / 256) % 300000) } }' > "$tmp/trace.txt"
sizes=4M,8M,12M,16M,20M,24M,28M,32M
time_of() { local t0 t1; t0=$(date +%s.%N); "$@" > /dev/null; t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }'; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
: > "$tmp/one"; : > "$tmp/sweep"
for r in $(seq "$runs"); do
  time_of $bin/zcache-replay --format blocklist-text --page-cache 16384 \
    --zcache capacity=32M "$tmp/trace.txt" >> "$tmp/one"
  time_of $bin/zcache-sweep --format blocklist-text --page-cache 16384 \
    --capacity $sizes "$tmp/trace.txt" >> "$tmp/sweep"
done
one=$(median < "$tmp/one"); sweep=$(median < "$tmp/sweep")
echo "bench-sweep: 1,000,000 accesses, page cache 16384 pages, synth content, median of $runs runs"
echo "one replay (capacity=32M):        $one s"
echo "sweep of 8 sizes ($sizes): $sweep s"
awk -v a="$one" -v b="$sweep" 'BEGIN { printf "sweep / one replay:               %.2fx (target: at most 2x)\n", b / a }'
