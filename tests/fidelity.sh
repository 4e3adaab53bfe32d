#!/usr/bin/env bash
# zcache-fidelity (tools/zcache-fidelity.c): its measures, its JSON, its
# failures.
#   fidelity.sh exact  FIDELITY REPLAY TRACES_DIR
#     A kernel stream that IS the lru model's own op stream (zcache-replay
#     --page-cache C --save-ops) beside an access stream whose resident
#     samples stay at C: the lru model must match it exactly on every
#     measure, in both size modes; the same kernel stream with some puts
#     dropped must not (but every eviction it has is matched); with 150
#     puts of other pages first, only those are missed.
#   fidelity.sh json   FIDELITY REPLAY TRACES_DIR
#     traces/build-c: the JSON parses and has every key; its numbers agree
#     with zcache-replay's runs of the two streams and with build-c.info
#     (its counts; the median is the run's, within its samples' range).
#   fidelity.sh errors FIDELITY REPLAY TRACES_DIR
#     bad input exits 2 naming the file; a failed run removes a regular -o
#     file only; a full standard output is an error.
# The JSON is read with jq (scripts/deps.sh installs it); without jq the
# test is skipped (exit 77).
set -uo pipefail
mode=$1 fid=$2 replay=$3 traces=$4
. "$(dirname "$0")/tool_test.sh"
need_jq() {
  command -v jq >/dev/null || { echo "SKIP: jq is not installed"; exit 77; }
}
# jcheck FILE EXPR WHAT: jq -e EXPR holds on FILE.
jcheck() {
  jq -e "$2" "$1" >/dev/null || bad "$3: $(jq -c "$2" "$1" 2>&1 | head -c 300)"
}

# An access stream of 4000 requests over 7 inodes (a hot set and a cold
# tail, a tenth of them writes), resident samples constant at 100 pages.
make_stream() {
  awk 'BEGIN {
    print "zca-text 1"; print "meta page_size 4096"; print "meta read_ahead_kb 128"
    s = 12345; t = 0
    for (i = 0; i < 4000; i++) {
      s = (s * 1103515245 + 12345) % 2147483648; t += 0.001
      if (i % 50 == 0) printf "%.6f resident 7:0 100\n", t
      r = int(s / 65536) % 100; ino = 2 + int(s / 256) % 7
      idx = r < 60 ? int(s / 4096) % 40 : int(s / 8192) % 300
      printf "%.6f %s 7:0 %d %d %d\n", t, r % 10 == 3 ? "w" : "r", ino, idx,
        1 + int(s / 1024) % 4
    }
    print "end" }' >"$1"
}

