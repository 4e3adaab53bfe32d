#!/usr/bin/env bash
# The tools' rows say what they describe (issue 13, item 11): the CSV
# names its trace, quoted as CSV quotes; JSON and CSV carry every counter
# of zc_replay_stats and zc_stats (read from the structs in the installed
# headers, not from the tools' lists) and the size histogram, equal to
# each other and to the text report's numbers.
#   tool_outputs.sh REPLAY SWEEP SOURCE_DIR
# The JSON is read with jq (scripts/deps.sh installs it); without it the
# test is skipped (exit 77).
set -uo pipefail
replay=$1 sweep=$2 src=$3 traces=$3/traces
. "$(dirname "$0")/tool_test.sh"
command -v jq >/dev/null || { echo "SKIP: jq is not installed"; exit 77; }
cp "$traces/build-c.zca" "$tmp/a \"q\", b.zca"
cp "$traces/build-c.zca" "$traces/build-c.zcp" "$tmp/"
# The page cache of most runs: 500 pages (the quick tier: 2000, a third of
# the evictions to compress; every zcache still stores and hits).
pc=$(scaled 500 2000)
args=(--page-cache "$pc" --zcache capacity=1M)
# A name with a quote and a comma is one CSV field, its quote doubled.
"$replay" "${args[@]}" --output csv "$tmp/a \"q\", b.zca" >"$tmp/q.csv" ||
  bad "csv run (quoted name)"
row=$(sed -n 2p "$tmp/q.csv")
case $row in
  "\"$tmp/a \"\"q\"\", b.zca\","*) ;;
  *) bad "csv trace field: ${row:0:120}" ;;
esac
# The CSV's fields and the JSON's, by name (no commas in these fields).
t=$tmp/build-c.zca
"$replay" "${args[@]}" --output json "$t" >"$tmp/r.json" || bad "json run"
"$replay" "${args[@]}" --output csv "$t" >"$tmp/r.csv" || bad "csv run"
col() { csv_get "$tmp/r.csv" 1 "$1"; } # col NAME: the CSV row's field NAME
[ "$(csv_width "$tmp/r.csv" 0)" = "$(csv_width "$tmp/r.csv" 1)" ] ||
  bad "csv widths: $(csv_width "$tmp/r.csv" 0) names, $(csv_width "$tmp/r.csv" 1) values"
[ "$(col trace)" = "$t" ] || bad "csv trace: $(col trace)"
for k in capacity_bytes resizes resize_evictions; do
  [ -n "$(col "zcache.$k")" ] &&
    [ "$(col "zcache.$k")" = "$(jq ".zcache.$k" "$tmp/r.json")" ] ||
    bad "zcache.$k: csv $(col "zcache.$k"), json $(jq ".zcache.$k" "$tmp/r.json")"
done
[ "$(jq '.zcache.capacity_bytes' "$tmp/r.json")" = 1048576 ] ||
  bad "capacity_bytes is not the cache's"
[ "$(jq '.zcache.compr_size_hist | length' "$tmp/r.json")" = 17 ] &&
  [ "$(jq '.zcache.compr_size_hist | add' "$tmp/r.json")" -gt 0 ] ||
  bad "json compr_size_hist"
for b in $(seq 0 16); do
  [ "$(col "zcache.compr_size_hist.$b")" = \
    "$(jq ".zcache.compr_size_hist[$b]" "$tmp/r.json")" ] ||
    bad "compr_size_hist.$b differs"
done
# The text report names the zcache's size, also when --memory set it.
"$replay" --memory 8M --share 50 "$t" >"$tmp/r.txt" || bad "text run"
grep -q '^zcache: *capacity 4194304 bytes at the end; the defaults' \
  "$tmp/r.txt" || bad "text: $(grep '^zcache:' "$tmp/r.txt")"

# Every field of the structs, from the headers' declarations.
fields_of() { # fields_of HEADER STRUCT: its uint64_t fields, one per line
  awk -v s="typedef struct $2 {" '
    index($0, s) == 1 { on = 1; next }
    on && /^}/ { exit }
    on && /^ *uint64_t / && !/\[/ { sub(/^ *uint64_t /, ""); sub(/;.*/, "")
      n = split($0, v, /, */); for (i = 1; i <= n; i++) print v[i] }' "$1"
}
rfields=$(fields_of "$src/include/zcache_sim.h" zc_replay_stats)
zfields=$(fields_of "$src/include/zcache.h" zc_stats)
[ "$(echo "$rfields" | wc -l)" -ge 17 ] && [ "$(echo "$zfields" | wc -l)" -ge 30 ] ||
  bad "the headers' fields were not found: $(echo $rfields) / $(echo $zfields)"
"$sweep" --page-cache "$pc" --capacity 0,1M --output csv "$t" >"$tmp/s.csv" ||
  bad "sweep csv run"
"$sweep" --page-cache "$pc" --capacity 0,1M --output json "$t" >"$tmp/s.json" ||
  bad "sweep json run"
for out in r s; do
  head -1 "$tmp/$out.csv" | tr , '\n' >"$tmp/$out.cols"
  for f in $rfields; do
    grep -qx "$f" "$tmp/$out.cols" || bad "$out.csv has no column $f"
  done
  for f in $zfields; do
    grep -qx "zcache.$f" "$tmp/$out.cols" || bad "$out.csv has no column zcache.$f"
  done
done
for f in $rfields; do
  jq -e "has(\"$f\")" "$tmp/r.json" >/dev/null || bad "r.json has no $f"
  jq -e "all(.[]; has(\"$f\"))" "$tmp/s.json" >/dev/null || bad "s.json has no $f"
