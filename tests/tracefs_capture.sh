#!/usr/bin/env bash
# zcache-tracefs converts a small raw capture (tests/data/tracefs: trace_pipe
# text cut from a real zcache-record run, with the "INO SIZE" lists of the
# files before and after it) into the access stream committed beside it, in
# text form; the same events rendered as `trace-cmd report` prints them
# (with an instance name, no flags column; and without the instance name)
# convert to the same stream, the blkparse output reads back the same when
# zstd-compressed, and bad input stops with "FILE:LINE: what" and exit 2.
#
#   tracefs_capture.sh ZCACHE-TRACEFS DATA-DIR
#
# To remake the expected file after a deliberate change:
#   ZC_UPDATE=1 tracefs_capture.sh ...
#
# SPDX-License-Identifier: GPL-2.0-or-later
set -euo pipefail
tracefs=$1 data=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

convert() { # DIR: DIR/capture -> DIR/capture.zca.txt, DIR/capture.blkparse
  "$tracefs" --dev 7:0 --sizes "$data/capture.sizes" --live "$data/capture.live" \
    --access "$1/capture.zca.txt" --blkparse "$1/capture.blkparse" "$1/capture" \
    2> "$1/log" || { cat "$1/log" >&2; fail "$1/capture does not convert"; }
}

mkdir "$tmp/pipe" "$tmp/report" "$tmp/plain"
cp "$data/capture.trace" "$tmp/pipe/capture"
cp "$data/capture.report" "$tmp/report/capture"
sed 's/^zcache-record-4242: //' "$data/capture.report" > "$tmp/plain/capture"
for d in pipe report plain; do convert "$tmp/$d"; done

if [ -n "${ZC_UPDATE:-}" ]; then
  cp "$tmp/pipe/capture.zca.txt" "$data/capture.zca.txt"
  echo "updated $data/capture.zca.txt"
fi
# The library's version in the header is not the converter's business.
grep -v '^meta created_by ' "$tmp/pipe/capture.zca.txt" > "$tmp/got" || true
grep -v '^meta created_by ' "$data/capture.zca.txt" > "$tmp/want" || true
cmp "$tmp/got" "$tmp/want" ||
  { diff "$tmp/want" "$tmp/got" | head -20; fail "trace_pipe text: not the expected stream"; }
for d in report plain; do
  cmp "$tmp/pipe/capture.zca.txt" "$tmp/$d/capture.zca.txt" ||
    fail "trace-cmd report text ($d): another stream than trace_pipe's"
  cmp "$tmp/pipe/capture.blkparse" "$tmp/$d/capture.blkparse" ||
    fail "trace-cmd report text ($d): another block trace than trace_pipe's"
done
grep -q "1 reads wholly past the end dropped" "$tmp/pipe/log" ||
  fail "the read past the end is not counted: $(cat "$tmp/pipe/log")"

# The block trace, zstd-compressed when its name says so.
if command -v zstd > /dev/null; then
  "$tracefs" --dev 7:0 --blkparse "$tmp/pipe/b.blkparse.zst" "$tmp/pipe/capture" 2> /dev/null
  zstd -q -dc "$tmp/pipe/b.blkparse.zst" | cmp - "$tmp/pipe/capture.blkparse" ||
    fail "blkparse.zst does not decompress to the plain output"
fi

# Bad input: the file and line, exit status 2, no output left behind.
bad() { # WHAT LINE-TO-APPEND EXPECTED-MESSAGE
  cp "$data/capture.trace" "$tmp/bad"
  printf '%s\n' "$2" >> "$tmp/bad"
  local n rc=0
  n=$(wc -l < "$tmp/bad")
  "$tracefs" --dev 7:0 --access "$tmp/bad.zca.txt" "$tmp/bad" 2> "$tmp/bad.log" || rc=$?
  [ "$rc" -eq 2 ] || fail "$1: exit $rc, not 2"
  grep -q "$tmp/bad:$n: $3" "$tmp/bad.log" || fail "$1: message '$(cat "$tmp/bad.log")'"
  [ ! -e "$tmp/bad.zca.txt" ] || fail "$1: output left behind"
}
bad "a line of no event" "hello world" "not a tracefs event line"
bad "lost events" "CPU:1 [LOST 12 EVENTS]" "the recording lost events"
bad "a get_pages range not in pages" \
  "  cat-1 [000] ..... 9999.000000: mm_filemap_get_pages: dev=7:0 ino=d ofs=0-4000" \
  "a filemap access event that does not parse"
bad "an ext4 write with a hex inode" \
  "  dd-1 [000] ..... 9999.000000: ext4_da_write_begin: dev 7,0 ino 1f pos 0 len 1" \
  "an ext4 write_begin event that does not parse"
echo "tracefs_capture: ok"
