#!/usr/bin/env bash
# zcache-sweep's plans (tools/sweep_plan.c): a sweep cut into jobs that run
# anywhere, in any order, from any working directory, and merged into what
# a one-machine run of the same arguments writes.  The merge takes only
# whole results of this plan: a job missing, cut short, bit-flipped or of
# another plan is named and refused, never merged.  The traces are two
# small shipped ones, copied (with their packs) into a scratch directory
# and named by relative paths, so that the plan has to find them again.
# The CPU prices are fixed, so every column but the measured thread times
# (the zcache's *_ns counters) is the same in every run.
#   sweep_plan.sh SWEEP TRACES_DIR
set -u
abs() { (cd "$(dirname "$1")" && echo "$PWD/$(basename "$1")"); }
sweep=$(abs "$1") traces=$(abs "$2")
. "$(dirname "$0")/tool_test.sh"

w=$tmp/w # where the plans are made and the local runs run
elsewhere=$tmp/elsewhere # where their jobs run and merge
mkdir -p "$w/d" "$elsewhere" || exit 1
for t in build-c sqlite-oltp; do
  cp "$traces/$t.zca" "$traces/$t.zcp" "$w/d/" || exit 1
done
# (page caches where every row's zcache compresses, few enough evictions
# for a sanitizer build)
args=(--page-cache 2000,4000 --capacity 0,1M --cpu-price put=6us,get=7us
  --memo 64M)
two=(d/build-c.zca d/sqlite-oltp.zca)

# from DIR CMD...: CMD run in DIR.
from() { (cd "$1" && shift && exec "$@"); }
# same WHAT A B: files A and B are equal, or a FAIL line with their diff.
same() {
  cmp -s "$2" "$3" || bad "$1: $(diff "$2" "$3" | head -4 | cut -c1-240)"
}
# The value of a number key of manifest.json (jq may be absent).
manifest_num() {
  sed -n "s/^  \"$2\": \([0-9]*\),\$/\1/p" "$1/manifest.json"
}
# The jobs missing that --merge DIR lists (its last expect()'s stderr).
missing() { sed -n 's/.*; missing (never ran, still running, or killed): //p' "$tmp/err"; }

# Two traces at two page-cache sizes: four jobs, said on standard output
# and in manifest.json; nothing runs.
cd "$w" || exit 1
"$sweep" --plan plan "${args[@]}" "${two[@]}" >"$tmp/plan.out" 2>"$tmp/err" ||
  bad "--plan: $(cat "$tmp/err")"
grep -q "^plan plan: 4 jobs (2 traces, 8 rows)" "$tmp/plan.out" ||
  bad "--plan of 2 traces x 2 page caches: $(head -1 "$tmp/plan.out")"
grep -q "(N = 0 \.\. 3)" "$tmp/plan.out" || bad "--plan: $(cat "$tmp/plan.out")"
cp "$tmp/plan.out" "$tmp/plan0.out"
[ "$(manifest_num plan jobs)" = 4 ] && [ "$(manifest_num plan traces)" = 2 ] &&
  [ "$(manifest_num plan rows)" = 8 ] ||
  bad "manifest.json: jobs $(manifest_num plan jobs), traces $(manifest_num plan traces)"
[ -z "$(ls plan/results)" ] || bad "--plan ran jobs: $(ls plan/results)"
cd "$elsewhere" || exit 1
plan=../w/plan # jobs and merges from elsewhere, by a relative path

# A directory that holds a plan is not planned over.
sum0=$(cat "$w/plan/plan.args" "$w/plan/fingerprint" | cksum)
expect 2 "plan: holds a plan already" from "$w" "$sweep" --plan plan \
  --page-cache 500 d/build-c.zca
[ "$(cat "$w/plan/plan.args" "$w/plan/fingerprint" | cksum)" = "$sum0" ] ||
  bad "a refused --plan changed the plan there"

# The merge of a plan not run lists every job; of one half run, the
# others; and writes nothing, neither output nor plot.
expect 1 "4 of 4 jobs not done" "$sweep" --merge "$plan" --plot "$tmp/none"
[ "$(missing)" = "0-3" ] || bad "--merge before any job: missing '$(missing)', not '0-3'"
[ ! -s "$tmp/out" ] && ! compgen -G "$tmp/none*" >/dev/null ||
  bad "--merge of no jobs wrote: $(head -c 200 "$tmp/out") $(compgen -G "$tmp/none*")"
# (two at once: jobs share the plan, nothing else)
"$sweep" --run-job "$plan" 0 2>"$tmp/err0" & p0=$!
"$sweep" --run-job "$plan" 2 2>"$tmp/err2" & p2=$!
wait "$p0" || bad "--run-job 0: $(cat "$tmp/err0")"
wait "$p2" || bad "--run-job 2: $(cat "$tmp/err2")"
grep -q "job 0 of 4 (d/build-c.zca, page cache 2000 pages, 2 rows): done" \
  "$tmp/err0" || bad "--run-job 0 said: $(cat "$tmp/err0")"
expect 1 "2 of 4 jobs not done" "$sweep" --merge "$plan"
[ "$(missing)" = "1, 3" ] || bad "--merge after jobs 0 and 2: missing '$(missing)', not '1, 3'"
[ ! -s "$tmp/out" ] || bad "--merge of half the jobs wrote: $(head -c 200 "$tmp/out")"
"$sweep" --run-job "$plan" 1 --jobs 2 2>"$tmp/err" || bad "--run-job 1: $(cat "$tmp/err")"
"$sweep" --run-job "$plan" 3 --jobs 2 2>"$tmp/err" || bad "--run-job 3: $(cat "$tmp/err")"

