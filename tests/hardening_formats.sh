#!/usr/bin/env bash
# Issue 33, items 3, 5 and 17, through the tools (test_formats_hard.c has
# the library's side):
#   - an access stream recompressed without zstd's content checksum
#     (zstd -d | zstd --no-check) is refused by zcache-replay: exit 2, one
#     line naming the file and the frame's offset;
#   - a recording whose header's pack is missing is refused with a message
#     that names the header's field and another content source, which
#     (--content) then replays it;
#   - zcache-tracefs keeps the reads of a file whose --sizes entry is
#     2^64 - 1 (the page count wrapped to 0: every read was dropped).
# Without zstd(1) the first check is skipped and the test says so (exit 77
# if everything else passed).
#   hardening_formats.sh REPLAY TRACEFS TRACES_DIR
# SPDX-License-Identifier: GPL-2.0-or-later
set -uo pipefail
replay=$1 tracefs=$2 traces=$3
. "$(dirname "$0")/tool_test.sh"
skipped=false

# one_line FILE: FILE holds exactly one line.
one_line() { [ "$(wc -l <"$1")" -eq 1 ] || bad "not one line: $(cat "$1")"; }

# Item 3: a frame without the checksum.
if command -v zstd >/dev/null; then
  zstd -q -dc "$traces/build-c.zca" | zstd -q --no-check -c >"$tmp/nock.zca"
  expect 2 "nock.zca: offset 0: zstd frame without a content checksum" \
    "$replay" --zcache off "$tmp/nock.zca"
  one_line "$tmp/err"
  [ ! -s "$tmp/out" ] || bad "a refused stream printed results"
else
  echo "zstd(1) not found: the --no-check stream is not checked"
  skipped=true
fi

# Item 17: the header's pack, missing, and the way out.
mkdir "$tmp/sl"
cp "$traces/build-c.zca" "$tmp/sl/"
cd "$tmp" || exit 1
expect 2 "sl/build-c.zca: its header's pack=build-c.zcp: sl/build-c.zcp: cannot open: No such file or directory (give another content source" \
  "$replay" --page-cache 475 sl/build-c.zca
one_line "$tmp/err"
"$replay" --page-cache 475 --content synth sl/build-c.zca >/dev/null \
  2>"$tmp/err" || bad "--content synth did not replay it: $(cat "$tmp/err")"
cd - >/dev/null || exit 1

# Item 5: a size of 2^64 - 1 keeps the file's reads.
printf '%16s [000] ..... 100.000000: mm_filemap_get_pages: dev=7:0 ino=1f ofs=0-8191\n' \
  cat-7 >"$tmp/big.trace"
echo "31 18446744073709551615" >"$tmp/big.sizes"
expect 0 "access stream: 2 reads, .* 0 reads wholly past the end dropped" \
  "$tracefs" --dev 7:0 --sizes "$tmp/big.sizes" --access "$tmp/big.zca.txt" \
  "$tmp/big.trace"
grep -q "^0.000000000 r 7:0 31 0 2$" "$tmp/big.zca.txt" ||
  bad "the read of inode 31 is not in the stream: $(cat "$tmp/big.zca.txt")"

# A request the reader accepted but the page cache cannot follow (a
# resident count past what a replay models, or none before the first
# request) is named by its own file and line, not by the first trace's.
printf 'zca-text 1\nmeta page_size 4096\n0.0 resident 7:0 100\n0.0 r 7:0 31 0 1\nend\n' \
  >"$tmp/good.zca.txt"
printf 'zca-text 1\nmeta page_size 4096\n0.0 r 7:0 31 0 1\n0.0 resident 7:0 18446744073709551615\n0.0 r 7:0 31 0 1\nend\n' \
  >"$tmp/bad.zca.txt"
expect 2 "bad.zca.txt:5: a resident count of 18446744073709551615 pages" \
  "$replay" --page-cache kernel --zcache off "$tmp/good.zca.txt" "$tmp/bad.zca.txt"
expect 2 "bad.zca.txt:3: the page cache follows the kernel's resident count, but the trace records none" \
  "$replay" --page-cache kernel --zcache off "$tmp/bad.zca.txt"

[ "$fail" -eq 0 ] || exit 1
$skipped && exit 77
exit 0