done
for f in $zfields; do
  jq -e ".zcache | has(\"$f\")" "$tmp/r.json" >/dev/null || bad "r.json has no zcache.$f"
  jq -e ".[1].zcache | has(\"$f\")" "$tmp/s.json" >/dev/null ||
    bad "s.json has no zcache.$f"
done
# The sweep's row without a zcache says so (null), the other is the cache's.
jq -e '.[0].zcache == null and .[1].zcache.capacity_bytes == 1048576 and
  .[1].capacity_bytes == 1048576 and (.[1].zcache.compr_size_hist | length) == 17' \
  "$tmp/s.json" >/dev/null || bad "s.json zcache members: $(jq -c '[.[].zcache.capacity_bytes]' "$tmp/s.json")"
# Every mode: a CSV row as wide as its header, JSON that parses, and the
# rows saying what they ran (the zcache's resolved configuration; a
# split's memory, share or adaptive figures).
k=$src/traces/build-c.kernel.zct
i=0
for args in "--zcache off $t" "--zcache capacity=1M $t" "--memory 4M --share 25 $t" \
  "--memory 4M --adaptive $t" "--zcache capacity=1M $k"; do
  i=$((i + 1))
  # shellcheck disable=SC2086
  "$replay" --page-cache "$pc" $args --output csv >"$tmp/m$i.csv" 2>/dev/null ||
    "$replay" $args --output csv >"$tmp/m$i.csv" || bad "replay $args csv"
  # shellcheck disable=SC2086
  "$replay" --page-cache "$pc" $args --output json >"$tmp/m$i.json" 2>/dev/null ||
    "$replay" $args --output json >"$tmp/m$i.json" || bad "replay $args json"
  [ "$(csv_width "$tmp/m$i.csv" 0)" = "$(csv_width "$tmp/m$i.csv" 1)" ] ||
    bad "replay $args: csv widths $(csv_width "$tmp/m$i.csv" 0) / $(csv_width "$tmp/m$i.csv" 1)"
  jq -e . "$tmp/m$i.json" >/dev/null || bad "replay $args: json does not parse"
done
jq -e '.zcache_config == "off" and .zcache == null' "$tmp/m1.json" >/dev/null ||
  bad "replay --zcache off: $(jq -c '{zcache_config}' "$tmp/m1.json")"
jq -e '(.zcache_config | startswith("capacity=1048576,")) and .memory_bytes == 0 and
  .adaptive == false' "$tmp/m2.json" >/dev/null || bad "replay capacity=1M: zcache_config"
jq -e '.memory_bytes == 4194304 and .share_percent == 25 and .adaptive == false
  and .zcache.capacity_bytes == 1048576' "$tmp/m3.json" >/dev/null ||
  bad "replay --share 25: $(jq -c '{memory_bytes,share_percent}' "$tmp/m3.json")"
jq -e '.memory_bytes == 4194304 and .share_percent == null and .adaptive and
  .adapt.epochs > 0 and (.adapt.end_page_cache_pages * 4096 + .adapt.end_zcache_bytes) <= 4194304' \
  "$tmp/m4.json" >/dev/null || bad "replay --adaptive: $(jq -c '{adapt}' "$tmp/m4.json")"
[ "$(csv_get "$tmp/m4.csv" 1 adaptive)" = true ] &&
  [ "$(csv_get "$tmp/m4.csv" 1 adapt_epochs)" = "$(jq .adapt.epochs "$tmp/m4.json")" ] ||
  bad "replay --adaptive csv: adaptive $(csv_get "$tmp/m4.csv" 1 adaptive)"
i=0
for args in "--page-cache $pc --capacity 0,1M $t" "--memory 4M --share 0,50 --adaptive $t" \
  "--capacity 0,1M $k" "--page-cache $pc --capacity 0 --mrc 100,500 $t"; do
  i=$((i + 1))
  # shellcheck disable=SC2086
  "$sweep" $args --output json >"$tmp/s$i.json" || bad "sweep $args json"
  jq -e . "$tmp/s$i.json" >/dev/null || bad "sweep $args: json does not parse"
  case $args in *--mrc*) continue ;; esac
  # shellcheck disable=SC2086
  "$sweep" $args --output csv >"$tmp/s$i.csv" || bad "sweep $args csv"
  n=$(awk 'END { print NR - 1 }' "$tmp/s$i.csv")
  for r in $(seq 1 "$n"); do
    [ "$(csv_width "$tmp/s$i.csv" 0)" = "$(csv_width "$tmp/s$i.csv" "$r")" ] ||
      bad "sweep $args: row $r is $(csv_width "$tmp/s$i.csv" "$r") wide, the header $(csv_width "$tmp/s$i.csv" 0)"
  done
done
jq -e '.[0].zcache_config == "off" and (.[1].zcache_config | startswith("capacity=1048576,"))' \
  "$tmp/s1.json" >/dev/null || bad "sweep zcache_config: $(jq -c '[.[].zcache_config]' "$tmp/s1.json")"
jq -e '[.[].adaptive] == [false, false, true] and .[2].share_percent == null and
  .[1].share_percent == 50' "$tmp/s2.json" >/dev/null ||
  bad "sweep split rows: $(jq -c '[.[] | {adaptive, share_percent}]' "$tmp/s2.json")"
[ "$(csv_get "$tmp/s2.csv" 3 adaptive)" = true ] && [ -z "$(csv_get "$tmp/s2.csv" 3 share_percent)" ] ||
  bad "sweep csv adaptive row: adaptive $(csv_get "$tmp/s2.csv" 3 adaptive), share $(csv_get "$tmp/s2.csv" 3 share_percent)"
exit $fail
