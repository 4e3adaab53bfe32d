#!/usr/bin/env bash
# slurm-sweep.sh - submit a zcache-sweep plan to Slurm: the jobs as one job
# array (one CPU-bound task a job, its memory from the plan's estimate) and
# a merge job that runs when every task has succeeded.
#
#   zcache-sweep --plan DIR [SWEEP OPTIONS] TRACE...
#   scripts/slurm-sweep.sh [OPTIONS] DIR
#
# What it assumes of the cluster (README: Many traces, many machines):
#   - DIR, the traces, their content packs and the directory the plan was
#     made in are on a file system every node sees, at the same paths;
#   - the zcache-sweep binary (--sweep) is at the same path on every node,
#     and its libraries (liblzo2, libzstd, liblz4) are installed there or
#     loaded by --setup (e.g. --setup 'module load lzo zstd');
#   - sbatch and squeue on this host; scontrol, when there, tells the
#     cluster's MaxArraySize (arrays are split to stay under it).
# Each task writes DIR/logs/job-N.log (its progress line and summary) and
# DIR/results/job-N.rows; the merge writes DIR/result.txt, result.csv and
# result.json (and the plan's --plot files).  A failed task cancels the
# merge: run `zcache-sweep --merge DIR` to list what is missing, then
# submit those again with --only LIST.
# SPDX-License-Identifier: GPL-2.0-or-later
set -euo pipefail

me=slurm-sweep.sh
usage() {
  cat <<EOF
usage: scripts/$me [OPTIONS] PLAN_DIR

Submits the jobs of a plan made by 'zcache-sweep --plan PLAN_DIR ...' as a
Slurm job array, and a merge job that runs after all of them succeed.

  --sweep PATH       the zcache-sweep every node runs (default: \$ZC_SWEEP, else
                     zcache-sweep on PATH, else build/tools/zcache-sweep here)
  --cpus N           CPUs per task, the job's threads (default 1)
  --mem MB           memory per task in MiB (default: the plan's estimate)
  --time T           time limit per task (sbatch --time), e.g. 2:00:00
  --partition P      --account A      --qos Q      (passed to sbatch)
  --only LIST        submit only these jobs, e.g. 3,7-9 (as --merge lists them)
  --max-running K    at most K tasks of an array at once (per array, when the
                     plan is cut into several under MaxArraySize)
  --setup LINE       a shell line every task runs first (module load ...)
  --dry-run          write the job scripts and print the sbatch commands only
  --help
EOF
}
die() {
  echo "$me: $*" >&2
  exit 2
}

sweep=${ZC_SWEEP:-} cpus=1 mem="" time_limit="" only="" max_running="" setup=""
dry=0 plan=""
extra=()
while [ $# -gt 0 ]; do
  case $1 in
    --help | -h)
      usage
      exit 0
      ;;
    --dry-run)
      dry=1
      shift
      continue
      ;;
    --sweep | --cpus | --mem | --time | --partition | --account | --qos | \
      --only | --max-running | --setup)
      [ $# -ge 2 ] || die "$1 needs a value"
      ;;
    -*) die "unknown option '$1' (--help lists them)" ;;
    *)
      [ -z "$plan" ] || die "one plan directory at a time ('$plan', '$1')"
      plan=$1
      shift
      continue
      ;;
  esac
  case $1 in
    --sweep) sweep=$2 ;;
    --cpus) cpus=$2 ;;
    --mem) mem=$2 ;;
    --time) time_limit=$2 ;;
    --partition | --account | --qos) extra+=("$1=$2") ;;
    --only) only=$2 ;;
    --max-running) max_running=$2 ;;
    --setup) setup=$2 ;;
  esac
  shift 2
done
[ -n "$plan" ] || {
  usage >&2
  exit 2
}
is_count() { [[ $1 =~ ^[1-9][0-9]{0,8}$ ]]; } # 1 to 999999999
is_count "$cpus" && [ "$cpus" -le 64 ] || die "--cpus $cpus: want 1 to 64"
[ -z "$mem" ] || is_count "$mem" || die "--mem $mem: want MiB, 1 to 999999999"
[ -z "$max_running" ] || is_count "$max_running" ||
  die "--max-running $max_running: want a whole number above 0"
[[ $setup != *$'\n'* ]] || die "--setup: one line"