exact() {
  need_jq
  local caps=64K,256K,1M
  make_stream "$tmp/m.zca"
  "$replay" --page-cache 100 --zcache off --save-ops "$tmp/m.kernel.zct" \
    "$tmp/m.zca" >/dev/null || bad "zcache-replay --save-ops failed"
  "$fid" --model lru --capacity $caps --output json -o "$tmp/m.json" \
    "$tmp/m" 2>"$tmp/m.err" || bad "zcache-fidelity failed on the mirror"
  # the stream has write misses (not zcache gets): no drift warning
  [ ! -s "$tmp/m.err" ] || bad "warnings on the mirror: $(head -c 300 "$tmp/m.err")"
  # --plot: one data file, a row per capacity, the kernel's column and
  # one per (model, size mode), the JSON's numbers
  "$fid" --model lru --capacity $caps --output json --plot "$tmp/p" \
    "$tmp/m" >"$tmp/p.json" 2>/dev/null || bad "--plot failed"
  [ -s "$tmp/p.gp" ] || bad "--plot wrote no script"
  [ "$(grep -vc '^#' "$tmp/p.dat")" = 3 ] && [ "$(awk '!/^#/ {print NF}' \
    "$tmp/p.dat" | sort -u)" = 4 ] || bad "p.dat: $(cat "$tmp/p.dat")"
  [ "$(awk '!/^#/ {printf "%s,%s,%s ", $2, $3, $4}' "$tmp/p.dat")" = \
    "$(jq -r '[range(3) as $c | "\(.[0].curve[$c].kernel_zc_hits),\(.[0].curve[$c].model_zc_hits),\(.[1].curve[$c].model_zc_hits)"] | join(" ") + " "' "$tmp/p.json")" ] ||
    bad "p.dat is not the JSON's curve: $(cat "$tmp/p.dat")"
  jcheck "$tmp/m.json" 'length == 2 and
    ([.[].size_mode] | sort) == ["kernel", "median"]' "two size modes"
  jcheck "$tmp/m.json" 'all(.[]; .kernel_gets > 1000 and .kernel_puts > 1000
    and .model_gets == .kernel_gets and .model_puts == .kernel_puts)' \
    "model gets and puts equal the kernel's"
  jcheck "$tmp/m.json" 'all(.[]; .evicted_overlap == 1 and
    .evicted_matched == .kernel_puts and .window == 100)' "overlap 1"
  jcheck "$tmp/m.json" 'all(.[]; (.curve | length) == 3 and
    all(.curve[]; .model_zc_hits == .kernel_zc_hits and
      .model_zc_gets == .kernel_zc_gets))' "equal curves"
  jcheck "$tmp/m.json" '.[0].curve[0].kernel_zc_hits <
    .[0].curve[2].kernel_zc_hits' "a curve that rises"
  # Without a zcache behind either (--no-curve): the same counts.
  "$fid" --model lru --no-curve --output json "$tmp/m" >"$tmp/n.json" ||
    bad "zcache-fidelity --no-curve failed"
  jcheck "$tmp/n.json" 'all(.[]; .model_gets == .kernel_gets and
    .model_puts == .kernel_puts and .evicted_overlap == 1 and .curve == [])' \
    "--no-curve: equal counts, no curve"
  # The same in the text table: every difference +0.0%, overlap 100%.
  "$fid" --model lru --capacity $caps "$tmp/m.zca" >"$tmp/m.txt" ||
    bad "text output failed"
  [ "$(grep -c '^lru .*+0\.0% .*+0\.0% *100\.0%$' "$tmp/m.txt")" = 2 ] ||
    bad "text rows: $(cat "$tmp/m.txt")"

  # Perturbed: every 7th put of the kernel stream dropped.
  cp "$tmp/m.zca" "$tmp/p.zca"
  "$replay" --zcache off --save-ops "$tmp/k.txt" "$tmp/m.kernel.zct" \
    >/dev/null || bad "zcache-replay could not rewrite the stream as text"
  awk '/^put/ && ++n % 7 == 0 { next } { print }' "$tmp/k.txt" \
    >"$tmp/p.kernel.zct"
  "$fid" --model lru --capacity $caps --output json "$tmp/p" >"$tmp/p.json" ||
    bad "zcache-fidelity failed on the perturbed stream"
  # Each eviction the kernel makes the model makes too, in order: the
  # overlap stays 1 (the alignment skips the model's extra ones).
  jcheck "$tmp/p.json" 'all(.[]; .model_gets == .kernel_gets and
    .model_puts > .kernel_puts and .evicted_overlap == 1 and
    any(.curve[]; .model_zc_hits != .kernel_zc_hits))' \
    "the dropped puts show"
  jcheck "$tmp/p.json" "all(.[]; .kernel_puts == $(jq '.[0].kernel_puts' \
    "$tmp/m.json") - ($(jq '.[0].kernel_puts' "$tmp/m.json") / 7 | floor))" \
    "kernel_puts counts the puts left"

  # Shifted: 150 evictions of pages cached before the recording first
  # (more than the window, 100): they alone are missed.
  cp "$tmp/m.zca" "$tmp/s.zca"
  awk '/^put/ && !done { for (i = 0; i < 150; i++)
         printf "put 0 99 %d fill:0x0000000000000000\n", i; done = 1 }
       { print }' "$tmp/k.txt" >"$tmp/s.kernel.zct"
  "$fid" --model lru --no-curve --output json "$tmp/s" >"$tmp/s.json" ||
    bad "zcache-fidelity failed on the shifted stream"
  jcheck "$tmp/s.json" 'all(.[]; .window == 100 and
    .kernel_puts == .model_puts + 150 and .evicted_matched == .model_puts)' \
    "a shift of 150 costs only the 150"
}

