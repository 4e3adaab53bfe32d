#!/usr/bin/env bash
# adapt-table.sh - every controller against the best static split, on every
# trace, at hdd, ssd and nvme (issue 17's table).
#
# For each trace and memory M: the static splits 0, 10, ..., 100% of M once
# (their disk reads and compressions do not depend on the disk), then the
# adaptive rows model, fixed and arc at each latency, all at fixed CPU
# prices (put 5 us, get 1 us) so the table does not depend on this
# machine's timing.  cost = disk reads x latency + cpu_ms.  For each row:
# the gain the best static split (least cost) saves against share 0, and
# the share of it each controller captures, where that gain is at least
# 1% of share 0's cost; else each controller's cost against share 0's;
# and the model's disk reads against the static split of fewest.  One
# table per latency, in Markdown, on stdout.
#   bash bench/adapt-table.sh [OUTDIR]     (after building build/; python3)
# Traces: the five shipped access streams (their packs' contents), the
# shipped sqlite and grep block traces played one after the other twice
# (phases, synthetic contents), four of the access streams played one
# after the other (mixed: sqlite-oltp, grep-src, build-c, file-server;
# synthetic contents, as each has its own pack), and ../shared/traces/ext
# when it is there.  (A case's format field may carry more options.)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${ZC_BIN:-build/tools} # (another build's tools: ZC_BIN=DIR)
out=${1:-$(mktemp -d)}
mkdir -p "$out"
ext=../shared/traces/ext
[ -x $bin/zcache-sweep ] || { echo "build first: bash scripts/run.sh" >&2; exit 2; }
command -v python3 >/dev/null || { echo "adapt-table.sh needs python3" >&2; exit 2; }
T=traces
cases=(
 "grep-src|access|4M 16M|$T/grep-src.zca"
 "build-c|access|8M 32M|$T/build-c.zca"
 "sqlite-oltp|access|4M 16M|$T/sqlite-oltp.zca"
 "python-imports|access|8M 32M|$T/python-imports.zca"
 "file-server|access|4M 16M|$T/file-server.zca"
 "phases|blkparse|4M 8M|$T/sqlite-oltp.blkparse.zst $T/grep-src.blkparse.zst $T/sqlite-oltp.blkparse.zst $T/grep-src.blkparse.zst"
 "mixed|access --content synth|8M 16M|$T/sqlite-oltp.zca $T/grep-src.zca $T/build-c.zca $T/file-server.zca"
)
if [ -d $ext ]; then
  cases+=(
   "cloudphysics|vscsi|8M 32M|$ext/cloudphysics_vscsi_sample.csv"
   "hadoop|blkparse|8M 32M|$ext/hadoop_blkparse.txt"
   "hadoop-e8|blktrace|16M|$ext/hadoop_eternity8_sdb.blktrace.0"
   "mqsim-tpcc|disksim|8M|$ext/mqsim_tpcc-small.trace")
else
  echo "adapt-table.sh: $ext not found: its traces are skipped" >&2
fi
price=(--cpu-price put=5us,get=1us)
for c in "${cases[@]}"; do
  IFS='|' read -r name fmt ms files <<<"$c"
  for m in $ms; do
    # shellcheck disable=SC2086
    [ -s "$out/$name-$m-static.csv" ] ||
      $bin/zcache-sweep --format $fmt --memory $m --share 0:100:10 "${price[@]}" \
        --output csv $files > "$out/$name-$m-static.csv"
    for lat in hdd ssd nvme; do
      # shellcheck disable=SC2086
      [ -s "$out/$name-$m-$lat.csv" ] ||
        $bin/zcache-sweep --format $fmt --memory $m --share 0 --adaptive=model,fixed,arc \
          --disk-latency $lat "${price[@]}" --output csv $files > "$out/$name-$m-$lat.csv"
    done
  done
done
python3 - "$out" "${cases[@]}" <<'PY'
import csv, sys
out = sys.argv[1]
lat_us = {"hdd": 8000, "ssd": 100, "nvme": 20}
for lat in ("hdd", "ssd", "nvme"):
    print(f"\n{lat} ({lat_us[lat]} us a disk read):\n")
    print("| trace | M | share 0 | best static (share) | gain | model | fixed | arc "
          "| model's disk reads / best static's |")
    print("|---|---|---|---|---|---|---|---|---|")
    for c in sys.argv[2:]:
        name, fmt, ms, files = c.split("|")
        for m in ms.split():
            st = list(csv.DictReader(open(f"{out}/{name}-{m}-static.csv")))
            ad = {r["controller"]: r for r in csv.DictReader(open(f"{out}/{name}-{m}-{lat}.csv"))
                  if r["adaptive"] == "true"}
            cost = lambda r: int(r["disk_reads"]) * lat_us[lat] / 1000.0 + float(r["cpu_ms"])
            s0 = cost(st[0]); best = min(st, key=cost); g = s0 - cost(best)
            fewest = min(st, key=lambda r: int(r["disk_reads"]))
            share = lambda r: r["share_percent"].split(".")[0]
            row = (f"| {name} | {m} | {s0:,.0f} ms | {cost(best):,.0f} ms ({share(best)}%) "
                   f"| {100*g/s0:.1f}% |")
            for k in ("model", "fixed", "arc"):
                a = cost(ad[k])
                row += f" {100*(s0-a)/g:.1f}% |" if g >= 0.01 * s0 else f" {100*(a-s0)/s0:+.2f}% |"
            row += (f" {int(ad['model']['disk_reads']):,} / {int(fewest['disk_reads']):,}"
                    f" ({share(fewest)}%) |")
            print(row)
PY
echo "(raw CSVs in $out)" >&2
