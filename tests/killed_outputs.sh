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