json() {
  need_jq
  local j=$tmp/b.json info=$traces/build-c.info med lo hi gets
  "$fid" --output json "$traces/build-c" >"$j" || bad "zcache-fidelity failed"
  jq . "$j" >/dev/null || bad "the output does not parse as JSON"
  jcheck "$j" 'type == "array" and length >= 2 and length % 2 == 0' \
    "an array of (model, size mode) objects"
  jcheck "$j" 'all(.[]; has("model") and has("size_mode") and
    has("kernel_gets") and has("model_gets") and has("kernel_puts") and
    has("model_puts") and has("evicted_overlap") and has("curve") and
    has("capacity_pages") and has("window") and has("kernel_meta_gets") and
    has("kernel_meta_puts") and has("model_readahead") and
    has("model_synthetic") and has("read_ahead_kb") and
    has("resident_samples"))' "every key"
  jcheck "$j" 'all(.[]; (.curve | length) == 5 and all(.curve[];
    has("capacity_bytes") and has("kernel_zc_hits") and has("model_zc_hits")
    and has("kernel_zc_gets") and has("model_zc_gets")))' "curve keys"
  jcheck "$j" '[.[0].curve[].capacity_bytes] ==
    [262144, 1048576, 4194304, 16777216, 67108864]' "default capacities"
  jcheck "$j" 'all(.[]; .evicted_overlap >= 0 and .evicted_overlap <= 1)' \
    "overlap in [0, 1]"
  jcheck "$j" '[.[] | select(.model == "lru") | .size_mode] | sort ==
    ["kernel", "median"]' "lru in both size modes"
  # The recorder's own figures: the range of its samples, its gets and
  # puts of every pool.  The median is the run's (weighed by requests,
  # test_fidelity works it out apart; build-c.info's is the middle sample,
  # by the converter of the time): the window and the median size, within
  # the samples' range.
  med=$(jq '[.[] | select(.size_mode == "median")][0].capacity_pages' "$j")
  lo=$(sed -n 's/.*resident pages: min \([0-9]*\),.*/\1/p' "$info")
  hi=$(sed -n 's/.*resident pages: .*max \([0-9]*\) .*/\1/p' "$info")
  gets=$(sed -n 's/.*kernel stream: \([0-9]*\) gets, \([0-9]*\) puts.*/\1 \2/p' \
    "$info")
  jcheck "$j" "all(.[]; .window == $med) and $med >= $lo and $med <= $hi" \
    "one median ($med), within build-c.info's samples ($lo to $hi)"
  jcheck "$j" "all(.[]; [.kernel_gets + .kernel_meta_gets,
    .kernel_puts + .kernel_meta_puts] == [$(echo $gets | tr ' ' ,)])" \
    "build-c.info's gets and puts ($gets)"
  # Each model at each size is zcache-replay with that model at that size
  # (--page-cache kernel follows the recorded count); the kernel's curve is
  # zcache-replay playing the kernel stream.
  for m in $(jq -r '[.[].model] | unique | .[]' "$j"); do
    for size in kernel "$med"; do
      "$replay" --page-cache-model "$m" --page-cache "$size" \
        --zcache capacity=1M --output json "$traces/build-c.zca" \
        >"$tmp/r.json" || bad "zcache-replay --page-cache-model $m failed"
      jcheck "$j" "(.[] | select(.model == \"$m\" and
        .size_mode == \"$([ "$size" = kernel ] && echo kernel || echo median)\")
        | [.model_gets, .model_puts, .curve[1].model_zc_hits,
           .curve[1].model_zc_gets]) ==
        $(jq -c '[.accesses - .pc_hits + (.readahead // 0), .pc_evictions, .zc_hits, .zc_gets]' "$tmp/r.json")" \
        "$m at --page-cache $size is zcache-replay's"
    done
  done
  "$replay" --zcache capacity=1M --output json "$traces/build-c.kernel.zct" \
    >"$tmp/k.json" || bad "zcache-replay failed on the kernel stream"
  # The kernel's curve plays pool 0 only (the file system; the model
  # cannot see the metadata pool): its gets are pool 0's, and with the
  # other pools' they are zcache-replay's play of the whole stream.
  jcheck "$j" "all(.[]; .kernel_meta_gets > 0 and
    (.kernel_gets as \$g | all(.curve[]; .kernel_zc_gets == \$g)) and
    .curve[1].kernel_zc_gets + .kernel_meta_gets ==
    $(jq -c '.zc_gets' "$tmp/k.json"))" \
    "the kernel's curve is pool 0's"
}

