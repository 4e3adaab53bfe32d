#!/usr/bin/env bash
# bench-adapt.sh - the adaptive split against the best static split, in one
# run (issue 7's targets).
#
# For every workload and memory size M, zcache-sweep runs the static splits
# 0, 5, ..., 100% of M and the adaptive row on the same trace, twice:
#   hdd  (8 ms a disk read: CPU is noise, so the controller minimises disk
#         reads): adaptive disk reads / the fewest of any static split;
#   ssd  (100 us, the default: a compression costs a tenth of a disk read,
#         so the controller weighs CPU): adaptive cost / the least cost of
#         any static split, cost = disk reads x latency + measured CPU.
# Then the controller's cost in time: zcache-replay with --adaptive against
# the same replay with the static split of fewest disk reads, RUNS runs
# each (default 3), alternating, medians.
#
# Workloads: the five access streams shipped in traces/ (real contents,
# from each recording's pack); the real traces in ../shared/traces/ext
# when that folder is there (skipped with a note otherwise); phases from
# real traces (the shipped sqlite and grep block traces played one after
# another, twice, synthetic contents, since the two packs differ); and a generated one (a loop over 3x M's pages, then
# random reads of a set just under M's pages, twice; a fixed LCG).
#   bash bench/bench-adapt.sh [--ssd] [RUNS]     (after building build/)
# --ssd adds the cost comparison at 100 us (it doubles the time).
set -euo pipefail
cd "$(dirname "$0")/.."
ssd=0
if [ "${1:-}" = --ssd ]; then ssd=1; shift; fi
runs=${1:-3}
bin=build/tools
ext=../shared/traces/ext
[ -x $bin/zcache-sweep ] || { echo "build first: bash scripts/run.sh" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The generated phases, for M = 16 MiB (4096 pages): 3 passes of a loop over
# 12288 pages, then 40000 reads of 4000 pages at random; twice.
awk 'BEGIN { x = 4242
  for (ph = 0; ph < 4; ph++)
    if (ph % 2 == 0) { for (p = 0; p < 3; p++) for (i = 0; i < 12288; i++) print i }
    else for (i = 0; i < 40000; i++) {
      x = (x * 69069 + 1) % 4294967296; print 100000 + int(x / 65536) % 4000 } }' \
  > "$tmp/phases.txt"

# name|format|memory sizes|files
work=(
  "grep-src|access|4M 8M 16M|traces/grep-src.zca"
  "build-c|access|8M 16M 32M|traces/build-c.zca"
  "sqlite-oltp|access|4M 8M 16M|traces/sqlite-oltp.zca"
  "python-imports|access|8M 16M 32M|traces/python-imports.zca"
  "file-server|access|4M 8M 16M|traces/file-server.zca"
)
if [ -d "$ext" ]; then
  work+=(
    "cloudphysics|vscsi|32M 64M|$ext/cloudphysics_vscsi_sample.csv"
    "hadoop|blkparse|8M 32M|$ext/hadoop_blkparse.txt"
    "hadoop-eternity8|blktrace|16M|$ext/hadoop_eternity8_sdb.blktrace.0"
    "mqsim-tpcc|disksim|8M|$ext/mqsim_tpcc-small.trace"
  )
else
  echo "note: $ext is missing: its real traces are skipped"
fi
work+=(
  "phases: sqlite,grep x2|blkparse|4M 8M|traces/sqlite-oltp.blkparse.zst traces/grep-src.blkparse.zst traces/sqlite-oltp.blkparse.zst traces/grep-src.blkparse.zst"
  "phases: generated|blocklist-text|16M|$tmp/phases.txt"
)

# The sweep's summary of its adaptive row: disk-read ratio, best static
# share, cost ratio, cheapest static share.
summary() {
  awk '/^adaptive: [0-9]+ epochs; disk reads/ {
         r = $6; s = $NF; gsub(/[(),%]/, "", s); getline
         c = $(NF - 6); t = $NF; gsub(/[(),%]/, "", t)
         print r, s, c, t }'
}
best_disk() { awk '/<- fewest disk reads/ { print $6 }'; }
adapt_disk() { awk '$1 == "adaptive" && $2 == "adaptive" { print $6 }'; }

printf "%-24s %5s | %-30s | %-26s\n" "" "" "hdd: disk reads" "ssd: cost"
printf "%-24s %5s | %8s %8s %5s %6s | %7s %5s %6s\n" workload M static \
  adaptive share ratio static share ratio
: > "$tmp/timing"
for w in "${work[@]}"; do
  IFS='|' read -r name fmt sizes files <<< "$w"
  for m in $sizes; do
    # shellcheck disable=SC2086
    $bin/zcache-sweep --format "$fmt" --memory "$m" --share 0:100:5 --adaptive \
      --disk-latency hdd $files > "$tmp/hdd" 2>/dev/null
    read -r dr ds _ _ < <(summary < "$tmp/hdd")
    cr=- cs=-
    if [ $ssd = 1 ]; then
      # shellcheck disable=SC2086
      $bin/zcache-sweep --format "$fmt" --memory "$m" --share 0:100:5 \
        --adaptive $files > "$tmp/ssd" 2>/dev/null
      read -r _ _ cr cs < <(summary < "$tmp/ssd")
    fi
    printf "%-24s %5s | %8s %8s %4s%% %6s | %6s%% %5s %6s\n" "$name" "$m" \
      "$(best_disk < "$tmp/hdd")" "$(adapt_disk < "$tmp/hdd")" "$ds" "$dr" \
      "$cs" "" "$cr"
    echo "$name|$fmt|$m|$ds|$files" >> "$tmp/timing"
  done
done
echo
echo "ratio: adaptive / best static (fewest disk reads at 8 ms; least cost at"
echo "100 us, with --ssd); share: the best static split's zcache share."

# Time: the controller against the static split with the fewest disk reads
# (both at 8 ms), per run.
time_of() { local t0 t1; t0=$(date +%s.%N); "$@" > /dev/null; t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }'; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
echo
printf "%-24s %5s %6s %9s %9s %6s\n" workload M share static_s adapt_s ratio
while IFS='|' read -r name fmt m share files; do
  : > "$tmp/ts"; : > "$tmp/ta"
  for r in $(seq "$runs"); do
    # shellcheck disable=SC2086
    time_of $bin/zcache-replay --format "$fmt" --memory "$m" --share "$share" \
      $files >> "$tmp/ts"
    # shellcheck disable=SC2086
    time_of $bin/zcache-replay --format "$fmt" --memory "$m" --adaptive \
      --disk-latency hdd $files >> "$tmp/ta"
  done
  s=$(median < "$tmp/ts"); a=$(median < "$tmp/ta")
  printf "%-24s %5s %5s%% %9s %9s %6.2f\n" "$name" "$m" "$share" "$s" "$a" \
    "$(awk -v a="$a" -v s="$s" 'BEGIN { print a / s }')"
done < "$tmp/timing"
