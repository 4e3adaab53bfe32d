#!/usr/bin/env bash
# zcache-tracefs converts a small raw capture (tests/data/tracefs: trace_pipe
# text cut from a real zcache-record run, with the "INO SIZE" lists of the
# files before and after it) into the access stream committed beside it, in
# text form (faults as "m", fault-around as "a", a size record before a
# file's first access and after its size changed; none without --sizes);
# the same events rendered as `trace-cmd report` prints them
# (with an instance name, no flags column; and without the instance name)
# convert to the same stream, the blkparse output reads back the same when
# zstd-compressed, and bad input stops with "FILE:LINE: what" (or "FILE:
# what") and exit 2, leaving no output; a reordering across CPUs is no error.
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
# mm_filemap_fault is a fault, mm_filemap_map_pages fault-around; a file's
# size comes before its first access, and again when a write grew it.
want_line() { grep -qx "$1" "$tmp/pipe/capture.zca.txt" || fail "no line '$1'"; }
want_line "9.106047000 m 7:0 804 0 1"
want_line "9.111282000 a 7:0 804 0 12"
want_line "9.106047000 size 7:0 804 4000000"
want_line "9.147381000 size 7:0 806 131072"
[ "$(grep -c ' size 7:0 13 ' "$tmp/pipe/capture.zca.txt")" -eq 1 ] ||
  fail "a size written again though it did not change"

# The block trace, zstd-compressed when its name says so.
if command -v zstd > /dev/null; then
  "$tracefs" --dev 7:0 --blkparse "$tmp/pipe/b.blkparse.zst" "$tmp/pipe/capture" 2> /dev/null
  zstd -q -dc "$tmp/pipe/b.blkparse.zst" | cmp - "$tmp/pipe/capture.blkparse" ||
    fail "blkparse.zst does not decompress to the plain output"
fi

# Bad input: the file and line (or the file alone, LINE empty), exit
# status 2, no output left behind.
refuse() { # WHAT FILE LINE EXPECTED-MESSAGE (the device: $dev, or 7:0)
  local rc=0 where="$2:$3: "
  [ -n "$3" ] || where="$2: "
  rm -f "$tmp/bad.zca.txt"
  "$tracefs" --dev "${dev:-7:0}" --access "$tmp/bad.zca.txt" "$2" 2> "$tmp/bad.log" || rc=$?
  [ "$rc" -eq 2 ] || fail "$1: exit $rc, not 2"
  grep -qF "$where$4" "$tmp/bad.log" || fail "$1: message '$(head -c 300 "$tmp/bad.log")'"
  [ ! -e "$tmp/bad.zca.txt" ] || fail "$1: output left behind"
}
bad() { # WHAT LINE-TO-APPEND EXPECTED-MESSAGE
  cp "$data/capture.trace" "$tmp/bad"
  printf '%s\n' "$2" >> "$tmp/bad"
  refuse "$1" "$tmp/bad" "$(wc -l < "$tmp/bad")" "$3"
}
bad_bytes() { # WHAT PRINTF-FORMAT-TO-APPEND EXPECTED-MESSAGE
  cp "$data/capture.trace" "$tmp/bad"
  # shellcheck disable=SC2059 # the format is the point
  printf "$2" >> "$tmp/bad"
  refuse "$1" "$tmp/bad" "$(wc -l < "$tmp/bad")" "$3"
}
ev() { # CPU TIME EVENT: DETAILS -> a trace_pipe line
  printf '             cat-1169    [%s] .....  %s: %s' "$1" "$2" "$3"
}
bad "a line of no event" "hello world" "not a tracefs event line"
bad "lost events" "CPU:1 [LOST 12 EVENTS]" "the recording lost events"
bad "a get_pages range not in pages" \
  "  cat-1 [000] ..... 9999.000000: mm_filemap_get_pages: dev=7:0 ino=d ofs=0-4000" \
  "a filemap access event that does not parse"
bad "an ext4 write with a hex inode" \
  "  dd-1 [000] ..... 9999.000000: ext4_da_write_begin: dev 7,0 ino 1f pos 0 len 1" \
  "an ext4 write_begin event that does not parse"