errors() {
  local t=$tmp/t
  mkdir "$t"
  expect 2 "no recording" "$fid"
  expect 2 "unknown option" "$fid" --bogus x "$traces/build-c"
  expect 2 "registered models: lru" "$fid" --model nosuch "$traces/build-c"
  expect 2 "capacity" "$fid" --capacity 0 "$traces/build-c"
  expect 2 "capacity" "$fid" --capacity 1M,x "$traces/build-c"
  expect 2 "size-mode" "$fid" --size-mode big "$traces/build-c"
  expect 2 "read-ahead-kb" "$fid" --read-ahead-kb -1 "$traces/build-c"
  expect 2 "output" "$fid" --output xml "$traces/build-c"
  expect 2 "zcache" "$fid" --zcache compressor=nosuch "$traces/build-c"
  expect 2 "not with --no-curve" "$fid" --no-curve --plot "$t/p" \
    "$traces/build-c"
  # A --plot prefix with a quote would end the gnuplot script's quoted
  # names and the shell's: refused before any work (nothing run).
  cd "$t" || exit 1
  expect 2 "without '" "$fid" --plot "q';touch PWNED;'" "$traces/build-c"
  cd - >/dev/null || exit 1
  [ ! -e "$t/PWNED" ] || bad "--plot with a quote ran a command"
  expect 2 "want a file name prefix" "$fid" --plot "" "$traces/build-c"
  # A stream missing: the file named.
  cp "$traces/build-c.zca" "$traces/build-c.zcp" "$t/"
  expect 2 "$t/build-c.kernel.zct" "$fid" "$t/build-c"
  expect 2 "$t/nothing.zca" "$fid" "$t/nothing"
  # Another recording's pack beside the access stream: refused.
  mkdir "$t/o"
  cp "$traces/build-c.zca" "$traces/build-c.kernel.zct" "$t/o/"
  cp "$traces/grep-src.zcp" "$t/o/build-c.zcp"
  expect 2 "another recording's pack" "$fid" "$t/o/build-c"
  # ... and two streams of different recordings, each with its own pack.
  mkdir "$t/x"
  cp "$traces/build-c.zca" "$traces/build-c.zcp" "$traces/grep-src.zcp" "$t/x/"
  cp "$traces/grep-src.kernel.zct" "$t/x/build-c.kernel.zct"
  expect 2 "different recordings" "$fid" "$t/x/build-c"
  # A cut access stream: exit 2 naming it; the -o file it opened removed,
  # but never a symlink or its target.
  mkdir "$t/c"
  head -c 2000 "$traces/build-c.zca" >"$t/c/build-c.zca"
  cp "$traces/build-c.kernel.zct" "$traces/build-c.zcp" "$t/c/"
  expect 2 "build-c.zca" "$fid" -o "$t/out.txt" "$t/c/build-c"
  [ ! -e "$t/out.txt" ] || bad "a failed run left its -o file"
  echo keep >"$t/target"
  ln -s "$t/target" "$t/link.txt"
  expect 2 "build-c.zca" "$fid" -o "$t/link.txt" "$t/c/build-c"
  [ -L "$t/link.txt" ] && [ -f "$t/target" ] ||
    bad "a failed run removed the -o symlink or its target"
  # A cut kernel stream: exit 2 naming it.
  mkdir "$t/k"
  cp "$traces/build-c.zca" "$traces/build-c.zcp" "$t/k/"
  head -c 5000 "$traces/build-c.kernel.zct" >"$t/k/build-c.kernel.zct"
  expect 2 "build-c.kernel.zct" "$fid" --no-curve "$t/k/build-c"
  # -o naming an input: refused before it is destroyed.
  expect 2 "that is an input of this run" "$fid" -o "$t/k/build-c.zca" "$t/k/build-c"
  # Outputs that cannot be written: exit 1.
  "$fid" --no-curve --model lru "$traces/build-c" >/dev/full 2>"$tmp/err"
  [ $? = 1 ] || bad "output to /dev/full did not exit 1"
  grep -q "standard output" "$tmp/err" || bad "/dev/full: $(cat "$tmp/err")"
  expect 1 "cannot write" "$fid" --no-curve -o /dev/full "$traces/build-c"
  expect 2 "no/such: no such directory" "$fid" -o "$t/no/such/dir" "$traces/build-c"
  # a --plot directory that does not exist: refused before the work
  expect 2 "no/such: no such directory" "$fid" --capacity 1M \
    --plot "$t/no/such/p" "$traces/build-c"
}

case $mode in
exact) exact ;;
json) json ;;
errors) errors ;;
*) echo "usage: fidelity.sh exact|json|errors FIDELITY REPLAY TRACES" >&2; exit 2 ;;
esac
[ "$fail" = 0 ] && echo "fidelity $mode: ok"
exit "$fail"
