#!/usr/bin/env bash
# The fuzz job: build the libFuzzer targets of fuzz/ with clang (ASan +
# UBSan, warnings as errors) in build-fuzz, then run each for SECONDS
# (default 20) on a scratch copy of its seed corpus fuzz/corpus/NAME/ (and
# its dictionary fuzz/dict/NAME.dict, if there is one).  Installs nothing:
# scripts/deps.sh --full brings clang and libFuzzer's runtime.  One line per
# target (runs, coverage); exits non-zero if any target crashed, leaked,
# hung or broke an invariant, keeping the input that did it in
# build-fuzz/artifacts/NAME/.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-20}
jobs=$(nproc)

if ! command -v clang >/dev/null; then
  echo "fuzz.sh: clang not found (bash scripts/deps.sh --full installs it)" >&2
  exit 1
fi
cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DZC_BUILD_FUZZ=ON \
  -DZC_BUILD_TESTS=OFF -DZC_BUILD_BENCH=OFF -DZC_BUILD_TOOLS=OFF -DZC_WERROR=ON \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g" \
  >/dev/null
cmake --build build-fuzz -j"$jobs" >/dev/null

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
failed=()
for src in fuzz/fuzz_*.c; do
  name=$(basename "$src" .c)
  exe=build-fuzz/fuzz/$name
  corpus=$scratch/$name
  artifacts=build-fuzz/artifacts/$name
  mkdir -p "$corpus" "$artifacts"
  if [ -d "fuzz/corpus/$name" ]; then
    cp -R "fuzz/corpus/$name/." "$corpus/"
  fi
  dict=()
  [ -f "fuzz/dict/$name.dict" ] && dict=(-dict="fuzz/dict/$name.dict")
  log=$scratch/$name.log
  rc=0
  "$exe" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$artifacts/" ${dict[@]+"${dict[@]}"} \
    "$corpus" >"$log" 2>&1 || rc=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n1)
  cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$log" | tail -n1 || true)
  if [ "$rc" -eq 0 ]; then
    printf '%-22s ok      %8s runs  %s  corpus %s files\n' "$name" \
      "${runs:-?}" "${cov:-cov: ?}" "$(ls "$corpus" | wc -l)"
  else
    printf '%-22s FAILED  (exit %d) after %s runs; input kept in %s\n' \
      "$name" "$rc" "${runs:-?}" "$artifacts" >&2
    grep -E '^(fuzz: |==[0-9]+==ERROR|SUMMARY|    #[0-9] )' "$log" | head -n 20 >&2 || true
    failed+=("$name")
  fi
done
total=$(ls fuzz/fuzz_*.c | wc -l)
echo "fuzz: $((total - ${#failed[@]})) passed, ${#failed[@]} failed"
if [ ${#failed[@]} -ne 0 ]; then
  echo "fuzz.sh: failed: ${failed[*]}" >&2
  exit 1
fi
