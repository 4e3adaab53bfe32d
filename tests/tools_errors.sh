#!/usr/bin/env bash
# zcache-replay and zcache-sweep on the failures of their outputs and
# inputs: a full standard output is an error; a failed run removes only a
# regular file it wrote (never a device node, or a symlink or its target:
# tools/outfile.h); a FIFO as a trace is refused with a message; bad input
# exits 2 naming the file.
#   tools_errors.sh SWEEP REPLAY TRACES_DIR
set -uo pipefail
sweep=$1 replay=$2 traces=$3
trace=$traces/build-c.zca
. "$(dirname "$0")/tool_test.sh"

# A full standard output (text, json, csv).
for fmt in text json csv; do
  "$replay" --zcache off --page-cache 475 --output "$fmt" "$trace" >/dev/full \
    2>"$tmp/err"
  [ $? -ne 0 ] || bad "replay --output $fmt > /dev/full exited 0"
  grep -q "standard output" "$tmp/err" || bad "replay: $(cat "$tmp/err")"
  "$sweep" --page-cache 475 --capacity 0,1M --output "$fmt" "$trace" \
    >/dev/full 2>"$tmp/err"
  [ $? -ne 0 ] || bad "sweep --output $fmt > /dev/full exited 0"
  grep -q "standard output" "$tmp/err" || bad "sweep: $(cat "$tmp/err")"
done

# A --plot prefix with a quote (gnuplot and the shell read it in quotes)
# or an empty one: refused before any work, nothing run.
cd "$tmp" || exit 1
expect 2 "without '" "$sweep" --page-cache 475 --capacity 0 \
  --plot "q';touch PWNED;'" "$trace"
expect 2 "without '" "$replay" --memory 4M --adaptive \
  --plot "q';touch PWNED;'" "$trace"
cd - >/dev/null || exit 1
[ ! -e "$tmp/PWNED" ] || bad "--plot with a quote ran a command"
expect 2 "want a file name prefix" "$sweep" --page-cache 475 --plot "" "$trace"
expect 2 "nodir: no such directory" "$sweep" --page-cache 475 \
  --plot "$tmp/nodir/p" "$trace"
expect 2 "nodir: no such directory" "$replay" --memory 4M --adaptive \
  --plot "$tmp/nodir/p" "$trace"
expect 2 "want a file name prefix" "$replay" --memory 4M --adaptive --plot "" \
  "$trace"

# A FIFO as the trace: refused, not hung on, with a message.
mkfifo "$tmp/fifo"
expect 2 "not a regular file" "$replay" --zcache off "$tmp/fifo"
expect 2 "not a regular file" "$sweep" --page-cache 100 "$tmp/fifo"
# An adaptive run priced with measured CPU says that another run may split
# differently; one at fixed prices does not.
"$replay" --memory 4M --adaptive "$trace" >"$tmp/meas" 2>&1 ||
  bad "--adaptive: $(tail -2 "$tmp/meas")"
grep -q "priced with this run's measured CPU" "$tmp/meas" ||
  bad "--adaptive with measured prices does not say so: $(tail -3 "$tmp/meas")"
"$replay" --memory 4M --adapt put=5us,get=1us "$trace" >"$tmp/meas" 2>&1 ||
  bad "--adapt put=,get=: $(tail -2 "$tmp/meas")"
grep -q "measured CPU" "$tmp/meas" &&
  bad "--adapt put=5us,get=1us says its prices were measured"
# ... with the format given, too: the trace is opened again for the content
# check, and a pipe read again lost a blktrace's requests with exit 0.
expect 2 "not a regular file" "$replay" --format blkparse --memory 4M \
  --share 50 "$tmp/fifo"

# Bad input: exit 2, the file named.  A cut access stream, and one whose
# contents are not in the pack given.
head -c 2000 "$trace" >"$tmp/cut.zca"
expect 2 "cut.zca" "$replay" --zcache off --page-cache 100 "$tmp/cut.zca"
expect 2 "cut.zca" "$sweep" --page-cache 100 "$tmp/cut.zca"
# pages of an inode no shipped pack holds (a stream that names no pack:
# one that named another recording's pack would be refused before any
# page is read)
printf 'zca-text 1\nmeta page_size 4096\n0.000000001 r 7:0 999999 0 400\nend\n' \
  > "$tmp/b.zca"
other=(--content "pack:$traces/grep-src.zcp")
# a stream played with another recording's pack: refused before any page
cp "$trace" "$tmp/b2.zca"
expect 2 "another recording's pack" "$replay" "${other[@]}" --page-cache 100 "$tmp/b2.zca"
expect 2 "another recording's pack" "$sweep" "${other[@]}" --page-cache 100 "$tmp/b2.zca"
mkdir "$tmp/k"
cp "$traces/build-c.kernel.zct" "$tmp/k/"
cp "$traces/grep-src.zcp" "$tmp/k/build-c.zcp"
expect 2 "another recording's pack" "$replay" --zcache capacity=1M "$tmp/k/build-c.kernel.zct"
expect 2 "b.zca: content source pack:.*is not in it" \
  "$replay" "${other[@]}" --page-cache 100 "$tmp/b.zca"
