#!/usr/bin/env bash
# zcache-tracefs under attack (issue 33, items 2, 6, 8, 9, 15, 16; h13
# A-D): each
# case is a small hand-made capture or a bad option, and what the tool
# must do with it: name the device it converted and the events of other
# devices it ignored, or refuse with "FILE:LINE: what" (or the option)
# and exit status 2, leaving no output behind.
#
#   hardening_tracefs.sh ZCACHE-TRACEFS ZCACHE-REPLAY DATA-DIR
#
# DATA-DIR: tests/data/tracefs (the committed capture, for option cases).
# SPDX-License-Identifier: GPL-2.0-or-later
set -u
tracefs=$1 replay=$2 data=$3
# shellcheck source=tests/tool_test.sh
. "$(dirname "$0")/tool_test.sh"

ev() { # CPU TIME COMM-PID EVENT: DETAILS -> a trace_pipe line
  local cpu=$1 time=$2 task=$3
  shift 3
  printf '%16s [%s] ..... %s: %s\n' "$task" "$cpu" "$time" "$*"
}
get() { # CPU TIME FIRST-LAST: a read of inode 0x1f of 7:0
  ev "$1" "$2" cat-10 "mm_filemap_get_pages: dev=7:0 ino=1f ofs=$3"
}
# refuse WHAT PATTERN ARGS...: exit 2, PATTERN said, no output left.
refuse() {
  local what=$1 pat=$2
  shift 2
  rm -f "$tmp/out.zca.txt" "$tmp/out.blkparse"
  expect 2 "$pat" "$tracefs" --access "$tmp/out.zca.txt" \
    --blkparse "$tmp/out.blkparse" "$@"
  [ ! -e "$tmp/out.zca.txt" ] && [ ! -e "$tmp/out.blkparse" ] ||
    bad "$what: output left behind"
}
# accept WHAT PATTERN ARGS...: exit 0, PATTERN said.
accept() {
  local what=$1 pat=$2
  shift 2
  expect 0 "$pat" "$tracefs" --access "$tmp/out.zca.txt" "$@"
}

# ---- 2: the device ---------------------------------------------------------
# A stray event of another device on the first line does not choose the
# device: two devices need --dev, and the message names both with their
# events; with --dev the other's events are counted as ignored; a capture
# of one device names it.
{
  ev 000 100.000000 jbd2/vda1-8-5 'block_bio_queue: 259,0 WS 8 + 8 [jbd2]'
  get 000 100.001000 0-4095
  get 000 100.002000 4096-8191
} > "$tmp/devs.trace"
refuse "two devices" \
  "devs.trace: events of 2 devices: 7:0 (2 events), 259:0 (1 event); give --dev" \
  "$tmp/devs.trace"
accept "--dev of two" "device 7:0 (--dev); 1 events of other devices ignored" \
  --dev 7:0 "$tmp/devs.trace"
grep -q "access stream: 2 reads" "$tmp/err" || bad "--dev 7:0: not 2 reads: $(cat "$tmp/err")"
sed 1d "$tmp/devs.trace" > "$tmp/one.trace"
accept "one device" "device 7:0 (the one the events name); 0 events of other" \
  "$tmp/one.trace"
# Without --dev the capture is read twice: a FIFO is refused.
mkfifo "$tmp/fifo"
cat "$tmp/one.trace" > "$tmp/fifo" &
writer=$!
refuse "a FIFO without --dev" "fifo: not a regular file: give --dev" "$tmp/fifo"
kill "$writer" 2> /dev/null
wait "$writer" 2> /dev/null

# ---- 6: a cut last line ---------------------------------------------------
# "ino=1f ofs=4096" cut from "ofs=40960-45055" must not read as a value.
{
  get 000 100.000000 0-4095
  get 000 100.001000 4096-8191 | head -c -1
} > "$tmp/cut.trace"
refuse "a cut last line" "cut.trace:2: the last line has no newline" \
  --dev 7:0 "$tmp/cut.trace"
refuse "a cut last line, no --dev" "cut.trace:2: the last line has no newline" \
  "$tmp/cut.trace"

# ---- 8: huge ranges ------------------------------------------------------
# Just over the cap of one record (2^20 pages), then 2^63 bytes (walked
# page by page for days without the check, so tried only once the first
# holds); any device: refused as the line is parsed.
get 000 100.0 0-4294971391 > "$tmp/over.trace"
refuse "2^20 + 1 pages" \
  "over.trace:1: an access of 1048577 pages: more than the 1048576 pages" \
  --dev 7:0 "$tmp/over.trace"
