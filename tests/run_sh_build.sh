#!/usr/bin/env bash
# scripts/run.sh keeps a build directory's configuration (issue 13, item
# 16): a directory configured with the tests and as Debug stays so (its
# tests stay listed for ctest), and a new one is Release without tests.
# Runs run.sh --configure-only with ZC_BUILD in a scratch directory; its
# deps.sh step only checks packages when they are all installed.
#   run_sh_build.sh SOURCE_DIR
set -uo pipefail
src=$1
. "$(dirname "$0")/tool_test.sh"
b=$tmp/b
cmake -S "$src" -B "$b" -DCMAKE_BUILD_TYPE=Debug -DZC_BUILD_TESTS=ON >/dev/null ||
  bad "configure"
ZC_BUILD=$b bash "$src/scripts/run.sh" --configure-only >"$tmp/out" 2>&1 ||
  bad "run.sh --configure-only: $(tail -3 "$tmp/out")"
grep -q '^ZC_BUILD_TESTS:BOOL=ON$' "$b/CMakeCache.txt" ||
  bad "run.sh turned the tests off: $(grep '^ZC_BUILD_TESTS' "$b/CMakeCache.txt")"
grep -q '^CMAKE_BUILD_TYPE:STRING=Debug$' "$b/CMakeCache.txt" ||
  bad "run.sh changed the build type"
grep -q "is not a Release build" "$tmp/out" || bad "no note that Debug times differ"
n=$(cd "$b" && ctest -N | sed -n 's/^Total Tests: //p')
[ "${n:-0}" -gt 20 ] || bad "ctest lists $n tests after run.sh"
# A new directory: Release, no tests.
ZC_BUILD=$tmp/new bash "$src/scripts/run.sh" --configure-only >"$tmp/out" 2>&1 ||
  bad "run.sh --configure-only (new): $(tail -3 "$tmp/out")"
grep -q '^CMAKE_BUILD_TYPE:STRING=Release$' "$tmp/new/CMakeCache.txt" &&
  grep -q '^ZC_BUILD_TESTS:BOOL=OFF$' "$tmp/new/CMakeCache.txt" ||
  bad "a new build directory is not Release without tests"
# Unknown arguments are refused, not run as the whole job.
bash "$src/scripts/run.sh" --configure_only >"$tmp/out" 2>&1
[ $? = 2 ] && grep -q "usage: scripts/run.sh" "$tmp/out" ||
  bad "run.sh --configure_only: $(head -2 "$tmp/out")"
# A relative ZC_BUILD is the caller's, not the repository's.
(cd "$tmp" && ZC_BUILD=rel bash "$src/scripts/run.sh" --configure-only) \
  >"$tmp/out" 2>&1 || bad "run.sh with a relative ZC_BUILD: $(tail -2 "$tmp/out")"
[ -f "$tmp/rel/CMakeCache.txt" ] || bad "a relative ZC_BUILD was not made where the caller is"
exit $fail