expect 2 "b.zca: content source pack:.*is not in it" \
  "$sweep" "${other[@]}" --page-cache 100 --capacity 1M "$tmp/b.zca"

# The sweep's input errors: one line naming the option, exit 2, before
# any work.  once DESC: the last expect()'s stderr is that one line.
once() {
  [ "$(wc -l <"$tmp/err")" = 1 ] ||
    bad "$1: $(wc -l <"$tmp/err") lines on stderr, not 1: $(head -3 "$tmp/err")"
}
# An empty --set list (was a crash, or a loop that never ended).
expect 2 "--set accept_percent=: want" "$sweep" --set accept_percent= \
  --capacity 1M --page-cache 500 "$trace"
once "--set accept_percent="
expect 2 "--set policy=,: want" "$sweep" --set policy=, --capacity 0,1M \
  --page-cache 500 "$trace"
once "--set policy=,"
expect 2 "--set level=: want" "$sweep" --set level= --memory 4M \
  --share 0,50 "$trace"
once "--set level= --memory"
# A bad --set value or zcache: said once, not once per configuration.
expect 2 "accept_percent=101: want 0 to 100" "$sweep" --page-cache 100,200 \
  --capacity 1M,2M --set accept_percent=0,101 "$trace"
once "--set accept_percent=0,101"
expect 2 "more than the library's largest" "$sweep" --page-cache 100 \
  --capacity 16G --set allocator=zsmalloc,zbud "$trace"
once "--capacity 16G, two allocators"
# A sweep of more rows than the limit is refused before it allocates them
# (this one was 16.7 M rows and 5.6 GB; the ulimit keeps a regression from
# taking the machine with it).
l64=$(seq -s, 0 63)
(
  # (not under AddressSanitizer, whose shadow memory needs far more
  # address space than any cap)
  grep -q __asan_init "$sweep" || ulimit -v 2000000
  timeout 120 "$sweep" --page-cache 0:63:1 --capacity 4K:256K:4K \
    --set accept_percent="$l64" --set hysteresis_percent="$l64" "$trace" \
    >"$tmp/out" 2>"$tmp/err"
  echo $? >"$tmp/rc"
)
[ "$(cat "$tmp/rc")" = 2 ] || bad "a 16.7 M-row sweep exited $(cat "$tmp/rc"), not 2"
grep -q "16777216 rows.*100000" "$tmp/err" ||
  bad "a 16.7 M-row sweep did not give the count and the limit: $(head -3 "$tmp/err")"
once "a 16.7 M-row sweep"

# A row's capacity_bytes is its cache's, also when --set capacity
# overrides --capacity (was --capacity's in every row).
"$sweep" --set capacity=2M,4M --capacity 1M --page-cache 500 --output csv \
  "$trace" >"$tmp/cap.csv" 2>"$tmp/err" || bad "sweep --set capacity: $(cat "$tmp/err")"
# (the quoted fields: trace, content, zcache_spec; capacity_bytes follows)
got=$(awk -F'"' 'NR > 1 { split($7, f, ","); printf "%s ", f[2] }' "$tmp/cap.csv")
[ "$got" = "2097152 4194304 " ] ||
  bad "sweep --set capacity=2M,4M --capacity 1M: capacity_bytes $got"
"$sweep" --set capacity=2M,4M --capacity 1M --page-cache 500 --output json \
  "$trace" >"$tmp/cap.json" 2>"$tmp/err"
got=$(grep -o '"capacity_bytes":[0-9]*,"share_percent"' "$tmp/cap.json" |
  tr -dc '0-9\n' | tr '\n' ' ')
[ "$got" = '2097152 4194304 ' ] ||
  bad "sweep --set capacity=2M,4M --output json: $got"

# A failed run removes a regular --save-ops file it wrote ...
expect 2 "is not in it" "$replay" "${other[@]}" --page-cache 100 \
  --save-ops "$tmp/ops.zct" "$tmp/b.zca"
[ ! -e "$tmp/ops.zct" ] || bad "a failed run left its --save-ops file"
# ... but not a symlink, nor its target.
echo keep >"$tmp/target"
ln -s "$tmp/target" "$tmp/link.zct"
expect 2 "is not in it" "$replay" "${other[@]}" --page-cache 100 \
  --save-ops "$tmp/link.zct" "$tmp/b.zca"
[ -L "$tmp/link.zct" ] || bad "a failed run removed the --save-ops symlink"
[ -f "$tmp/target" ] || bad "a failed run removed the symlink's target"
# The sweep's --plot: a symlink among its outputs stays, the regular
# files it wrote go.
ln -s /dev/full "$tmp/p.dat"
expect 1 "cannot write" "$sweep" --memory 4M --share 0,50 --plot "$tmp/p" \
  "$trace"
