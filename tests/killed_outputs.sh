#!/usr/bin/env bash
# A tool killed part way leaves every output as it was (issue 33, item 1):
# zcache-tracefs converting a capture it reads from a FIFO (held open, so
# the conversion is surely under way), and zcache-replay saving an op
# stream of a long trace, each sent SIGTERM or SIGHUP while its outputs
# are open: the outputs keep their old bytes (or stay absent), no
# temporary file is left, and the exit is the signal's (128 + N).  After
# SIGKILL, which no process can catch, the outputs are still whole: only
# a hidden temporary file stays.
#
#   killed_outputs.sh ZCACHE-TRACEFS ZCACHE-REPLAY DATA-DIR
#
# SPDX-License-Identifier: GPL-2.0-or-later
set -uo pipefail
tracefs=$1 replay=$2 data=$3
. "$(dirname "$0")/tool_test.sh"

# wait_for PID GLOB: until a file matches (the tool has opened its
# outputs): 0; 1 if PID ended first (or after 120 s).
wait_for() {
  for _ in $(seq 1200); do
    compgen -G "$2" >/dev/null && return 0
    kill -0 "$1" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}

# tracefs SIGNAL DIR: a conversion killed by SIGNAL with its input open.
tracefs_killed() {
  local sig=$1 d=$tmp/$2 pid rc
  mkdir "$d"
  mkfifo "$d/capture"
  echo old-blkparse > "$d/out.blkparse"
  echo old-access > "$d/out.zca"
  # out.inodes absent: it must stay absent
  exec 3<>"$d/capture" # read-write: the open does not wait for a reader
  "$tracefs" --dev 7:0 --blkparse "$d/out.blkparse" --access "$d/out.zca" \
    --inodes "$d/out.inodes" "$d/capture" 2>"$d/err" &
  pid=$!
  head -n 120 "$data/capture.trace" >&3
  wait_for "$pid" "$d/.out.zca.zc-*" || bad "tracefs ($sig): no temporary output seen"
  kill "-$sig" "$pid"
  wait "$pid"
  rc=$?
  exec 3>&-
  [ "$rc" = "$(( 128 + $(kill -l "$sig") ))" ] ||
    bad "tracefs killed by $sig exited $rc: $(cat "$d/err")"
  [ "$(cat "$d/out.blkparse")" = old-blkparse ] ||
    bad "tracefs killed by $sig: out.blkparse is not its old self"
  [ "$(cat "$d/out.zca")" = old-access ] ||
    bad "tracefs killed by $sig: out.zca is not its old self"
  [ ! -e "$d/out.inodes" ] || bad "tracefs killed by $sig: out.inodes appeared"
  if [ "$sig" = KILL ]; then
    compgen -G "$d/.out.zca.zc-*" >/dev/null ||
      bad "tracefs killed by KILL: where did its temporary file go?"
  else
    left=$(cd "$d" && ls -A | grep -v -x -e capture -e out.blkparse \
      -e out.zca -e err)
    [ -z "$left" ] || bad "tracefs killed by $sig left: $left"
  fi
}
tracefs_killed TERM term
tracefs_killed HUP hup
tracefs_killed KILL kill

# The same conversion not killed: the outputs are replaced, nothing else.
d=$tmp/whole
mkdir "$d"
echo old > "$d/out.zca"
"$tracefs" --dev 7:0 --access "$d/out.zca" "$data/capture.trace" 2>"$d/err" ||
  bad "the conversion failed: $(cat "$d/err")"
cmp -s "$d/out.zca" - <<<old && bad "out.zca was not replaced"
[ -z "$(cd "$d" && ls -A | grep -v -x -e out.zca -e err)" ] ||
  bad "a whole conversion left: $(ls -A "$d")"

# Outputs made together appear together or not at all: an earlier run's
# outputs stay whole when the last output of a conversion cannot be made
# (a directory: refused before any work) or fails as it is written at the
# end (/dev/full), after the others were finished.
d=$tmp/together
mkdir "$d" "$d/dir"
"$tracefs" --dev 7:0 --blkparse "$d/b.blkparse" --access "$d/a.zca" \
  "$data/capture.trace" 2>"$d/err" || bad "the first conversion failed: $(cat "$d/err")"