# The plan, by absolute path (the tasks run elsewhere).  Its path goes into
# job scripts and sbatch's --output patterns: control characters, '%'
# (sbatch's pattern letters) and '\' are refused rather than escaped.
# zcache-sweep --plan holds the same rule (sweep_plan.c: slurm_refusal()),
# and prints no command for a plan this refuses: change them together.
plain_path() { [[ $1 != *[[:cntrl:]%\\]* ]]; }
plain_path "$plan" || die "$(printf '%q' "$plan"): a plan path with control characters, '%' or '\\': move the plan"
[ -d "$plan" ] || die "$plan: no such directory (make it with zcache-sweep --plan)"
plan=$(cd "$plan" && pwd -P)
plain_path "$plan" || die "$(printf '%q' "$plan"): a plan path with control characters, '%' or '\\': move the plan"
[ -f "$plan/plan.args" ] && [ -f "$plan/manifest.json" ] ||
  die "$plan: not a plan (no plan.args and manifest.json: zcache-sweep --plan makes them)"
# manifest.json's "jobs" and "memory_mb", each on a line of its own
field() {
  sed -n "s/^  \"$1\": \\([0-9][0-9]*\\),\$/\\1/p" "$plan/manifest.json"
}
njobs=$(field jobs)
est_mb=$(field memory_mb)
is_count "${njobs:-x}" || [ "${njobs:-}" = 0 ] ||
  die "$plan/manifest.json: no \"jobs\" count"
[ "$njobs" -gt 0 ] || die "$plan: the plan has no jobs"
[ -n "$mem" ] || mem=$est_mb
is_count "${mem:-x}" || die "$plan/manifest.json: no \"memory_mb\" (give --mem)"

# The binary every node runs: an absolute path, and it must be this plan's.
if [ -z "$sweep" ]; then
  if command -v zcache-sweep >/dev/null; then
    sweep=$(command -v zcache-sweep)
  else
    sweep=$(cd "$(dirname "$0")/.." && pwd -P)/build/tools/zcache-sweep
  fi
fi
[ -f "$sweep" ] && [ -x "$sweep" ] || die "$sweep: no zcache-sweep there (--sweep PATH, or build it)"
case $sweep in /*) ;; *) sweep=$(cd "$(dirname "$sweep")" && pwd -P)/$(basename "$sweep") ;; esac
plain_path "$sweep" || die "$(printf '%q' "$sweep"): a binary path with control characters, '%' or '\\'"
made_by=$(sed -n 's/^libzcache [0-9]*:\(.*\)$/\1/p' "$plan/plan.args")
runs=$("$sweep" --version | sed -n 's/.*(libzcache \(.*\))$/\1/p')
[ "$made_by" = "$runs" ] ||
  die "$sweep is libzcache ${runs:-?}, the plan was made by ${made_by:-?}: use the build that made it"

# The job numbers to submit: all, or --only's list (within the plan).
if [ -z "$only" ]; then
  list=()
  for ((n = 0; n < njobs; n++)); do list+=("$n"); done
else
  list=()
  [ -n "${only//[ ,]/}" ] || die "--only '$only': no job in it"
  IFS=, read -r -a parts <<<"${only// /}"
  for p in "${parts[@]}"; do
    # at most 9 digits: bash's integers wrap silently past 2^63
    if [[ $p =~ ^([0-9]{1,9})-([0-9]{1,9})$ ]]; then
      a=$((10#${BASH_REMATCH[1]})) b=$((10#${BASH_REMATCH[2]}))
    elif [[ $p =~ ^[0-9]{1,9}$ ]]; then
      a=$((10#$p)) b=$a
    else
      die "--only $only: want job numbers and ranges, e.g. 3,7-9"
    fi
    [ "$a" -le "$b" ] && [ "$b" -lt "$njobs" ] ||
      die "--only $only: '$p' is not within the plan's jobs 0 to $((njobs - 1))"
    for ((n = a; n <= b; n++)); do list+=("$n"); done
  done
  # in order, each once: the arrays below are cut from a sorted list
  mapfile -t list < <(printf '%s\n' "${list[@]}" | sort -n -u)
fi

# Arrays stay under the cluster's MaxArraySize (task ids 0 .. max-1): job
# numbers are cut into chunks, each an array with an offset.
max_array=1001
if command -v scontrol >/dev/null; then
  m=$(scontrol show config 2>/dev/null |
    sed -n 's/^MaxArraySize *= *\([0-9]*\).*/\1/p' || true)
  if is_count "${m:-x}"; then max_array=$m; fi
fi

mkdir -p "$plan/logs" "$plan/slurm"
q() { printf '%q' "$1"; }
# One task: job OFFSET + SLURM_ARRAY_TASK_ID, its output in logs/job-N.log.
cat >"$plan/slurm/task.sh" <<EOF
#!/usr/bin/env bash
# A task of the job array of $(q "$plan") (written by $me).
set -eu
${setup}
n=\$((\${ZC_JOB_OFFSET:-0} + SLURM_ARRAY_TASK_ID))
exec >$(q "$plan")/logs/job-\$n.log 2>&1
echo "job \$n on \$(hostname) (Slurm job \${SLURM_JOB_ID:-?}, \${SLURM_CPUS_PER_TASK:-1} CPUs)"
exec $(q "$sweep") --run-job $(q "$plan") "\$n"
EOF
# The merge: every output, each written whole before it is renamed.
cat >"$plan/slurm/merge.sh" <<EOF
#!/usr/bin/env bash
# The merge of $(q "$plan") (written by $me).
set -eu
${setup}
cd $(q "$plan")
for f in text csv json; do
  case \$f in text) out=result.txt ;; *) out=result.\$f ;; esac
  $(q "$sweep") --merge $(q "$plan") --output "\$f" >"\$out.tmp"
  mv -f "\$out.tmp" "\$out"