[ -L "$tmp/p.dat" ] || bad "sweep --plot removed a symlink"
[ ! -e "$tmp/p.csv" ] || bad "sweep --plot left a partial p.csv"

# Counts past 64 bits (issue 13, item 5): pc_hits of a .zct adding up past
# 2^64 - 1 accesses are refused naming the line, not wrapped.
printf 'zct-text 1\npc_hits 18446744073709551615\npc_hits 18446744073709551615\nend\n' \
  >"$tmp/o.zct"
expect 2 "o.zct: line 3: pc_hits 18446744073709551615: .* 2^64 - 1" \
  "$replay" --zcache off "$tmp/o.zct"

# One request longer than the limit (issue 13, item 7: 2^40 sectors kept
# the replay walking pages for hours): refused at once naming the line, in
# every text format; --max-request raises the limit.
printf '0.0 0 0 8 1\n0.0 0 0 1099511627776 1\n' >"$tmp/big.disksim"
printf '  8,0 0 1 0.000000001 1 Q R 0 + 1099511627776 [x]\n' >"$tmp/big.blkparse"
printf '1,1,28,1125899906842624,0\n' >"$tmp/big.vscsi"
for f in big.disksim big.blkparse big.vscsi; do
  line=1
  [ "$f" = big.disksim ] && line=2
  expect 2 "$f:$line: request of .* bytes, more than the limit of 1073741824" \
    timeout 60 "$replay" --zcache off "$tmp/$f"
  expect 2 "$f:$line: request of" timeout 60 "$sweep" --page-cache 100 "$tmp/$f"
done
printf '0.0 0 0 4194304 1\n' >"$tmp/2g.disksim" # 2 GiB
expect 2 "2g.disksim:1: request of 2147483648 bytes" "$replay" --zcache off \
  "$tmp/2g.disksim"
"$replay" --zcache off --max-request 2G "$tmp/2g.disksim" >"$tmp/out" 2>&1 ||
  bad "--max-request 2G exited $?: $(cat "$tmp/out")"
grep -q "^1 requests, 524288 page accesses" "$tmp/out" ||
  bad "--max-request 2G: $(head -1 "$tmp/out")"
expect 2 "max-request 0: want bytes" "$replay" --max-request 0 "$tmp/2g.disksim"

# Device nodes (needs CAP_MKNOD): /dev/null-like and /dev/full-like.
if mknod "$tmp/null" c 1 3 2>/dev/null && mknod "$tmp/full" c 1 7; then
  expect 2 "is not in it" "$replay" "${other[@]}" --page-cache 100 \
    --save-ops "$tmp/null" "$tmp/b.zca"
  [ -c "$tmp/null" ] || bad "a failed run removed a device node (--save-ops)"
  expect 1 "save-ops" "$replay" --zcache off --page-cache 475 \
    --save-ops "$tmp/full" "$trace"
  [ -c "$tmp/full" ] || bad "a write error removed a device node (--save-ops)"
  expect 1 "cannot write" "$replay" --memory 4M --adaptive \
    --split-csv "$tmp/full" "$trace"
  [ -c "$tmp/full" ] || bad "a write error removed a device node (--split-csv)"
  ln -sf "$tmp/full" "$tmp/q.csv"
  expect 1 "cannot write" "$sweep" --memory 4M --share 0,50 --plot "$tmp/q" \
    "$trace"
  [ -c "$tmp/full" ] && [ -L "$tmp/q.csv" ] ||
    bad "sweep --plot removed a device node or a symlink to it"
else
  echo "SKIP: device nodes (mknod not permitted)"
fi

# --cpu-price: cpu_ms from fixed prices, every put one compression and
# every zcache hit one decompression, the same in every run.
expect 2 "cpu-price put=6us: want put=T,get=T" "$sweep" --cpu-price put=6us \
  --page-cache 500 "$trace"
for run in 1 2; do
  "$sweep" --cpu-price put=6us,get=2us --page-cache 500 --capacity 1M \
    --output csv "$trace" >"$tmp/price$run.csv" || bad "--cpu-price run"
done
cpu_ms() { csv_get "$1" 1 cpu_ms; }
[ -n "$(cpu_ms "$tmp/price1.csv")" ] &&
  [ "$(cpu_ms "$tmp/price1.csv")" = "$(cpu_ms "$tmp/price2.csv")" ] ||
  bad "--cpu-price: cpu_ms differs between two runs"
g() { csv_get "$tmp/price1.csv" 1 "$1"; }
awk -v cpu="$(g cpu_ms)" -v wasted="$(g wasted_ms)" -v n="$(g zcache.compressions)" \
  -v e="$(g zcache.estimates)" -v d="$(g zcache.decompressions)" \
  -v r="$(g zcache.compressions_rejected)" 'BEGIN {
    want = ((n + e) * 6000 + d * 2000) / 1e6
    if (n == 0 || (cpu - want) ^ 2 > 1e-6 || (wasted - r * 6000 / 1e6) ^ 2 > 1e-6) {
      print "cpu_ms " cpu ", want " want; exit 1 } }' ||
  bad "--cpu-price: cpu_ms is not compressions x 6us + decompressions x 2us"