if [ "$fail" = 0 ]; then
  ev 000 100.0 cat-10 'mm_filemap_map_pages: dev=8:0 ino=1f ofs=0-9223372036854775807' \
    > "$tmp/huge.trace"
  refuse "2^63 bytes" "huge.trace:1: an access of 2251799813685248 pages" \
    --dev 7:0 "$tmp/huge.trace"
fi
ev 000 100.0 cat-10 'block_bio_queue: 7,0 R 0 + 4294967295 [cat]' > "$tmp/bio.trace"
refuse "a bio of 2 TiB" "bio.trace:1: a bio of 4294967295 sectors: more than 4 GiB" \
  --dev 7:0 "$tmp/bio.trace"

# ---- 9: folio orders ------------------------------------------------------
for order in 11 99999999999999999999999; do
  ev 000 100.0 cat-10 "mm_filemap_add_to_page_cache: dev 7:0 ino 1f pfn=0x1 ofs=0 order=$order" \
    > "$tmp/order.trace"
  refuse "order $order" "order.trace:1: order $order too large: a folio is at most order 10" \
    --dev 7:0 "$tmp/order.trace"
done
ev 000 100.0 cat-10 'mm_filemap_add_to_page_cache: dev 7:0 ino 1f pfn=0x1 ofs=0 order=10' \
  > "$tmp/order.trace"
accept "order 10" "kernel stream: 1024 gets" --dev 7:0 "$tmp/order.trace"

# ---- 15: cross-CPU reorderings -------------------------------------------
# The first event as any other: 10 us older than the first line is taken
# and counted; 0.5 s older than line 2 (another CPU's) is refused.
{
  get 001 100.000010 0-4095
  get 000 100.000000 4096-8191
} > "$tmp/first.trace"
accept "a reordered first event" "1 events older than the newest before them" \
  --dev 7:0 "$tmp/first.trace"
{
  get 001 100.000000 0-4095
  get 001 100.500000 0-4095
  get 000 100.001000 0-4095
} > "$tmp/late.trace"
refuse "a late reordering of 0.5 s" \
  "late.trace:3: an event 0.499000000 s older than line 2's, of another CPU" \
  --dev 7:0 "$tmp/late.trace"

# ---- 16: options against the readers' limits ------------------------------
refuse "--read-ahead-kb 99999999999" \
  "--read-ahead-kb 99999999999: want KiB from 0 to 4194304" \
  --dev 7:0 --read-ahead-kb 99999999999 "$data/capture.trace"
refuse "--level 2^32 + 9" "--level 4294967305: want 0, 1 or 9" \
  --dev 7:0 --level 4294967305 "$data/capture.trace"
refuse "--bdevfs 2^32 + 3" "--bdevfs 4294967299: want an s_dev below 2^32" \
  --dev 7:0 --bdevfs 4294967299 "$data/capture.trace"
# The largest value the readers take is written, and read back.
"$tracefs" --dev 7:0 --read-ahead-kb 4194304 --access "$tmp/ra.zca" \
  "$data/capture.trace" 2> "$tmp/err" || bad "--read-ahead-kb 4194304: $(cat "$tmp/err")"
"$replay" --zcache off "$tmp/ra.zca" > /dev/null 2> "$tmp/err" ||
  bad "--read-ahead-kb 4194304 does not read back: $(cat "$tmp/err")"

# ---- h13 A: one new file under two spellings -------------------------------
# Neither output exists yet, so stat() cannot tell: the canonical names
# (the directory's realpath and the base name; a dangling symlink's
# target) do.
get 000 100.0 0-4095 > "$tmp/get.trace"
abs_tracefs=$(cd "$(dirname "$tracefs")" && pwd)/$(basename "$tracefs")
expect 2 "--blkparse a.zca: and --access ./a.zca: one file for two outputs" \
  sh -c 'cd "$1" && shift && exec "$@"' - "$tmp" "$abs_tracefs" --dev 7:0 \
  --access ./a.zca --blkparse a.zca get.trace
[ ! -e "$tmp/a.zca" ] || bad "./a.zca and a.zca: output left behind"
ln -s a2.zca "$tmp/lnk"
expect 2 "--blkparse $tmp/lnk: and --access $tmp/a2.zca: one file for two outputs" \
  "$tracefs" --dev 7:0 --access "$tmp/a2.zca" --blkparse "$tmp/lnk" "$tmp/get.trace"