bad "a line longer than 1 MiB" "$(head -c 1048577 /dev/zero | tr '\0' a)" \
  "line longer than 1 MiB"
bad_bytes "a line of NUL bytes" '\0\0\0\n' "a NUL byte in the line"
bad_bytes "an event followed by a NUL and garbage" \
  "$(ev 001 7684.090000 'mm_filemap_get_pages: dev=7:0 ino=d ofs=0-4095')\\0junk\\n" \
  "a NUL byte in the line"
bad "a timestamp of 13 decimals" \
  "$(ev 001 7684.0901000000001 'mm_filemap_get_pages: dev=7:0 ino=d ofs=0-4095')" \
  "a timestamp with more than 9 decimals"
bad "time going backwards on one CPU" \
  "$(ev 001 7684.080050 'mm_filemap_get_pages: dev=7:0 ino=d ofs=0-4095')" \
  "time goes backwards"
bad "a folio past 2^64 bytes" \
  "$(ev 001 7684.090000 'mm_filemap_add_to_page_cache: dev 7:0 ino d pfn=0x1 ofs=18446744073709547520 order=9')" \
  "a filemap add/delete event whose folio runs past 2^64 bytes"
bad "an RWBS of no blkparse letters" \
  "$(ev 001 7684.090000 'block_bio_queue: 7,0 XX 8 + 8 [cat]')" \
  "a block_bio_queue event with an RWBS other than blkparse's letters"
bad "a CPU beyond 8191" \
  "$(ev 8192 7684.090000 'block_bio_queue: 7,0 WS 8 + 8 [cat]')" \
  "a CPU number beyond 8191"
mkdir "$tmp/dir"
refuse "a directory" "$tmp/dir" "" "is a directory"
: > "$tmp/empty"
refuse "an empty capture" "$tmp/empty" "" "no event of device 7:0"
dev=7:1 refuse "no event of the device" "$data/capture.trace" "" \
  "no event of device 7:1"

# Across CPUs, an event a hair (50 us) older than the previous one is no
# error: it takes the previous one's time (tests/hardening_tracefs.sh
# checks the rule's bound).
cp "$data/capture.trace" "$tmp/reorder"
ev 000 7684.080050 'mm_filemap_get_pages: dev=7:0 ino=d ofs=0-4095' >> "$tmp/reorder"
echo >> "$tmp/reorder"
"$tracefs" --dev 7:0 --access "$tmp/reorder.zca.txt" "$tmp/reorder" 2> "$tmp/reorder.log" ||
  { cat "$tmp/reorder.log" >&2; fail "a cross-CPU reordering is refused"; }
grep -q "1 events older than the newest before them" "$tmp/reorder.log" ||
  fail "the cross-CPU reordering is not counted: $(cat "$tmp/reorder.log")"
! grep -q ' size ' "$tmp/reorder.zca.txt" ||
  fail "sizes written without --sizes (no size is known)"

# A write error removes only regular files the converter opened: never a
# symlink given as an output, nor its target.  (Not /dev/full itself as an
# output: a converter with the bug would remove it, the test run as root.)
if [ -w /dev/full ]; then
  ln -s /dev/full "$tmp/full"
  echo keep > "$tmp/target"
  ln -s "$tmp/target" "$tmp/link"
  for out in "$tmp/link" "$tmp/new.zca.txt"; do
    rc=0
    "$tracefs" --dev 7:0 --access "$out" --blkparse "$tmp/full" \
      "$data/capture.trace" 2> /dev/null || rc=$?
    [ "$rc" -eq 1 ] || fail "a write to /dev/full: exit $rc, not 1"
  done
  if ! [ -L "$tmp/full" ] || ! [ -L "$tmp/link" ] || ! [ -f "$tmp/target" ]; then
    fail "a write error removed a symlink or its target"
  fi
  [ ! -e "$tmp/new.zca.txt" ] || fail "a write error left an output behind"
fi
echo "tracefs_capture: ok"