# A page active_only refuses is not compressed, and costs nothing.
"$sweep" --cpu-price put=6us,get=2us --page-cache 500 --capacity 1M \
  --set active_only=true --output json "$trace" >"$tmp/act.json" ||
  bad "--cpu-price active_only run"
if command -v jq >/dev/null; then
  jq -e '.[0].zcache.reject_inactive > 0 and
    ((.[0].wasted_ms * 1000 - .[0].zcache.compressions_rejected * 6) | fabs) < 0.01 and
    .[0].zcache.compressions <= .[0].zcache.puts - .[0].zcache.reject_inactive' \
    "$tmp/act.json" \
    >/dev/null || bad "--cpu-price with active_only: $(jq -c '.[0] | {wasted_ms, zcache: .zcache | {puts, reject_inactive, compressions, compressions_rejected}}' "$tmp/act.json")"
fi

# The memory-split plot: the adaptive row has no share, so it is a block
# of its own (a level across 0..100), never a point at share -1.
"$sweep" --memory 4M --share 0,50 --adaptive --plot "$tmp/sp" "$trace" \
  >/dev/null 2>&1 || bad "split plot run"
awk 'BEGIN { b = 0 } /^$/ { blank++; next } blank >= 2 { b++; blank = 0 }
  { blank = 0 } b == 0 && $1 ~ /^-/ { bad = 1 }
  END { exit bad || b != 1 }' "$tmp/sp.dat" ||
  bad "split plot data: $(cat "$tmp/sp.dat")"

# The rates are shares of accesses, each defined once: in the table and
# in the plot's data both tiers = page cache + zcache.
"$sweep" --page-cache 500 --capacity 0,256K,1M --plot "$tmp/rates" "$trace" \
  >"$tmp/rates.txt" 2>/dev/null || bad "rates run"
awk '$1 == 500 { n++; d = $4 + $5 - $7; if (d * d > 0.0004) bad = 1 }
  END { exit bad || n != 3 }' "$tmp/rates.txt" ||
  bad "table: in_mem% is not pc_hit% + zc_hit%: $(cat "$tmp/rates.txt")"
awk '!/^"/ && NF == 4 { n++; d = $2 + $3 - $4; if (d * d > 0.000004) bad = 1 }
  END { exit bad || n < 2 }' "$tmp/rates.dat" ||
  bad "plot data: both tiers is not page cache + zcache: $(cat "$tmp/rates.dat")"

# Plots say what they show (item 13): the title names the trace and, with
# one page cache, its size, and the three rates get three colours; the
# adaptive plot's title names the trace and the memory; an op stream's
# plot has no page-cache line (its page cache is the recorded one).
t=$(basename "$trace")
grep -q "set title '$t, page cache 500: hits against zcache size'" \
  "$tmp/rates.gp" || bad "rates plot title: $(grep title "$tmp/rates.gp" | head -1)"
[ "$(grep -m1 '^plot' "$tmp/rates.gp" | grep -o 'lc [0-9]' | sort -u | wc -l)" = 3 ] ||
  bad "rates plot: three rates, not three colours: $(grep -m1 '^plot' "$tmp/rates.gp")"
grep -q "set title '$t: adaptive split of memory 4M'" "$tmp/sp-adaptive.gp" ||
  bad "adaptive plot title: $(grep title "$tmp/sp-adaptive.gp" | head -1)"
ops=$(dirname "$trace")/build-c.kernel.zct
"$sweep" --capacity 0,1M --plot "$tmp/ops" "$ops" >/dev/null 2>&1 || bad "ops plot run"
grep -q "set title 'build-c.kernel.zct, the recorded page cache" "$tmp/ops.gp" &&
  ! grep -q "page cache'" "$tmp/ops.gp" ||
  bad "op-stream plot: $(grep -e title -e '^plot' "$tmp/ops.gp" | head -2)"

# --mrc with --output json: one JSON document holding the rows and the
# curve; with csv: refused.
"$sweep" --page-cache 500 --capacity 0 --mrc 100,500 --output json "$trace" \
  >"$tmp/mrc.json" || bad "--mrc json run"
if command -v jq >/dev/null; then
  jq -e '(.rows | length) == 1 and (.mrc.curve | length) == 2 and
    .mrc.curve[1].hits == .rows[0].pc_hits' "$tmp/mrc.json" >/dev/null ||
    bad "--mrc json: $(head -c 300 "$tmp/mrc.json")"
fi
expect 2 "mrc with --output csv" "$sweep" --page-cache 500 --mrc 100 \
  --output csv "$trace"

# --memory 0 and --jobs 0 or -1 are refused, naming the option.
expect 2 "memory 0: want at least a page" "$sweep" --memory 0 --share 0,50 \
  "$trace"
expect 2 "jobs 0: want worker threads" "$sweep" --jobs 0 --page-cache 500 \
  "$trace"