done
echo merged: $(q "$plan/result.txt")
EOF
chmod +x "$plan/slurm/task.sh" "$plan/slurm/merge.sh"

shared=("${extra[@]}")
[ -z "$time_limit" ] || shared+=(--time="$time_limit")
common=(--parsable --cpus-per-task="$cpus" "${shared[@]}")
submit() { # LABEL SBATCH-ARGS...: prints the job id (dry run: LABEL)
  local label=$1
  shift
  if [ "$dry" = 1 ]; then
    printf 'would run: sbatch' >&2
    printf ' %q' "$@" >&2
    printf '\n' >&2
    echo "$label"
  else
    local out
    if ! out=$(sbatch "$@" 2>&1); then
      # what went in already must not run without its merge
      if [ ${#ids[@]} -gt 0 ]; then
        if command -v scancel >/dev/null && scancel "${ids[@]}"; then
          echo "$me: cancelled the arrays submitted before: ${ids[*]}" >&2
        else
          echo "$me: the arrays submitted before still stand: ${ids[*]} (scancel them)" >&2
        fi
      fi
      die "sbatch failed: ${out:-no message}"
    fi
    out=${out%%$'\n'*}
    [[ ${out%%;*} =~ ^[0-9]+$ ]] || die "sbatch printed no job id: $out"
    echo "${out%%;*}"
  fi
}
command -v sbatch >/dev/null || [ "$dry" = 1 ] ||
  die "no sbatch on this host (run it on the cluster's login node, or --dry-run)"

# Chunks of consecutive task ids under one offset.
ids=()
i=0
while [ $i -lt ${#list[@]} ]; do
  off=$(((list[i] / max_array) * max_array))
  spec="" k=$i
  while [ $k -lt ${#list[@]} ] && [ $((list[k] - off)) -lt "$max_array" ]; do
    a=${list[k]}
    while [ $((k + 1)) -lt ${#list[@]} ] && [ "${list[k + 1]}" = $((list[k] + 1)) ] &&
      [ $((list[k + 1] - off)) -lt "$max_array" ]; do
      k=$((k + 1))
    done
    b=${list[k]}
    piece=$((a - off))
    [ "$a" = "$b" ] || piece="$piece-$((b - off))"
    spec=${spec:+$spec,}$piece
    k=$((k + 1))
  done
  [ -z "$max_running" ] || spec="$spec%$max_running"
  id=$(submit "dry-run-array-$((${#ids[@]} + 1))" "${common[@]}" --job-name=zcache-sweep --mem="${mem}M" \
    --array="$spec" --export=ALL,ZC_JOB_OFFSET=$off \
    --output="$plan/logs/slurm-%A_%a.out" "$plan/slurm/task.sh")
  ids+=("$id")
  i=$k
done
dep=$(
  IFS=:
  echo "${ids[*]}"
)
# the merge reads rows and writes tables: small, whatever the jobs took
merge=$(submit dry-run-merge --parsable "${shared[@]}" --job-name=zcache-sweep-merge \
  --cpus-per-task=1 --mem=512M --dependency="afterok:$dep" \
  --kill-on-invalid-dep=yes --output="$plan/logs/merge.log" "$plan/slurm/merge.sh")

ranges=$(printf '%s\n' "${list[@]}" | awk 'NR==1{a=b=$1;next} $1==b+1{b=$1;next}
  {printf "%s%s,", a, (a==b?"":"-" b); a=b=$1} END{printf "%s%s\n", a, (a==b?"":"-" b)}')
[ "$dry" = 0 ] || echo "$me: dry run: nothing was submitted (the job ids below stand for those sbatch would print)"
cat <<EOF
$me: $plan: ${#list[@]} of $njobs jobs ($ranges) as Slurm array job${ids[1]:+s} ${ids[*]}, ${cpus} CPU and ${mem} MiB each; merge job $merge after all succeed
follow:  squeue -j $(
  IFS=,
  echo "${ids[*]},$merge"
)
         tail $plan/logs/job-N.log     (each job's progress and summary)
         $sweep --merge $plan    (lists the jobs missing or failed)
result:  $plan/result.txt, result.csv, result.json when job $merge ends
         (a failed task cancels the merge: submit the jobs --merge lists with --only LIST)
EOF
