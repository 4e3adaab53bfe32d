#!/usr/bin/env bash
# A sweep through a real Slurm: a one-node cluster from Debian's packages
# (munge, slurmctld, slurmd), configured and started here in a scratch
# directory, runs a plan of 8 jobs over two traces submitted by
# scripts/slurm-sweep.sh; the merge job's table, CSV and JSON must equal a
# local run of the same sweep, every column but the timings.  Then a lost
# job is listed by --merge and submitted again with --only.  Every daemon
# is stopped on the way out, whatever happened.
#   slurm_sweep.sh SWEEP TRACES_DIR SCRIPTS_DIR
# Exits 77 (skipped) when the packages are missing or the daemons cannot
# start; with ZC_REQUIRE_SLURM=1 (CI) that is a failure instead.
set -u
sweep=$1 traces=$2 scripts=$3
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tool_test.sh
. "$here/tool_test.sh"
case $sweep in /*) ;; *) sweep=$PWD/$sweep ;; esac

skip() {
  if [ "${ZC_REQUIRE_SLURM:-0}" = 1 ]; then
    echo "FAIL: Slurm required (ZC_REQUIRE_SLURM=1) but $*"
    exit 1
  fi
  echo "SKIP: $* (the rest of the suite does not need Slurm;" \
    "scripts/deps.sh --full installs munge slurmctld slurmd slurm-client)"
  exit 77
}
for b in munged slurmctld slurmd sbatch squeue sinfo scontrol; do
  command -v "$b" >/dev/null || skip "no $b here"
done
[ "$(id -u)" = 0 ] || skip "slurmd runs jobs as root only here, and this is not root"

d=$tmp/slurm
mkdir -p "$d/state" "$d/spool" "$d/log" "$d/run"
# Stop what was started (pid files, then the pids we hold), then clean up.
pids=()
stop_all() {
  local p f
  for f in "$d/run/slurmd.pid" "$d/run/slurmctld.pid" "$d/run/munged.pid"; do
    [ -s "$f" ] && kill "$(cat "$f")" 2>/dev/null
  done
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  for _ in $(seq 50); do
    local alive=0
    for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
    [ $alive = 0 ] && break
    sleep 0.2
  done
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
  rm -rf "$tmp"
}
trap stop_all EXIT
show_logs() {
  for f in "$d"/log/*.log "$d/munged.log"; do
    [ -f "$f" ] && { echo "--- $f"; tail -n 15 "$f"; }
  done
}

# munge: a private key and socket.
dd if=/dev/urandom of="$d/munge.key" bs=1024 count=1 status=none
chmod 400 "$d/munge.key"
munged --key-file="$d/munge.key" --socket="$d/munge.sock" \
  --pid-file="$d/run/munged.pid" --log-file="$d/munged.log" \
  --seed-file="$d/munge.seed" -f -F >/dev/null 2>&1 &
pids+=($!)
for _ in $(seq 50); do [ -S "$d/munge.sock" ] && break; sleep 0.1; done
[ -S "$d/munge.sock" ] || { show_logs; skip "munged did not start"; }

# Two free TCP ports (not listened on now).
port_free() {
  ! grep -qi ":$(printf '%04X' "$1") " /proc/net/tcp /proc/net/tcp6 2>/dev/null
}
pick_port() {
  local p
  for _ in $(seq 100); do
    p=$((20000 + RANDOM % 40000))
    [ "$p" != "${1:-}" ] && port_free "$p" && { echo "$p"; return; }
  done
  echo 0
}
host=$(hostname -s)
mem_mb=$(($(sed -n 's/^MemTotal: *\([0-9]*\) kB/\1/p' /proc/meminfo) / 1024 * 3 / 4))
# slurmd 22.05 starts its cgroup plugin whatever the configuration says,
# and fails where no cgroup file system is mounted (a chroot, say).
grep -q ' /sys/fs/cgroup ' /proc/mounts ||
  skip "no cgroup file system at /sys/fs/cgroup, which slurmd 22.05 needs to start"
# Start slurmctld and slurmd on two fresh ports; 0 once the node is idle.
start_cluster() {
  ctld_port=$(pick_port)
  slurmd_port=$(pick_port "$ctld_port")
  cat >"$d/slurm.conf" <<EOF
ClusterName=zctest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$d/munge.sock
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool
SlurmctldPidFile=$d/run/slurmctld.pid
SlurmdPidFile=$d/run/slurmd.pid
SlurmctldLogFile=$d/log/slurmctld.log
SlurmdLogFile=$d/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
MinJobAge=600
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=$mem_mb State=UNKNOWN
PartitionName=zctest Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
  export SLURM_CONF=$d/slurm.conf
  slurmctld -D -c -f "$SLURM_CONF" >>"$d/log/slurmctld.out" 2>&1 &
  ctld_pid=$!
  pids+=($ctld_pid)
  slurmd -D -f "$SLURM_CONF" >>"$d/log/slurmd.out" 2>&1 &
  slurmd_pid=$!
  pids+=($slurmd_pid)
  state=""
  for _ in $(seq 120); do
    state=$(sinfo -h -o %t 2>/dev/null | head -n1)
    [ "$state" = idle ] && return 0
    kill -0 "$slurmd_pid" 2>/dev/null && kill -0 "$ctld_pid" 2>/dev/null || break
    sleep 0.5
  done
  return 1
}
# A port taken between the look and the start, or a slow start: once more.
if ! start_cluster; then
  echo "slurm: the cluster did not come up (node state '${state:-none}'); once more"
  kill "$slurmd_pid" "$ctld_pid" 2>/dev/null
  wait "$slurmd_pid" "$ctld_pid" 2>/dev/null
  rm -rf "${d:?}/state" "${d:?}/spool" && mkdir -p "$d/state" "$d/spool"
  start_cluster ||
    { show_logs; skip "the one-node cluster did not come up (node state '${state:-none}')"; }
fi
echo "slurm: one node ($host, $(nproc) CPUs) up on ports $ctld_port/$slurmd_port"

# The sweep: 2 traces x 4 page-cache sizes x 4 capacities = 8 jobs.
args=(--page-cache 500,1000,2000,4000 --capacity 0,256K,1M,4M
  --cpu-price put=6us,get=7us --memo 64M
  "$traces/build-c.zca" "$traces/sqlite-oltp.zca")
plan=$tmp/plan
"$sweep" --plan "$plan" "${args[@]}" >"$tmp/plan.out" || bad "--plan failed"
grep -q '^  "jobs": 8,$' "$plan/manifest.json" || bad "the plan has not 8 jobs: $(cat "$tmp/plan.out")"

# Wait until the jobs given have left the queue (at most $2 s).
wait_jobs() {
  local left
  for _ in $(seq $(($2 * 2))); do
    left=$(squeue -h -j "$1" -o %i 2>/dev/null | wc -l)
    [ "$left" = 0 ] && return 0
    sleep 0.5
  done
  return 1
}
submitted() { # the job ids of slurm-sweep.sh's "follow:" line
  sed -n 's/^follow:  squeue -j \([0-9,]*\)$/\1/p' "$1"
}
t0=$(date +%s)
bash "$scripts/slurm-sweep.sh" --sweep "$sweep" "$plan" >"$tmp/submit.out" 2>&1 ||
  bad "slurm-sweep.sh failed: $(cat "$tmp/submit.out")"
ids=$(submitted "$tmp/submit.out")
[ -n "$ids" ] || bad "slurm-sweep.sh printed no job ids: $(cat "$tmp/submit.out")"
wait_jobs "$ids" 900 || { show_logs; bad "the jobs $ids did not end in 900 s"; }
echo "slurm: 8 jobs and the merge ran in $(($(date +%s) - t0)) s"

# Every job's log ends with its one-line summary; the merge wrote all three.
for n in 0 1 2 3 4 5 6 7; do
  grep -q "job $n of 8 (.*): done in" "$plan/logs/job-$n.log" 2>/dev/null ||
    bad "job $n's log has no summary: $(cat "$plan/logs/job-$n.log" 2>&1)"
done
for f in result.txt result.csv result.json; do
  [ -s "$plan/$f" ] || bad "the merge job wrote no $f: $(cat "$plan/logs/merge.log" 2>&1)"
done

# A local run of the same sweep: equal but for the timing columns.
t0=$(date +%s)
"$sweep" "${args[@]}" --output text >"$tmp/local.txt" || bad "local run failed"
echo "local: the same sweep in $(($(date +%s) - t0)) s on one machine"
"$sweep" "${args[@]}" --output csv >"$tmp/local.csv" || bad "local run failed"
"$sweep" "${args[@]}" --output json >"$tmp/local.json" || bad "local run failed"
cmp -s "$tmp/local.txt" "$plan/result.txt" ||
  bad "text differs: $(diff "$tmp/local.txt" "$plan/result.txt" | head -n 6)"
[ "$(csv_untimed "$tmp/local.csv")" = "$(csv_untimed "$plan/result.csv")" ] ||
  bad "CSV differs: $(diff <(csv_untimed "$tmp/local.csv") <(csv_untimed "$plan/result.csv") | head -n 4)"
[ "$(json_untimed "$tmp/local.json")" = "$(json_untimed "$plan/result.json")" ] ||
  bad "JSON differs"
rows=$(($(wc -l <"$plan/result.csv") - 1))
[ "$rows" = 32 ] || bad "the merged CSV has $rows rows, not 32"
# and the timing columns are there, and not all zero (not dropped by both)
grep -q '"compress_ns":[1-9]' "$plan/result.json" || bad "no compression time in the merge"

# A lost job: --merge names it; --only submits it alone, and a new merge
# job writes the same table again.
rm -f "$plan/results/job-5.rows" "$plan/result.csv"
expect 1 "missing (never ran, still running, or killed): 5$" "$sweep" --merge "$plan"
bash "$scripts/slurm-sweep.sh" --only 5 --sweep "$sweep" "$plan" >"$tmp/submit2.out" 2>&1 ||
  bad "slurm-sweep.sh --only 5 failed: $(cat "$tmp/submit2.out")"
grep -q "1 of 8 jobs (5)" "$tmp/submit2.out" || bad "--only 5: $(cat "$tmp/submit2.out")"
ids=$(submitted "$tmp/submit2.out")
wait_jobs "$ids" 600 || bad "job 5 again did not end"
[ "$(csv_untimed "$tmp/local.csv")" = "$(csv_untimed "$plan/result.csv")" ] ||
  bad "CSV after job 5 ran again differs"

[ $fail = 0 ] || { show_logs; exit 1; }
echo "the merged table:"
cat "$plan/result.txt"
echo "slurm_sweep: ok (8 jobs, 32 rows, merged through Slurm equal to the local run; a lost job resubmitted)"