expect 2 "jobs -1: want worker threads" "$sweep" --jobs -1 --page-cache 500 \
  "$trace"

# A page cache larger than a replay models: refused, naming the option
# and the limit.  One that fits the model but not memory: exit 1, naming
# the option (the memory cap makes "not memory" the same on any machine;
# not under AddressSanitizer, whose shadow memory needs more).
for t in "$replay" "$sweep"; do
  expect 2 "page-cache 64T: more than the 2147483646 pages a replay models" \
    "$t" --page-cache 64T "$trace"
  expect 2 "memory 64T: more than the 2147483646 pages" \
    "$t" --memory 64T --share 10 "$trace"
  if ! grep -q __asan_init "$t"; then
    (ulimit -v 2000000; expect 1 "page-cache.*a page cache of 1073741824 pages" \
      "$t" --page-cache 4T "$trace"; exit $fail) || fail=1
  fi
done

# The last sector of the 64-bit byte range is a request; one more is not.
printf '0.0 0 36028797018963967 1 1\n' >"$tmp/last.disksim"
"$replay" --zcache off --format disksim "$tmp/last.disksim" >"$tmp/out" ||
  bad "the last sector of the byte range was refused"
printf '0.0 0 36028797018963967 2 1\n' >"$tmp/past.disksim"
expect 2 "past.disksim:1: lba 36028797018963967 + 2 sectors is past" \
  "$replay" --zcache off --format disksim "$tmp/past.disksim"

# A first line longer than the sniff window says so.
{ printf '0.0 0 0 8 1 '; head -c 70000 /dev/zero | tr '\0' x; echo; } \
  >"$tmp/long.txt"
expect 2 "long.txt: its first 65536 bytes hold no line end" "$replay" \
  --zcache off "$tmp/long.txt"

# A --set value is checked on top of --zcache, as its rows are: zstd's
# levels go past lzo's.  (The quick tier: zero pages, which take no
# compression at level 19; what is checked is that the level is taken.)
# shellcheck disable=SC2046
"$sweep" --capacity 1M --zcache compressor=zstd --set level=1,19 \
  --page-cache 500 $(scaled "" "--content zero") "$trace" >/dev/null 2>"$tmp/err" ||
  bad "--zcache compressor=zstd --set level=1,19: $(cat "$tmp/err")"

# A sweep's capacities come from one place: without --capacity, a zcache
# asked for by --set or --zcache gets --zcache's capacity (else the
# library's default), never silently none; two sources are refused.
rows_of() { awk -F, 'NR > 1 { n++ } END { print n + 0 }' "$1"; }
"$sweep" --page-cache 500 --set allocator=zsmalloc,zbud --output csv "$trace" \
  >"$tmp/c.csv" || bad "sweep --set without --capacity"
