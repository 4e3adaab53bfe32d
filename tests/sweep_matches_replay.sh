#!/usr/bin/env bash
# Every row of a zcache-sweep equals a separate zcache-replay run of the
# same page-cache size and zcache spec (the issue's requirement), on a
# shipped trace, with the zcache off and on, two allocators, two sizes
# (the quick tier: the larger page cache only, five rows).
#   sweep_matches_replay.sh SWEEP REPLAY TRACE [FORMAT [CONTENT]]
# (default: blkparse, synth:1; an access stream with CONTENT "-" takes its
# contents from the pack its header names)
set -euo pipefail
sweep=$1 replay=$2 trace=$3 format=${4:-blkparse} content=${5:-synth:1}
copt=(--content "$content")
[ "$content" = - ] && copt=()
fields="requests accesses reads writes pc_hits zc_gets zc_hits disk_reads zc_puts zc_stored resident_hits pc_evictions zc_wrong zc_skipped zc_probes readahead synthetic"
# and every zcache counter but the timings (thread CPU time varies); the
# memory too, since the memo's work memory for preparing pages is its own
for f in puts stored_puts succ_gets failed_gets invalidates evictions replaced \
  exclusive_drops stored_pages same_filled_pages raw_pages orig_data_size \
  compr_data_size mem_used_total arena_bytes reject_compress_poor \
  reject_nospace reject_full reject_inactive raw_stored dedup_hits \
  shared_pages frag_bytes compactions estimates pools objects capacity_bytes \
  resizes resize_evictions meta_bytes work_bytes compressions \
  compressions_rejected decompressions; do
  fields="$fields zcache.$f"
done
. "$(dirname "$0")/tool_test.sh" # $tmp, scaled

# Print the named fields of row $2 of a CSV file $1, in order (fields may
# be quoted, with commas inside, as zcache specs are): $3, or $fields.
pick() {
  awk -v want="${3:-$fields}" -v row="$2" '
    function split_csv(line, f,   n, q, c, i, cur) {
      n = 0; q = 0; cur = ""
      for (i = 1; i <= length(line); i++) {
        c = substr(line, i, 1)
        if (c == "\"") q = !q
        else if (c == "," && !q) { f[++n] = cur; cur = "" }
        else cur = cur c
      }
      f[++n] = cur
      return n
    }
    NR == 1 { n = split_csv($0, h); for (i = 1; i <= n; i++) col[h[i]] = i; next }
    NR - 1 == row { split_csv($0, f); k = split(want, w, " "); s = ""
      for (i = 1; i <= k; i++) s = s (i > 1 ? "," : "") f[col[w[i]]]; print s }' "$1"
}

pcs=$(scaled 256,1024 1024)
"$sweep" --format "$format" "${copt[@]}" --page-cache "$pcs" \
  --capacity 0,512K,2M --set allocator=zsmalloc,zbud --output csv "$trace" > "$tmp/sweep.csv"
rows=$(( $(wc -l < "$tmp/sweep.csv") - 1 ))
want=$(( 5 * $(tr , '\n' <<<"$pcs" | wc -l) ))
[ "$rows" -eq "$want" ] || { echo "expected $want rows, got $rows"; exit 1; }
fail=0
for r in $(seq 1 "$rows"); do
  pc=$(pick "$tmp/sweep.csv" "$r" page_cache_pages)
  spec=$(pick "$tmp/sweep.csv" "$r" zcache_spec)
  "$replay" --format "$format" "${copt[@]}" --page-cache "$pc" \
    --zcache "$spec" --output csv "$trace" > "$tmp/one.csv"
  a=$(pick "$tmp/sweep.csv" "$r")
  b=$(pick "$tmp/one.csv" 1)
  if [ "$a" != "$b" ]; then
    echo "row $r (page cache $pc, $spec): sweep $a, replay $b"
    fail=1
  fi
done

# Memory splits: a static row equals zcache-replay --memory M --share S,
# the adaptive row zcache-replay --memory M --adaptive (CPU prices fixed,
# so that the controller's choices do not depend on timing).
adapt=put=3us,get=700ns,epoch=256
"$sweep" --format "$format" "${copt[@]}" --memory 2M --share 0,30 \
  --adaptive --adapt "$adapt" --output csv "$trace" > "$tmp/split.csv"
n=0
for r in 1 2 3; do
  share=$(pick "$tmp/split.csv" "$r" share_percent)
  if [ "$(pick "$tmp/split.csv" "$r" adaptive)" = true ]; then
    how=(--adaptive --adapt "$adapt")
  else
    how=(--share "$share")
  fi
  "$replay" --format "$format" "${copt[@]}" --memory 2M "${how[@]}" \
    --output csv "$trace" > "$tmp/one.csv"
  a=$(pick "$tmp/split.csv" "$r")
  b=$(pick "$tmp/one.csv" 1)
  if [ "$a" != "$b" ]; then
    echo "memory split row $r (share $share): sweep $a, replay $b"
    fail=1
  fi
  n=$((n + 1))
done
[ $fail -eq 0 ] && echo "$rows rows and $n memory-split rows equal separate replays: 1 passed, 0 failed"
exit $fail
