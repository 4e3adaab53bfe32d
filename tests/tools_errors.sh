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

[ "$fail" = 0 ] && echo "tools_errors: ok"
exit "$fail"