[ "$(rows_of "$tmp/c.csv")" = 2 ] &&
  [ "$(awk -F'"' 'NR > 1 { split($7, f, ","); print f[2] }' "$tmp/c.csv" | sort -u)" = 67108864 ] ||
  bad "sweep --set without --capacity: $(cut -c1-200 "$tmp/c.csv")"
"$sweep" --page-cache 500 --zcache capacity=1M --output json "$trace" \
  >"$tmp/c.json" || bad "sweep --zcache capacity=1M"
grep -q '"capacity_bytes":1048576,"share_percent"' "$tmp/c.json" ||
  bad "sweep --zcache capacity=1M did not make a 1M zcache row"
"$sweep" --page-cache 500 --set capacity=0,1M --output csv "$trace" \
  >"$tmp/c2.csv" || bad "sweep --set capacity=0,1M"
[ "$(rows_of "$tmp/c2.csv")" = 2 ] || bad "sweep --set capacity=0,1M: $(rows_of "$tmp/c2.csv") rows"
expect 2 "names a capacity, and so does --capacity" "$sweep" --page-cache 500 \
  --capacity 1M --zcache capacity=2M "$trace"
expect 2 "capacity 0 is no zcache in a sweep" "$sweep" --page-cache 500 \
  --zcache capacity=0 "$trace"

# Traces joined into one run that name different packs: refused up front,
# naming the trace whose pack it is not.  Not joined, each is its own
# trace with its own pack, and each has its own rows.
expect 2 "file-server.zca: .*grep-src.zcp is another recording's pack" \
  "$sweep" --join --page-cache 500 --capacity 1M "$traces/grep-src.zca" \
  "$traces/file-server.zca"
# (the quick tier: a page cache that evicts little, each trace's own pack
# still opened and checked)
"$sweep" --page-cache "$(scaled 500 8192)" --capacity 1M --output csv \
  "$traces/grep-src.zca" "$traces/file-server.zca" >"$tmp/two.csv" 2>"$tmp/two.err" ||
  bad "two traces not joined: $(cat "$tmp/two.err")"
[ "$(cut -d, -f1 "$tmp/two.csv" | tr '\n' ' ')" = \
  "trace \"$traces/grep-src.zca\" \"$traces/file-server.zca\" " ] ||
  bad "two traces not joined: trace column $(cut -d, -f1 "$tmp/two.csv" | sort -u)"
expect 2 "file-server.zca: .*grep-src.zcp is another recording's pack" \
  "$replay" --page-cache 500 --zcache capacity=1M "$traces/grep-src.zca" \
  "$traces/file-server.zca"

# --version everywhere; an unknown last option is unknown, not valueless.
for t in "$sweep" "$replay" "$(dirname "$sweep")/zcache-tracefs" \
  "$(dirname "$sweep")/zcache-fidelity"; do
  "$t" --version >"$tmp/v" 2>&1 && grep -q "libzcache" "$tmp/v" ||
    bad "$t --version: $(cat "$tmp/v")"
done
expect 2 "unknown option '--foo'" "$sweep" "$trace" --foo
expect 2 "option --capacity needs a value" "$sweep" "$trace" --capacity
expect 2 "unknown option '--foo'" "$(dirname "$sweep")/zcache-tracefs" x --foo

# --adapt takes no memory (that is --memory), and CPU prices are times,
# not disks.
expect 2 "the memory is --memory's" "$replay" --memory 4M --adapt memory=8M "$trace"
expect 2 "the memory is --memory's" "$sweep" --memory 4M --adaptive \
  --adapt memory=8M "$trace"
expect 2 "put=hdd: want a time" "$replay" --memory 4M --adapt put=hdd "$trace"
expect 2 "above 0" "$sweep" --memory 4M --adaptive --cpu-price put=6us,get=0 "$trace"
expect 2 "--page-cache 1:100:1: more than 64 values" "$sweep" --page-cache 1:100:1 "$trace"

# No output over an input: a trace, the pack, through a link too; refused
# before any work, and the input stays whole.
mkdir -p "$tmp/in"
cp "$traces/build-c.zca" "$traces/build-c.zcp" "$traces/build-c.kernel.zct" "$tmp/in/"
cp "$traces/build-c.zca" "$tmp/in/t.csv"
ln -sf "$tmp/in/build-c.zcp" "$tmp/in/link"
sum0=$(cat "$tmp/in/"* | cksum)
fid=$(dirname "$sweep")/zcache-fidelity
expect 2 "save-ops .*build-c.zcp: that is an input of this run" "$replay" \
  --page-cache 100 --zcache capacity=1M --save-ops "$tmp/in/build-c.zcp" "$tmp/in/build-c.zca"
expect 2 "split-csv .*link: that is .*build-c.zcp, an input" "$replay" \
  --memory 4M --adaptive --split-csv "$tmp/in/link" "$tmp/in/build-c.zca"
expect 2 "plot .*/t: it would write .*t.csv, an input" "$sweep" \
  --page-cache 100 --capacity 1M --plot "$tmp/in/t" "$tmp/in/t.csv"
expect 2 "plot .*/t: it would write .*t.csv, an input" "$replay" \
  --memory 4M --adaptive --plot "$tmp/in/t" "$tmp/in/t.csv"
expect 2 "o .*build-c.zcp: that is an input" "$fid" --no-curve \
  -o "$tmp/in/build-c.zcp" "$tmp/in/build-c"
# two outputs of one run in one file: refused before either is written
expect 2 "split-csv .*/sc.csv: that is .*/sc.csv, an output of --plot" \
  "$replay" --memory 4M --adaptive --plot "$tmp/sc" --split-csv "$tmp/sc.csv" \
  "$tmp/in/build-c.zca"
expect 2 "o .*/fp.gp: that is .*/fp.gp, an output of --plot" "$fid" \
  --capacity 1M --plot "$tmp/fp" -o "$tmp/fp.gp" "$tmp/in/build-c"
[ ! -e "$tmp/sc.csv" ] && [ ! -e "$tmp/fp.gp" ] || bad "two outputs in one file: one was written"
[ "$(cat "$tmp/in/"* | cksum)" = "$sum0" ] || bad "an output overwrote an input"

# Numbers are read whole: --share, times, lists.
for v in abc 12abc 0x10 nan 101; do
  expect 2 "share $v: want a percentage" "$sweep" --memory 8M --share "$v" "$trace"
done
expect 2 "share: an empty list" "$sweep" --memory 8M --share , "$trace"
expect 2 "capacity: an empty list" "$sweep" --page-cache 100 --capacity "" "$trace"
for v in 1e11s 1e400s infs nanns 18446744073709551616ns; do
  expect 2 "disk-latency $v: want a time above 0 up to 10000s" "$sweep" --page-cache 100 \
    --capacity 0 --disk-latency "$v" "$trace"
  expect 2 "disk=$v: want a time above 0 up to 10000s" "$replay" --memory 4M --adaptive \
    --disk-latency "$v" "$trace"
done
# A --plot prefix too long for the tools' paths, and outputs in a
# directory that is not there: refused before any work.
long=$tmp/$(printf 'x%.0s' $(seq 1 1000))
expect 2 "plot: a prefix longer than 960 bytes" "$sweep" --page-cache 100 \
  --capacity 0,256K --plot "$long" "$trace"
expect 2 "split-csv /nonexistent/x.csv: /nonexistent: no such directory" \
  "$replay" --memory 4M --adaptive --split-csv /nonexistent/x.csv "$trace"
expect 2 "o: want a file name" "$fid" -o "" "$traces/build-c"
# Every usage error is one line.
for cmd in "$replay --bogus x" "$fid --size-mode foo $traces/build-c" \
  "$sweep --bogus x"; do
  # shellcheck disable=SC2086
  $cmd >/dev/null 2>"$tmp/err"
  [ "$(wc -l <"$tmp/err")" = 1 ] || bad "$cmd: $(wc -l <"$tmp/err") lines: $(cat "$tmp/err")"
done
# Ranges (their values are written out; under AddressSanitizer a leak
# would fail the run).
"$sweep" --page-cache 100:300:100 --capacity 0:1M:512K --mrc 100:300:100 \
  "$trace" >/dev/null || bad "sweep with ranges"

# A page the pack lacks, met when it is evicted (not in the request that
# failed): the message names that page and says it is not in the pack.
printf 'zca-text 1\nmeta page_size 4096\n0.000000001 r 7:0 999999 0 1\n0.000000002 r 7:0 141 0 1\n0.000000003 r 7:0 141 1 1\nend\n' >"$tmp/miss.zca"
expect 2 "page (dev 7340032, inode 999999, index 0) is not in it" "$replay" \
  --content "pack:$traces/grep-src.zcp" --page-cache 1 --zcache capacity=1M "$tmp/miss.zca"
expect 2 "page (dev 7340032, inode 999999, index 0) is not in it" "$sweep" \
  --content "pack:$traces/grep-src.zcp" --page-cache 1 --capacity 1M "$tmp/miss.zca"
# Out of memory is exit 1 and says so (not a corrupt file); not under
# AddressSanitizer, whose shadow needs more than the cap.
if ! grep -q __asan_init "$replay"; then
  for t in "$replay" "$sweep"; do
    (ulimit -v 12000; "$t" --page-cache 1808 --capacity 1M "$traces/grep-src.zca" \
      >/dev/null 2>"$tmp/oom"; echo $? >"$tmp/oomrc")
    [ "$(cat "$tmp/oomrc")" = 1 ] && grep -q "out of memory" "$tmp/oom" ||
      [ "$t" = "$replay" ] ||
      bad "$t under a 12 MB cap: exit $(cat "$tmp/oomrc"): $(cat "$tmp/oom")"
  done
  (ulimit -v 12000; "$replay" --page-cache 1808 --zcache capacity=1M "$traces/grep-src.zca" \
    >/dev/null 2>"$tmp/oom"; echo $? >"$tmp/oomrc")
  [ "$(cat "$tmp/oomrc")" = 1 ] && grep -q "out of memory" "$tmp/oom" ||
    bad "replay under a 12 MB cap: exit $(cat "$tmp/oomrc"): $(cat "$tmp/oom")"
fi

# Found by the attack on the fan-out (issue 14): help to a full standard
# output fails; numbers read whole; a free disk is not the default one; an
# adaptive row's capacity named as a static row's is; the footnote of a
# split without share 0 says what saved_ms counts.
for t in "$replay" "$sweep"; do
  for a in --help --version; do
    "$t" "$a" >/dev/full 2>"$tmp/err"
    [ $? = 1 ] || bad "$t $a > /dev/full did not exit 1"
  done
done
expect 2 "jobs +3: want worker threads" "$sweep" --jobs +3 --page-cache 500 \
  "$trace"
expect 2 "page-size 1000: want a power of two" "$sweep" --page-size 1000 \
  --page-cache 500 "$trace"
expect 2 "memo 512K: want 0 (none) or at least 1M" "$sweep" --memo 512K \
  --page-cache 500 "$trace"
expect 2 "disk-latency 0us: want a time above 0" "$sweep" --disk-latency 0us \
  --memory 4M --adaptive "$trace"
expect 2 "want a time above 0" "$replay" --disk-latency 0us --memory 4M \
  --adaptive "$trace"
expect 2 "memory 16G --adaptive: the zcache is made for all of M, and the library's largest" \
  "$sweep" --memory 16G --adaptive "$trace"
expect 2 "memory 16G: a zcache of 17179869184 bytes (made for all of M) is more than the library's largest" \
  "$replay" --memory 16G --adaptive "$trace"
expect 2 "memory 40G --share: a zcache of 21474836480 bytes is more than the library's largest" \
  "$sweep" --memory 40G --share 0,50 "$trace"
"$sweep" --memory 4M --share 10,50 "$trace" >"$tmp/noshare0" 2>&1
grep -q "saved_ms: zcache hits" "$tmp/noshare0" ||
  bad "a split without share 0: $(tail -4 "$tmp/noshare0")"

# --adaptive=LIST: controllers named once each, among those there are; the
# fixed baseline at 20% is the static 20% split (the zcache made for all
# of M packs its share as one made at that share).
expect 2 "start=33: not a candidate split; with steps=20 they are 5% apart" \
  "$replay" --memory 4M --adapt controller=fixed,start=33 "$trace"
expect 2 "share S is a static split, --adaptive a moving one: not both" \
  "$replay" --memory 4M --share 20 --adaptive "$trace"
expect 2 "want controllers among model, fixed, arc" "$sweep" --memory 4M \
  --adaptive=lru "$trace"
expect 2 "fixed named twice" "$sweep" --memory 4M --adaptive=fixed,fixed \
  "$trace"
"$sweep" --memory 4M --share 20 --adaptive=fixed,arc,model \
  --output csv "$trace" >"$tmp/ctl.csv" 2>"$tmp/err" || bad "--adaptive=LIST: $(cat "$tmp/err")"
[ "$(csv_get "$tmp/ctl.csv" 2 controller),$(csv_get "$tmp/ctl.csv" 3 controller),$(csv_get "$tmp/ctl.csv" 4 controller)" = fixed,arc,model ] ||
  bad "--adaptive=fixed,arc,model: controllers $(cut -c1-200 "$tmp/ctl.csv")"
[ "$(csv_get "$tmp/ctl.csv" 1 disk_reads)" = "$(csv_get "$tmp/ctl.csv" 2 disk_reads)" ] ||
  bad "fixed at 20% read $(csv_get "$tmp/ctl.csv" 2 disk_reads) times, the static 20% split $(csv_get "$tmp/ctl.csv" 1 disk_reads)"
# With --plot, one graph of every controller's split over time (each row's
# CSV) and the static split of fewest disk reads as a level line.
"$sweep" --memory 4M --share 0,50,100 --adaptive=model,arc --plot "$tmp/ctl" \
  "$trace" >/dev/null 2>"$tmp/err" || bad "--adaptive=LIST --plot: $(cat "$tmp/err")"
p=$(grep -m1 '^plot' "$tmp/ctl-adaptive.gp")
case $p in
  *"'$tmp/ctl-adaptive-1.csv'"*"title 'adaptive'"*"'$tmp/ctl-adaptive-2.csv'"*"title 'adaptive:arc'"*"with lines dt 2"*"(fewest disk reads)'"*) ;;
  *) bad "--adaptive=model,arc --plot: $p" ;;