# The merge from elsewhere writes what a local run from where the plan
# was made writes: text the same, CSV, JSON and plots the same but for the
# timings; the plot's script too, written for the same prefix.
P=$w/plots/x
mkdir -p "$w/plots"
"$sweep" --merge "$plan" --output csv --plot "$P" >"$tmp/m.csv" 2>"$tmp/err" ||
  bad "--merge --output csv --plot: $(cat "$tmp/err")"
mv "$w/plots" "$w/mplots"
mkdir -p "$w/plots"
"$sweep" --merge "$plan" >"$tmp/m.txt" 2>"$tmp/err" || bad "--merge: $(cat "$tmp/err")"
"$sweep" --merge "$plan" --output json >"$tmp/m.json" 2>"$tmp/err" ||
  bad "--merge --output json: $(cat "$tmp/err")"
cd "$w" || exit 1
"$sweep" "${args[@]}" "${two[@]}" --output csv --plot "$P" >"$tmp/l.csv" \
  2>"$tmp/err" || bad "local --output csv --plot: $(cat "$tmp/err")"
"$sweep" "${args[@]}" "${two[@]}" >"$tmp/l.txt" 2>"$tmp/err" ||
  bad "local: $(cat "$tmp/err")"
"$sweep" "${args[@]}" "${two[@]}" --output json >"$tmp/l.json" 2>"$tmp/err" ||
  bad "local --output json: $(cat "$tmp/err")"
cd "$elsewhere" || exit 1
[ "$(wc -l <"$tmp/l.csv")" = 9 ] || bad "local CSV: $(wc -l <"$tmp/l.csv") lines, not 9"
csv_untimed "$tmp/l.csv" >"$tmp/l.nons.csv"
[ $(($(csv_width "$tmp/l.csv" 0) - $(csv_width "$tmp/l.nons.csv" 0))) = 4 ] ||
  bad "the CSV's timing columns are not the four *_ns"
same "--merge text and a local run" "$tmp/m.txt" "$tmp/l.txt"
csv_untimed "$tmp/m.csv" >"$tmp/m.nons.csv"
same "--merge --output csv and a local run (timings aside)" "$tmp/m.nons.csv" "$tmp/l.nons.csv"
json_untimed "$tmp/m.json" >"$tmp/m.nons.json"
json_untimed "$tmp/l.json" >"$tmp/l.nons.json"
grep -q '_ns' "$tmp/l.nons.json" &&
  bad "JSON timing keys left: $(grep -o '"[a-z_]*_ns[a-z_]*"' "$tmp/l.nons.json" | sort -u)"
grep -q '"compressions":[1-9]' "$tmp/l.nons.json" || bad "local JSON: no zcache compressed"
same "--merge --output json and a local run (timings aside)" "$tmp/m.nons.json" "$tmp/l.nons.json"
n=0
for f in "$w"/plots/x-*; do
  b=${f##*/}
  case $b in
    *.dat | *.gp) same "plot $b" "$w/mplots/$b" "$f" ;;
    *.csv)
      csv_untimed "$f" >"$tmp/l.p.csv"
      csv_untimed "$w/mplots/$b" >"$tmp/m.p.csv"
      same "plot $b (timings aside)" "$tmp/m.p.csv" "$tmp/l.p.csv"
      ;;
    *) continue ;;
  esac
  n=$((n + 1))
done
[ "$n" = 6 ] || bad "plots: $n of x-{build-c,sqlite-oltp}.zca.{csv,dat,gp}: $(ls "$w/plots")"
# A relative --plot is taken from where the merge runs, not the plan's
"$sweep" --merge "$plan" --plot rel >/dev/null 2>"$tmp/err" ||
  bad "--merge --plot rel: $(cat "$tmp/err")"
[ -f rel-build-c.zca.dat ] && cmp -s rel-build-c.zca.dat "$w/plots/x-build-c.zca.dat" ||
  bad "--merge --plot rel from elsewhere: $(ls)"

# A job run again (its old rows gone) makes the same rows but for the
# timings, and leaves only whole results behind.
csv_nspos=$(head -1 "$tmp/l.csv" | tr , '\n' | grep '^zcache\.' | grep -n '_ns' |
  cut -d: -f1 | tr '\n' ' ')
[ "$csv_nspos" = "30 31 32 38 " ] || bad "the zcache's timing fields are at $csv_nspos"
# The rows with the timings masked: the "zs" line is the zcache's counters
# in the order of the CSV's zcache.* columns (one field list); the "end"
# line's checksum covers them, so it goes too.
rows_nons() {
  awk -v pos="$csv_nspos" 'BEGIN { n = split(pos, p, " ") }
    $1 == "zs" { for (i = 1; i <= n; i++) $(p[i] + 1) = "-" }
    $1 == "end" { $3 = "-" } { print }' "$1"
}
res=$w/plan/results
mv "$res/job-0.rows" "$tmp/job-0.first"
"$sweep" --run-job "$plan" 0 --jobs 2 2>"$tmp/err" || bad "--run-job 0 again: $(cat "$tmp/err")"
rows_nons "$tmp/job-0.first" >"$tmp/j0.a"
rows_nons "$res/job-0.rows" >"$tmp/j0.b"
grep -q '^zs [1-9]' "$tmp/j0.a" || bad "job 0's rows: no zcache row: $(head -20 "$tmp/j0.a")"
same "job 0 run twice (timings aside)" "$tmp/j0.a" "$tmp/j0.b"
"$sweep" --merge "$plan" --output csv >"$tmp/m2.csv" 2>"$tmp/err" ||
  bad "--merge after job 0 again: $(cat "$tmp/err")"