[ ! -e "$tmp/a2.zca" ] || bad "a symlink to a new file: output left behind"
mkdir "$tmp/sub"
ln -s ../a3.zca "$tmp/sub/lnk3" # relative to the link's directory
expect 2 "--blkparse $tmp/sub/lnk3: and --access $tmp/sub/../a3.zca: one file" \
  "$tracefs" --dev 7:0 --access "$tmp/sub/../a3.zca" --blkparse "$tmp/sub/lnk3" \
  "$tmp/get.trace"
# Two names of two files are still two outputs.
expect 0 "device 7:0" "$tracefs" --dev 7:0 --access "$tmp/sub/a3.zca" \
  --blkparse "$tmp/a3.zca" "$tmp/get.trace"

# ---- h13 B: " [N]" in a task name ------------------------------------------
# The CPU field is the last " [N]" followed by flags, a time and "EVENT:".
ev 000 7674.000001 'pool [1]-1234' 'mm_filemap_get_pages: dev=7:0 ino=1f ofs=0-4095' \
  > "$tmp/pool.trace"
accept "a task named 'pool [1]'" "access stream: 1 reads" --dev 7:0 "$tmp/pool.trace"
# A name that looks like the head of a line, near time 0: the event is the
# get of 2 pages at 100.0, not an event "x" at 0.0.
{
  get 000 100.000000 0-4095
  ev 000 100.000001 'w-9 [1] 0.0: x-10' 'mm_filemap_get_pages: dev=7:0 ino=1f ofs=8192-16383'
} > "$tmp/w9.trace"
accept "a task named 'w-9 [1] 0.0: x'" "access stream: 3 reads" --dev 7:0 "$tmp/w9.trace"
# trace-cmd report text: no flags, an "INSTANCE:" before the task.
printf '%s\n' \
  'inst:   pool [1]-1234 [000]  100.000000: mm_filemap_get_pages: dev=7:0 ino=1f ofs=0-4095' \
  > "$tmp/pool.report"
accept "a report line of 'pool [1]'" "access stream: 1 reads" --dev 7:0 "$tmp/pool.report"
accept "the committed report" "device 7:0" --dev 7:0 "$data/capture.report"

# ---- h13 C: kswapd and kdamond by their exact names --------------------------
# kswapd%d (mm/vmscan.c) and kdamond.%d (mm/damon/core.c) evict; a task
# whose name only holds theirs invalidates.
for who in kswapd0 kswapd12 kdamond.0 not_kswapd kswapd kswapd0x kdamond kdamond.x \
  xkdamond.1; do
  {
    ev 000 100.0 cat-10 'mm_filemap_add_to_page_cache: dev 7:0 ino 1f pfn=0x1 ofs=0 order=0'
    ev 000 100.1 "$who-11" 'mm_filemap_delete_from_page_cache: dev 7:0 ino 1f pfn=0x1 ofs=0 order=0'
  } > "$tmp/del.trace"
  case $who in
  kswapd0 | kswapd12 | kdamond.0) want="1 evictions, 0 truncations" ;;
  *) want="0 evictions, 1 truncations" ;;
  esac
  accept "a delete by $who" "$want" --dev 7:0 "$tmp/del.trace"
done

# ---- h13 D: a CR only right before the newline --------------------------------
get 000 100.0 4096-8191 | sed 's/ofs=4096/ofs=4096\r0/' > "$tmp/cr.trace"
refuse "a CR inside a capture line" \
  "cr.trace:1: a CR inside the line (one is taken only right before the newline)" \
  --dev 7:0 "$tmp/cr.trace"
{
  get 000 100.0 0-4095
  get 000 100.1 4096-8191
} | sed 's/$/\r/' > "$tmp/crlf.trace"
accept "a CRLF capture" "access stream: 2 reads" --dev 7:0 "$tmp/crlf.trace"
sed 's/$/\r/' "$data/capture.sizes" > "$tmp/crlf.sizes"
accept "CRLF --sizes" "device 7:0" --dev 7:0 --sizes "$tmp/crlf.sizes" "$data/capture.trace"
sed '1s/$/\rx/' "$data/capture.sizes" > "$tmp/cr.sizes"
refuse "a CR inside a --sizes line" "cr.sizes:1: a CR inside the line" \
  --dev 7:0 --sizes "$tmp/cr.sizes" "$data/capture.trace"

[ "$fail" = 0 ] && echo "hardening_tracefs: ok"
exit "$fail"