esac
[ -s "$tmp/ctl-adaptive-1.csv" ] && [ -s "$tmp/ctl-adaptive-2.csv" ] ||
  bad "--adaptive=model,arc --plot: no CSV per row"
# Joined traces are named in the title by the first and a count, kept whole
# when the first's name is long.
long=$tmp/$(printf 't%.0s' $(seq 1 250)).zca
cp "$trace" "$long" && cp "${trace%.zca}.zcp" "$tmp/"
"$replay" --memory 4M --adaptive --content synth --plot "$tmp/long" "$long" \
  "$trace" "$trace" "$trace" "$trace" "$trace" "$trace" "$trace" "$trace" \
  "$trace" "$trace" >/dev/null 2>"$tmp/err" || bad "--plot of 11 traces: $(cat "$tmp/err")"
grep -q "^set title 't*[^ ]* + 10 more: " "$tmp/long.gp" ||
  bad "the title of 11 joined traces: $(grep -m1 '^set title' "$tmp/long.gp" | cut -c1-80)...$(grep -m1 '^set title' "$tmp/long.gp" | rev | cut -c1-60 | rev)"
rm -f "$long"
# ... and none of those files may be an input of the run.
mkdir -p "$tmp/cl" && cp "$trace" "$tmp/cl/t-adaptive-2.gp" &&
  cp "${trace%.zca}.zcp" "$tmp/cl/"
expect 2 "it would write $tmp/cl/t-adaptive-2.gp, an input of this run" \
  "$sweep" --memory 4M --share 0,50 --adaptive=model,fixed --plot "$tmp/cl/t" \
  "$tmp/cl/t-adaptive-2.gp"
cmp -s "$trace" "$tmp/cl/t-adaptive-2.gp" || bad "--plot wrote over an input"
# An adaptive row whose run ends before its first epoch: no epochs, no error.
"$sweep" --memory 4M --share 0 --adaptive --adapt epoch=1000000 \
  --output csv "$trace" >"$tmp/noep.csv" 2>"$tmp/err" ||
  bad "an adaptive row without an epoch: $(cat "$tmp/err")"
# --split-csv onto the file standard output goes to would be written over.
"$replay" --memory 4M --adaptive --split-csv "$tmp/self.txt" "$trace" \
  >"$tmp/self.txt" 2>"$tmp/err"
[ $? = 2 ] && grep -q "that is the file standard output goes to" "$tmp/err" ||
  bad "--split-csv onto stdout's file: $(cat "$tmp/err")"

[ "$fail" = 0 ] && echo "tools_errors: ok"
exit "$fail"