csv_untimed "$tmp/m2.csv" >"$tmp/m2.nons.csv"
same "--merge after job 0 ran again (timings aside)" "$tmp/m2.nons.csv" "$tmp/m.nons.csv"
[ "$(ls "$res" | tr '\n' ' ')" = "job-0.rows job-1.rows job-2.rows job-3.rows " ] ||
  bad "results/ holds more than the jobs' rows: $(ls -a "$res")"

# Rows that are not this job's whole rows: refused naming the job, exit
# 1, nothing written.  refused WHAT: job 1's file as it is now.
cp "$res/job-1.rows" "$tmp/job-1.good"
refused() {
  expect 1 "job 1: .*job-1.rows" "$sweep" --merge "$plan" --output csv
  [ ! -s "$tmp/out" ] || bad "$1: --merge wrote $(wc -l <"$tmp/out") lines"
  cp "$tmp/job-1.good" "$res/job-1.rows"
}
# cut in the middle
head -c $(($(wc -c <"$tmp/job-1.good") / 2)) "$tmp/job-1.good" >"$res/job-1.rows"
refused "job-1.rows cut in half"
# ... or just before its end
head -c $(($(wc -c <"$tmp/job-1.good") - 2)) "$tmp/job-1.good" >"$res/job-1.rows"
refused "job-1.rows without its last bytes"
# one bit flipped in a count (the last digit of the first row's requests:
# still a number, another one)
at=$(awk '$1 == "st" { print off + length("st ") + length($2) - 1; exit }
  { off += length($0) + 1 }' "$tmp/job-1.good")
b=$(od -An -tu1 -j "$at" -N1 "$tmp/job-1.good" | tr -d ' ')
# shellcheck disable=SC2059
printf "$(printf '\\%03o' $((b ^ 1)))" |
  dd of="$res/job-1.rows" bs=1 seek="$at" conv=notrunc status=none
cmp -s "$res/job-1.rows" "$tmp/job-1.good" && bad "the bit flip changed nothing"
refused "job-1.rows with one bit flipped in a count"
# another job's rows under its name
cp "$res/job-0.rows" "$res/job-1.rows"
refused "job-0.rows as job-1.rows"
# the same job of another plan of the same arguments (another directory)
from "$w" "$sweep" --plan plan2 "${args[@]}" "${two[@]}" >/dev/null 2>"$tmp/err" ||
  bad "a second --plan: $(cat "$tmp/err")"
"$sweep" --run-job "$w/plan2" 1 --jobs 2 2>"$tmp/err" || bad "plan2 --run-job 1: $(cat "$tmp/err")"
cp "$w/plan2/results/job-1.rows" "$res/job-1.rows"
refused "plan2's job-1.rows"
"$sweep" --merge "$plan" --output csv >"$tmp/m3.csv" 2>"$tmp/err" ||
  bad "--merge with the good rows back: $(cat "$tmp/err")"
[ "$(csv_untimed "$tmp/m3.csv")" = "$(cat "$tmp/m.nons.csv")" ] ||
  bad "--merge with the good rows back differs"

# --run-job of no job, of no plan, of a plan whose trace changed: exit
# 2, saying so.
expect 2 "run-job .*plan 4: the plan has jobs 0 to 3" "$sweep" --run-job "$plan" 4
expect 2 "run-job .*plan x: want a job number" "$sweep" --run-job "$plan" x
expect 2 "run-job .*plan -1: want a job number" "$sweep" --run-job "$plan" -1
expect 2 "run-job .*plan 1x: want a job number" "$sweep" --run-job "$plan" 1x
mkdir -p "$tmp/noplan"
expect 2 "noplan: no plan there" "$sweep" --run-job "$tmp/noplan" 0
expect 2 "noplan: no plan there" "$sweep" --merge "$tmp/noplan"
expect 2 "nodir: No such file" "$sweep" --run-job "$tmp/nodir" 0
mkdir -p "$w/c"
cp "$traces/build-c.zca" "$traces/build-c.zcp" "$w/c/"
from "$w" "$sweep" --plan cplan --page-cache 2000 --capacity 0 c/build-c.zca \
  >/dev/null 2>"$tmp/err" || bad "--plan of c/build-c.zca: $(cat "$tmp/err")"
touch -d 2001-01-01 "$w/c/build-c.zca" # the same bytes, another time
expect 2 "cplan: the sweep is no longer the one planned.*c/build-c.zca" \
  "$sweep" --run-job "$w/cplan" 0
expect 2 "cplan: the sweep is no longer the one planned" "$sweep" --merge "$w/cplan"
head -c 200000 "$traces/build-c.zca" >"$w/c/build-c.zca" # other bytes
expect 2 "c/build-c.zca" "$sweep" --run-job "$w/cplan" 0
# a refused job leaves its reason, never rows
[ "$(ls "$w/cplan/results")" = job-0.failed ] &&
  grep -q "no longer the one planned" "$w/cplan/results/job-0.failed" ||
  bad "a refused --run-job wrote $(ls "$w/cplan/results"): $(cat "$w/cplan/results/"* 2>&1)"

# A job that fails as it runs (a page the pack lacks, met when evicted):
# its failure is kept (job-N.failed), and the merge lists it as failed,
# not as never run or still running.
printf 'zca-text 1\nmeta page_size 4096\n0.000000001 r 7:0 999999 0 1\n0.000000002 r 7:0 141 0 1\n0.000000003 r 7:0 141 1 1\nend\n' \
  >"$w/miss.zca"
from "$w" "$sweep" --plan fplan --content "pack:$traces/grep-src.zcp" \
  --page-cache 1 --capacity 1M miss.zca >/dev/null 2>"$tmp/err" ||
  bad "--plan of miss.zca: $(cat "$tmp/err")"
expect 2 "page (dev 7340032, inode 999999, index 0) is not in it" \
  "$sweep" --run-job "$w/fplan" 0
[ -f "$w/fplan/results/job-0.failed" ] ||
  bad "a job that failed left no job-0.failed (results/: $(ls "$w/fplan/results"))"
expect 1 "fplan: 1 of 1 jobs not done" "$sweep" --merge "$w/fplan"
grep -q "failed or unreadable: 0$" "$tmp/err" && [ -z "$(missing)" ] ||
  bad "--merge of a job that failed: $(cat "$tmp/err")"

# Collections.  A directory: a trace each (its packs skipped), rows
# equal to those of the same traces named one by one.
one=(--page-cache 2000 --capacity 0 --cpu-price put=6us,get=7us --memo 64M)
grep ',2000,lru,"off",' "$tmp/m.csv" >"$tmp/off.csv"
[ "$(wc -l <"$tmp/off.csv")" = 2 ] ||
  bad "the plan's rows at 2000 pages without a zcache: $(cat "$tmp/off.csv")"
from "$w" "$sweep" --plan dplan "${one[@]}" d >"$tmp/plan.out" 2>"$tmp/err" ||
  bad "--plan of a directory: $(cat "$tmp/err")"
grep -q "^plan dplan: 2 jobs (2 traces, 2 rows)" "$tmp/plan.out" &&
  [ "$(manifest_num "$w/dplan" jobs)" = 2 ] ||
  bad "--plan of a directory: $(head -1 "$tmp/plan.out")"
for j in 0 1; do
  "$sweep" --run-job "$w/dplan" $j 2>"$tmp/err" || bad "dplan --run-job $j: $(cat "$tmp/err")"
done
"$sweep" --merge "$w/dplan" --output csv >"$tmp/d.csv" 2>"$tmp/err" ||
  bad "dplan --merge: $(cat "$tmp/err")"
tail -n +2 "$tmp/d.csv" >"$tmp/d.rows"
same "a directory's rows and its traces' named" "$tmp/d.rows" "$tmp/off.csv"
# A manifest with paths relative to its directory, the plan made, run and
# merged in three other directories (its order is the manifest's).
mkdir -p "$w/lists" "$tmp/third"
printf '# two traces, from this directory\n../d/sqlite-oltp.zca  # the first\n\n../d/build-c.zca\n' \
  >"$w/lists/two.txt"
"$sweep" --plan mplan "${one[@]}" --manifest ../w/lists/two.txt \
  >"$tmp/plan.out" 2>"$tmp/err" || bad "--plan --manifest: $(cat "$tmp/err")"
grep -q "^plan mplan: 2 jobs (2 traces, 2 rows)" "$tmp/plan.out" ||
  bad "--plan --manifest: $(head -1 "$tmp/plan.out")"
for j in 0 1; do
  from "$w" "$sweep" --run-job "$elsewhere/mplan" $j 2>"$tmp/err" ||
    bad "mplan --run-job $j from another directory: $(cat "$tmp/err")"
done
from "$tmp/third" "$sweep" --merge ../elsewhere/mplan --output csv >"$tmp/mf.csv" \
  2>"$tmp/err" || bad "mplan --merge from a third directory: $(cat "$tmp/err")"
[ "$(csv_get "$tmp/mf.csv" 1 trace) $(csv_get "$tmp/mf.csv" 2 trace)" = \
  "../w/lists/../d/sqlite-oltp.zca ../w/lists/../d/build-c.zca" ] ||
  bad "--manifest: traces $(cut -d, -f1 "$tmp/mf.csv" | tr '\n' ' ')"
[ "$(tail -n +2 "$tmp/mf.csv" | cut -d, -f4- | sort)" = \
  "$(cut -d, -f4- "$tmp/off.csv" | sort)" ] ||
  bad "--manifest's rows are not its traces': $(cut -c1-200 "$tmp/mf.csv")"
# Op streams and other traces in one collection: refused as such first
# (not for the --page-cache that the op stream alone would refuse).
expect 2 "op streams (.zct) and traces in one sweep" "$sweep" --plan "$w/oplan" \
  "${one[@]}" "$w/d/build-c.zca" "$traces/build-c.kernel.zct"
# A relative --plot is kept from where the plan was made: the merge,
# run elsewhere, writes and names the same files.
mkdir -p "$w/pics"
from "$w" "$sweep" --plan pplan "${one[@]}" --plot pics/p d/build-c.zca \
  >/dev/null 2>"$tmp/err" || bad "--plan --plot: $(cat "$tmp/err")"
grep -q "\"$w/pics/p\"" "$w/pplan/manifest.json" ||
  bad "a relative --plot is not kept absolute: $(grep arguments "$w/pplan/manifest.json")"

# --join: one trace, one stream (two recordings: synthetic contents)
from "$w" "$sweep" --plan jplan --join --content synth "${one[@]}" d \
  >"$tmp/plan.out" 2>"$tmp/err" || bad "--plan --join: $(cat "$tmp/err")"
grep -q "^plan jplan: 1 job (1 trace, 1 row)" "$tmp/plan.out" &&
  [ "$(manifest_num "$w/jplan" traces)" = 1 ] ||
  bad "--plan --join: $(head -1 "$tmp/plan.out")"
"$sweep" --run-job "$w/jplan" 0 2>"$tmp/err" || bad "jplan --run-job 0: $(cat "$tmp/err")"
"$sweep" --merge "$w/jplan" --output csv >"$tmp/j.csv" 2>"$tmp/err" ||
  bad "jplan --merge: $(cat "$tmp/err")"
[ "$(wc -l <"$tmp/j.csv")" = 2 ] &&
  [ "$(csv_get "$tmp/j.csv" 1 trace)" = "d/build-c.zca d/sqlite-oltp.zca" ] &&
  [ "$(csv_get "$tmp/j.csv" 1 accesses)" = \
    "$(($(csv_get "$tmp/d.csv" 1 accesses) + $(csv_get "$tmp/d.csv" 2 accesses)))" ] ||
  bad "--join: $(cut -c1-200 "$tmp/j.csv")"

# Adaptive rows whose CPU prices are measured, not given: the plan
# measures them once, when it is made, and records them with where they
# came from (plan.args, manifest.json); its jobs weigh those, not what
# their own runs would measure, so that the merge is what a local run
# weighing the same prices gives (compared in this run: the prices are
# timings).  A local run measures them once too, before its rows run.
# (Prices matter here: weighed at 1 ns the adaptive row differs.)
counters() { # a CSV without what timings make (the *_ns and *_ms columns)
  csv_untimed "$1" | awk "$csv_awk"'
    NR == 1 { n = split_csv($0, h); for (i = 1; i <= n; i++) keep[i] = h[i] !~ /_ms$/ }
    { n = split_csv($0, f); s = ""
      for (i = 1; i <= n; i++) if (keep[i]) s = s "," f[i]
      print substr(s, 2) }'
}
# (the quick tier: one controller; the full one two, which share a pair)
ctls=$(scaled model,arc model)
nctl=$(tr , '\n' <<<"$ctls" | wc -l)
adaptive=(--memory 2M --share 0,30 "--adaptive=$ctls" --memo 64M)
from "$w" "$sweep" --plan aplan "${adaptive[@]}" --adapt epoch=256 d/build-c.zca \
  >/dev/null 2>"$tmp/err" || bad "--plan --adaptive: $(cat "$tmp/err")"
grep -q '^from [0-9]*:measured on .* before any row ran' "$w/aplan/plan.args" &&
  grep -q '"prices_from": "measured on ' "$w/aplan/manifest.json" ||
  bad "no measured prices' origin in the plan: $(grep -a '^from\|^price' "$w/aplan/plan.args")"
prices=$(sed -n 's/^price \([0-9]*\) \([0-9]*\) \([0-9]*\) 1$/\1 \2 \3/p' "$w/aplan/plan.args")
read -r _ put get <<<"$prices"
[ "$(wc -l <<<"$prices")" = "$nctl" ] && [ "$put" -gt 0 ] && [ "$get" -gt 0 ] &&
  [ "$(cut -d' ' -f2- <<<"$prices" | sort -u)" = "$put $get" ] ||
  bad "the plan's prices: '$prices' (want one measured pair for the $nctl adaptive rows)"
for ((j = 0; j < $(manifest_num "$w/aplan" jobs); j++)); do
  "$sweep" --run-job "$w/aplan" $j 2>"$tmp/err" || bad "aplan --run-job $j: $(cat "$tmp/err")"
done
"$sweep" --merge "$w/aplan" --output csv >"$tmp/am.csv" 2>"$tmp/err" ||
  bad "aplan --merge: $(cat "$tmp/err")"
"$sweep" --merge "$w/aplan" >"$tmp/am.txt" 2>"$tmp/err" || bad "aplan --merge: $(cat "$tmp/err")"
grep -q "measured once, before the rows ran: put .*--adapt put=${put}ns,get=${get}ns" \
  <(tr '\n' ' ' <"$tmp/am.txt") || bad "aplan's merge does not say its prices: $(tail -12 "$tmp/am.txt")"
from "$w" "$sweep" "${adaptive[@]}" --adapt "epoch=256,put=${put}ns,get=${get}ns" \
  --output csv d/build-c.zca >"$tmp/al.csv" 2>"$tmp/err" || bad "local --adaptive: $(cat "$tmp/err")"
[ "$(csv_get "$tmp/am.csv" 3 adaptive) $(csv_get "$tmp/am.csv" $((2 + nctl)) adaptive)" = \
  "true true" ] || bad "aplan's rows: $(cut -c1-100 "$tmp/am.csv")"
same "--merge of measured adaptive prices and a local run weighing them" \
  <(counters "$tmp/am.csv") <(counters "$tmp/al.csv")
from "$w" "$sweep" "${adaptive[@]}" --adapt epoch=256,put=1ns,get=1ns \
  --output csv d/build-c.zca >"$tmp/a1.csv" 2>"$tmp/err" || bad "local at 1 ns: $(cat "$tmp/err")"
[ "$(csv_get "$tmp/a1.csv" 3 disk_reads)" != "$(csv_get "$tmp/am.csv" 3 disk_reads)" ] ||
  bad "the adaptive row does not depend on its prices: the check above says nothing"
from "$w" "$sweep" "${adaptive[@]}" --adapt epoch=256 d/build-c.zca >"$tmp/al.txt" \
  2>"$tmp/err" || bad "local --adaptive, prices measured: $(cat "$tmp/err")"
grep -q "measured once, before the rows ran: put [0-9.]* us, get [0-9.]* us;" "$tmp/al.txt" ||
  bad "a local run's measured prices: $(tail -12 "$tmp/al.txt")"

# A job makes its own rows and opens its own trace, no other: of a plan
# of three traces, job 2 (the third's) runs while the first one's bytes
# are no trace any more (its size and time kept, so that no fingerprint
# sees it); its own job, and the merge, which reads every trace, say so.
mkdir -p "$w/s"
for i in 1 2 3; do
  {
    printf 'zca-text 1\nmeta page_size 4096\n'
    for k in $(seq 1 20); do printf '0.%09d r 7:0 %d %d 1\n' "$k" "$i" $((k % 7)); done
    echo end
  } >"$w/s/t$i.zca"
done
from "$w" "$sweep" --plan splan --page-cache 8 --capacity 0,1M --memo 64M \
  --content synth s/t1.zca s/t2.zca s/t3.zca >/dev/null 2>"$tmp/err" ||
  bad "--plan of three traces: $(cat "$tmp/err")"
printf '%*s' "$(wc -c <"$w/s/t1.zca")" '' | tr ' ' x >"$w/s/t1.new"
touch -r "$w/s/t1.zca" "$w/s/t1.new"
mv "$w/s/t1.new" "$w/s/t1.zca"
"$sweep" --run-job "$w/splan" 2 2>"$tmp/err" ||
  bad "job 2 with another job's trace broken: $(cat "$tmp/err")"
grep -q "job 2 of 3 (s/t3.zca, page cache 8 pages, 2 rows): done" "$tmp/err" ||
  bad "job 2 said: $(cat "$tmp/err")"
expect 2 "s/t1.zca" "$sweep" --run-job "$w/splan" 0
expect 2 "s/t1.zca" "$sweep" --merge "$w/splan"

# A blktrace capture is one file per CPU: every one of them is in the
# fingerprint (a CPU's file changed, or one more, is a changed trace).
le() { # VALUE BYTES: little-endian (printf -v: no subshell per byte)
  local v=$1 n=$2 i s="" x
  for ((i = 0; i < n; i++)); do
    printf -v x '\\x%02x' $((v & 255))
    s+=$x
    v=$((v >> 8))
  done
  printf "%b" "$s"
}
blk() { # FILE CPU N FIRST_SECTOR: N queued 4 KiB reads
  local i
  for ((i = 0; i < $3; i++)); do
    le $((0x65617407)) 4; le "$i" 4; le $((1000 * (i + 1) + $2)) 8
    le $(($4 + 8 * (i % 40))) 8; le 4096 4; le 1 4; le 1 4
    le $((8 << 20)) 4; le "$2" 4; le 0 2; le 0 2
  done >"$1"
}
mkdir -p "$w/bt"
blk "$w/bt/cap.blktrace.0" 0 60 0
blk "$w/bt/cap.blktrace.1" 1 60 4096
from "$w" "$sweep" --plan bplan --page-cache 8,64 --capacity 0 --memo 64M \
  bt/cap.blktrace >/dev/null 2>"$tmp/err" || bad "--plan of a blktrace capture: $(cat "$tmp/err")"
"$sweep" --run-job "$w/bplan" 0 2>"$tmp/err" || bad "bplan --run-job 0: $(cat "$tmp/err")"
grep -q "120 accesses" "$tmp/err" || bad "bplan job 0 read not both CPUs' files: $(cat "$tmp/err")"
blk "$w/bt/cap.blktrace.1" 1 61 4096 # CPU 1 recorded once more
expect 2 "no longer the one planned.*cap.blktrace.1" "$sweep" --run-job "$w/bplan" 1
blk "$w/bt/cap.blktrace.1" 1 60 4096
touch -r "$w/bt/cap.blktrace.0" "$w/bt/cap.blktrace.1"
from "$w" "$sweep" --plan bplan2 --page-cache 8 --capacity 0 --memo 64M \
  bt/cap.blktrace >/dev/null 2>"$tmp/err" || bad "--plan bplan2: $(cat "$tmp/err")"
blk "$w/bt/cap.blktrace.2" 2 10 9000 # a third CPU's file appears
expect 2 "no longer the one planned.*cap.blktrace.2" "$sweep" --run-job "$w/bplan2" 0

# A plan's own files: plan.args edited (one option changed) is refused by
# its checksum; a FIFO or a directory where a job's rows should be is
# refused at once, never waited on or read as missing.
cp -r "$w/dplan" "$w/eplan"
sed -i 's/^arg 4:2000$/arg 4:1000/' "$w/eplan/plan.args"
grep -q '^arg 4:1000$' "$w/eplan/plan.args" || bad "the plan.args edit did not take"
expect 2 "plan.args: changed since the plan was made" "$sweep" --run-job "$w/eplan" 0
expect 2 "plan.args: changed since the plan was made" "$sweep" --merge "$w/eplan"
cp -r "$w/dplan" "$w/fifoplan"
rm -f "$w/fifoplan/results/job-1.rows"
mkfifo "$w/fifoplan/results/job-1.rows"
expect 1 "job-1.rows: not a regular file" timeout 20 "$sweep" --merge "$w/fifoplan"
rm -f "$w/fifoplan/results/job-1.rows"
mkdir "$w/fifoplan/results/job-1.rows"
expect 1 "job-1.rows: not a regular file" "$sweep" --merge "$w/fifoplan"
# What a job could not read again is refused when planning: a manifest
# that is a pipe, a results/ that is a file.
expect 2 "is no regular file: every job reads it again" "$sweep" --plan "$w/pipeplan" \
  "${one[@]}" --manifest <(echo "$w/d/build-c.zca")
mkdir -p "$w/badplan" && : >"$w/badplan/results"
expect 2 "badplan/results is there and is no directory" "$sweep" --plan "$w/badplan" \
  "${one[@]}" "$w/d/build-c.zca"
# A manifest's trace that is not there is named by its line.
printf '# one\n%s\n' "$w/d/no-such.zca" >"$w/lists/gone.txt"
expect 2 "lists/gone.txt:2: .*no-such.zca: No such file" "$sweep" "${one[@]}" \
  --manifest "$w/lists/gone.txt"
# A manifest's content= that cannot be opened is named by its line.
printf '%s content=bogus:1\n' "$w/d/build-c.zca" >"$w/lists/bad.txt"
expect 2 "lists/bad.txt:1: content=bogus:1: " "$sweep" "${one[@]}" --manifest "$w/lists/bad.txt"

# Slurm's CPUs are a --run-job's threads: more than a sweep takes (a task
# of 128 CPUs is common) runs 64, said in one line naming the variable;
# what is no count above 0 is refused naming SLURM_CPUS_PER_TASK, not an
# option nobody gave.  --jobs given keeps its own check, and wins.
from "$w" "$sweep" --plan cpuplan "${one[@]}" d/build-c.zca >/dev/null 2>"$tmp/err" ||
  bad "--plan cpuplan: $(cat "$tmp/err")"
expect 0 "^zcache-sweep: SLURM_CPUS_PER_TASK=128: 64 worker threads" \
  env SLURM_CPUS_PER_TASK=128 "$sweep" --run-job "$w/cpuplan" 0
[ "$(grep -c SLURM_CPUS_PER_TASK "$tmp/err")" = 1 ] ||
  bad "SLURM_CPUS_PER_TASK=128 said: $(cat "$tmp/err")"
expect 0 "job 0 of 1 .*: done" env SLURM_CPUS_PER_TASK=99999999999999999999 \
  "$sweep" --run-job "$w/cpuplan" 0
for v in 0 00 abc 4x -2 " 8"; do
  expect 2 "^zcache-sweep: SLURM_CPUS_PER_TASK=$v: want a whole number of CPUs above 0" \
    env SLURM_CPUS_PER_TASK="$v" "$sweep" --run-job "$w/cpuplan" 0
  ! grep -q -- "--jobs $v" "$tmp/err" || bad "SLURM_CPUS_PER_TASK=$v named --jobs: $(cat "$tmp/err")"
done
expect 2 "^zcache-sweep: --jobs 128: want worker threads, 1 to 64" \
  env SLURM_CPUS_PER_TASK=8 "$sweep" --run-job "$w/cpuplan" 0 --jobs 128
expect 0 "job 0 of 1 .*: done" env SLURM_CPUS_PER_TASK=abc "$sweep" --run-job \
  "$w/cpuplan" 0 --jobs 2

# The commands --plan prints can be pasted into a shell: a directory
# named with a space, quotes, a $, a backslash and a line break comes back
# whole when each printed command runs through sh -c (the sweep found on
# PATH).  Its two commands, N taken as 0, run the plan and merge it; a
# Slurm line it has not (slurm-sweep.sh refuses a path with a backslash or
# a line break), but one line that says so.
q=$tmp/q
qdir=$'p 1\'s "$HOME" \\ `x`\nend'
mkdir -p "$q/scripts"
printf '#!/bin/sh\nprintf "%%s" "$1" >got\n' >"$q/scripts/slurm-sweep.sh"
chmod +x "$q/scripts/slurm-sweep.sh"
PATH=$(dirname "$sweep"):$PATH
export PATH
# pasted DIR PLAN: the commands --plan PLAN printed in DIR ($tmp/plan.out)
# run there through sh -c, N taken as 0; $slurm is its Slurm line.
pasted() {
  local out run merge
  out=$(cat "$tmp/plan.out")
  run=${out#*run each:   } run=${run%%    (N = 0 .. *}
  merge=${out#*then:       } merge=${merge%%$'\n'on Slurm:*}
  slurm=${out#*on Slurm:   }
  [ "${run% N}" != "$run" ] || bad "--plan $2's run command: $out"
  from "$1" sh -c "${run% N} 0" 2>"$tmp/err" ||
    bad "the printed '${run% N} 0' through sh -c: $(cat "$tmp/err")"
  from "$1" sh -c "$merge --output csv" >"$tmp/q.csv" 2>"$tmp/err" ||
    bad "the printed '$merge' through sh -c: $(cat "$tmp/err")"
  [ "$(csv_get "$tmp/q.csv" 1 trace) $(csv_get "$tmp/q.csv" 1 disk_reads)" = \
    "$w/d/build-c.zca $(csv_get "$tmp/d.csv" 1 disk_reads)" ] ||
    bad "the pasted commands' merge of $2: $(cat "$tmp/q.csv")"
}
no_slurm="none: slurm-sweep.sh cannot take this plan: its path holds a control character, '%' or '\\', which sbatch's --output file names and the job scripts cannot carry (plan into a directory named without them)"
from "$q" "$sweep" --plan "$qdir" "${one[@]}" "$w/d/build-c.zca" >"$tmp/plan.out" \
  2>"$tmp/err" || bad "--plan of a directory named with quotes: $(cat "$tmp/err")"
pasted "$q" "$qdir"
[ "$slurm" = "$no_slurm" ] || bad "--plan of a directory with a line break, Slurm line: $slurm"
# ... and without the backslash and the line break, the Slurm line too
qdir2='p 1'\''s "$HOME" `x` & ; *'
from "$q" "$sweep" --plan "$qdir2" "${one[@]}" "$w/d/build-c.zca" >"$tmp/plan.out" \
  2>"$tmp/err" || bad "--plan of a directory named with quotes: $(cat "$tmp/err")"
pasted "$q" "$qdir2"
from "$q" sh -c "$slurm" 2>"$tmp/err" || bad "the printed '$slurm' through sh -c: $(cat "$tmp/err")"
[ "$(cat "$q/got")" = "$qdir2" ] || bad "slurm-sweep.sh got '$(cat "$q/got")', not '$qdir2'"
# (a plain name stays plain)
grep -q "^then:       zcache-sweep --merge plan$" "$tmp/plan0.out" ||
  bad "--plan plan printed: $(cat "$tmp/plan0.out")"

# Every Slurm line --plan prints, slurm-sweep.sh itself takes (its sbatch
# a stand-in that notes its arguments and prints a job id): a plan named
# -dash is printed ./-dash in all three commands.  A plan whose path has a
# '%' or a '\' (in its name, or in the directory it is made in) gets the
# line that says why not, and the script does refuse it.
r=$tmp/r
mkdir -p "$r/scripts" "$r/bin" "$r/x%y"
cp "$(dirname "$0")/../scripts/slurm-sweep.sh" "$r/scripts/" || exit 1
printf '#!/bin/sh\nprintf "%%s\\n" "$@" >>"%s/sbatch.args"\necho 4242\n' "$r" >"$r/bin/sbatch"
printf '#!/bin/sh\nexit 1\n' >"$r/bin/scontrol"
chmod +x "$r/bin/sbatch" "$r/bin/scontrol"
from "$r" "$sweep" --plan -dash "${one[@]}" "$w/d/build-c.zca" >"$tmp/plan.out" \
  2>"$tmp/err" || bad "--plan -dash: $(cat "$tmp/err")"
pasted "$r" -dash
for c in "--run-job ./-dash N" "--merge ./-dash"; do
  grep -q -- " zcache-sweep $c" "$tmp/plan.out" || bad "--plan -dash printed: $(cat "$tmp/plan.out")"
done
[ "$slurm" = "scripts/slurm-sweep.sh ./-dash" ] || bad "--plan -dash, Slurm line: $slurm"
PATH=$r/bin:$PATH from "$r" sh -c "$slurm" >"$tmp/out" 2>"$tmp/err" ||
  bad "the printed '$slurm' through sh -c: $(cat "$tmp/err")"
[ "$(tail -1 "$r/sbatch.args" 2>/dev/null)" = "$(cd "$r" && pwd -P)/-dash/slurm/merge.sh" ] ||
  bad "'$slurm' submitted no merge of -dash: $(cat "$r/sbatch.args" "$tmp/err")"
for d in 'a%b' 'c\d'; do
  from "$r" "$sweep" --plan "$d" "${one[@]}" "$w/d/build-c.zca" >"$tmp/plan.out" \
    2>"$tmp/err" || bad "--plan $d: $(cat "$tmp/err")"
  pasted "$r" "$d"
  [ "$slurm" = "$no_slurm" ] || bad "--plan $d, Slurm line: $slurm"
  expect 2 "a plan path with control characters, '%' or" env PATH="$r/bin:$PATH" \
    "$r/scripts/slurm-sweep.sh" "$r/$d"
done
from "$r/x%y" "$sweep" --plan p "${one[@]}" "$w/d/build-c.zca" >"$tmp/plan.out" \
  2>"$tmp/err" || bad "--plan in x%y: $(cat "$tmp/err")"
pasted "$r/x%y" p
[ "$slurm" = "$no_slurm" ] || bad "--plan p in x%y, Slurm line: $slurm"

if [ "$fail" = 0 ]; then
  echo "sweep_plan: ok in ${SECONDS}s"
else
  echo "sweep_plan: FAILED (the FAIL lines above) in ${SECONDS}s"
fi
exit "$fail"