cp "$d/b.blkparse" "$d/b.before"
cp "$d/a.zca" "$d/a.before"
for last in "$d/dir" /dev/full; do
  "$tracefs" --dev 7:0 --blkparse "$d/b.blkparse" --access "$d/a.zca" \
    --inodes "$last" "$data/capture.trace" 2>"$d/err"
  rc=$?
  [ "$rc" != 0 ] || bad "--inodes $last: the conversion did not fail"
  cmp -s "$d/b.blkparse" "$d/b.before" && cmp -s "$d/a.zca" "$d/a.before" ||
    bad "--inodes $last failed (exit $rc) and the earlier outputs changed or went"
  left=$(cd "$d" && ls -A | grep -v -x -e dir -e err -e b.blkparse -e a.zca \
    -e b.before -e a.before)
  [ -z "$left" ] || bad "--inodes $last left: $left"
done

# A directory where no new file can be made: refused, never written in
# place (a kill would leave a part that reads as whole).  Needs a user the
# directory's permissions apply to: root's do not.
d=$tmp/ro
mkdir "$d" "$d/ro"
echo old > "$d/ro/out.blkparse"
chmod 666 "$d/ro/out.blkparse"
chmod 555 "$d/ro"
chmod 755 "$tmp" "$d"
as_user=()
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
  as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
fi
if [ "$(id -u)" != 0 ] || [ ${#as_user[@]} != 0 ]; then
  "${as_user[@]}" "$tracefs" --dev 7:0 --blkparse "$d/ro/out.blkparse" \
    "$data/capture.trace" 2>"$d/err"
  rc=$?
  [ "$rc" != 0 ] || bad "an output in a read-only directory was written in place"
  grep -q "out.blkparse: cannot create a file beside it" "$d/err" ||
    bad "read-only directory: not the message: $(cat "$d/err")"
  [ "$(cat "$d/ro/out.blkparse")" = old ] ||
    bad "read-only directory: the old output changed"
else
  echo "note: no unprivileged user to try a read-only directory as"
fi
chmod 755 "$d/ro"

# A pack is read back as it is written: a device or FIFO is refused
# before any work (exit 2), not failed part way with "Illegal seek".
d=$tmp/packdev
mkdir "$d"
truncate -s 1M "$d/img"
"$tracefs" --dev 7:0 --pack /dev/null --image "$d/img" "$data/capture.trace" 2>"$d/err"
rc=$?
[ "$rc" = 2 ] && grep -q "/dev/null: not a regular file" "$d/err" ||
  bad "--pack /dev/null: exit $rc, $(cat "$d/err")"

# zcache-replay saving an op stream of a long trace, killed part way.
d=$tmp/replay
mkdir "$d"
awk -v n="$(scaled 3000000 1500000)" 'BEGIN {
  for (i = 0; i < n; i++)
    printf "  8,0    0 %8d %5d.%09d  4242  Q   R %d + 8 [cat]\n", i + 1,
      int(i / 1000), (i % 1000) * 1000000, (i * 7919 % 400000) * 8
}' > "$d/trace.blkparse"
echo old-ops > "$d/ops.zct"
"$replay" --zcache 'capacity=1M' --page-cache 100 --save-ops "$d/ops.zct" \
  "$d/trace.blkparse" >/dev/null 2>"$d/err" &
pid=$!
if wait_for "$pid" "$d/.ops.zct.zc-*"; then
  kill -TERM "$pid"
  wait "$pid"
  rc=$?
  if [ "$rc" = 0 ]; then
    echo "note: the replay ended before the signal; nothing to check"
  else
    [ "$rc" = 143 ] || bad "zcache-replay killed by TERM exited $rc: $(cat "$d/err")"
    [ "$(cat "$d/ops.zct")" = old-ops ] ||
      bad "zcache-replay killed by TERM: ops.zct is not its old self"
    [ -z "$(cd "$d" && ls -A | grep -v -x -e trace.blkparse -e ops.zct -e err)" ] ||
      bad "zcache-replay killed by TERM left: $(ls -A "$d")"
  fi
else
  wait "$pid"
  bad "zcache-replay: no temporary output seen: $(cat "$d/err")"
fi

[ "$fail" = 0 ] && echo "killed_outputs: ok"
exit "$fail"
