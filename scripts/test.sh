#!/usr/bin/env bash
# The test job, in two tiers (README: Two tiers of tests).
#
#   bash scripts/test.sh          the quick tier, for every commit: install
#       what it needs (scripts/deps.sh), a Release build with warnings as
#       errors (build-release), `ctest -L quick` with ZC_TEST_QUICK=1 (every
#       test but the real Slurm cluster's, the slow programs scaled down:
#       tests/zt_util.h, tests/tool_test.sh), then the installed package.
#   bash scripts/test.sh --full   the whole suite, for CI (.ci/run): install
#       everything (scripts/deps.sh --full), the Release build's every test
#       at full scale (the real Slurm cluster's too), the cmocka suite again
#       in a Debug build with AddressSanitizer + UndefinedBehaviorSanitizer,
#       the threaded tests and zc-bench-core --threads under
#       ThreadSanitizer, the installed package, then every fuzz target
#       briefly (scripts/fuzz.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
case ${1:-} in
  "") tier=quick ;;
  --full) tier=full ;;
  *)
    echo "usage: scripts/test.sh [--full]" >&2
    exit 2
    ;;
esac
if [ "$tier" = full ]; then
  bash scripts/deps.sh --full
else
  bash scripts/deps.sh
fi
jobs=$(nproc)
start=$SECONDS
# stage NAME: a heading, with the minutes so far
stage() { printf '== %s (at %dm%02ds)\n' "$1" $(((SECONDS - start) / 60)) $(((SECONDS - start) % 60)); }

release() {
  cmake -S . -B build-release -DCMAKE_BUILD_TYPE=Release -DZC_WERROR=ON >/dev/null
  cmake --build build-release -j"$jobs" >/dev/null
  if [ "$tier" = full ]; then
    (cd build-release && env -u ZC_TEST_QUICK ctest --output-on-failure -j"$jobs")
  else
    (cd build-release && ZC_TEST_QUICK=1 ctest --output-on-failure -j"$jobs" -L quick)
  fi
}

asan() {
  cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DZC_SANITIZE=ON -DZC_WERROR=ON \
    -DZC_BUILD_BENCH=OFF >/dev/null
  cmake --build build-asan -j"$jobs" >/dev/null
  (cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    env -u ZC_TEST_QUICK ctest --output-on-failure -j"$jobs")
}

tsan() {
  cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=Debug -DZC_TSAN=ON -DZC_WERROR=ON \
    -DZC_BUILD_TOOLS=OFF >/dev/null
  cmake --build build-tsan -j"$jobs" --target test_threads test_replay \
    zc_bench_core >/dev/null
  (cd build-tsan && TSAN_OPTIONS=halt_on_error=1 \
    env -u ZC_TEST_QUICK ctest --output-on-failure -R '^(test_threads|test_replay)$')
  TSAN_OPTIONS=halt_on_error=1 build-tsan/bench/zc-bench-core --allocator zsmalloc \
    --threads 2 --pages 2048 --runs 1 >/dev/null
  echo "zc-bench-core --threads 2 under ThreadSanitizer: ok"
}

# The Release build installed into a scratch prefix: the README's examples
# built against it with pkg-config (shared and static) and with CMake, the
# simulation's header, and the installed tools.
installed() {
  local prefix libdir
  prefix=$(mktemp -d)
  # shellcheck disable=SC2064
  trap "rm -rf '$prefix'" EXIT
  DESTDIR= cmake --install build-release --prefix "$prefix" >/dev/null
  libdir=$(ls -d "$prefix"/lib*/pkgconfig | head -n1)
  export PKG_CONFIG_PATH="$libdir"
  cc -std=c11 -Wall -Wextra -Werror examples/basic.c -o "$prefix/basic" \
    $(pkg-config --cflags --libs zcache)
  LD_LIBRARY_PATH="$(dirname "$libdir")" "$prefix/basic"
  cmake -S examples -B "$prefix/cmake-build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
  cmake --build "$prefix/cmake-build" >/dev/null
  LD_LIBRARY_PATH="$(dirname "$libdir")" "$prefix/cmake-build/basic"
  # The simulation's header, and its former name, from the installed package.
  printf '%s\n' '#include <zcache_sim.h>' '#include <zcache_trace.h>' \
    'int main(void) { return zc_trace_format_name(0) ? 0 : 1; }' >"$prefix/sim.c"
  cc -std=c11 -Wall -Wextra -Werror "$prefix/sim.c" -o "$prefix/sim" \
    $(pkg-config --cflags --libs zcache)
  LD_LIBRARY_PATH="$(dirname "$libdir")" "$prefix/sim"
  # examples/recording.c: a shipped recording through a session, and its
  # fidelity totals, linked with the shared library (pkg-config, CMake) and
  # with the static one (pkg-config --static: the libraries it needs).
  cc -std=c11 -Wall -Wextra -Werror examples/recording.c -o "$prefix/recording" \
    $(pkg-config --cflags --libs zcache)
  LD_LIBRARY_PATH="$(dirname "$libdir")" "$prefix/recording" traces/build-c \
    >"$prefix/recording.out"
  LD_LIBRARY_PATH="$(dirname "$libdir")" "$prefix/cmake-build/recording" \
    traces/build-c | cmp - "$prefix/recording.out"
  cc -std=c11 -Wall -Wextra -Werror examples/recording.c \
    -o "$prefix/recording-static" $(pkg-config --static --cflags zcache) \
    $(pkg-config --static --libs zcache |
      sed 's/-lzcache/-Wl,-Bstatic -lzcache -Wl,-Bdynamic/')
  env -u LD_LIBRARY_PATH "$prefix/recording-static" traces/build-c |
    cmp - "$prefix/recording.out"
  grep -q '^traces/build-c.zca (contents pack:traces/build-c.zcp): ' \
    "$prefix/recording.out"
  grep -q '^linux  median gets ' "$prefix/recording.out"
  echo "installed-package example: ok (pkg-config, static and CMake; zcache_sim.h; examples/recording.c)"
  # The installed tools find the installed library by themselves (RPATH
  # $ORIGIN/../lib...): no LD_LIBRARY_PATH, a prefix outside the system's.
  env -u LD_LIBRARY_PATH "$prefix/bin/zcache-replay" --zcache capacity=1M \
    --page-cache 500 traces/build-c.zca >/dev/null
  env -u LD_LIBRARY_PATH "$prefix/bin/zcache-sweep" --page-cache 500 \
    --capacity 0,1M traces/build-c.zca >/dev/null
  env -u LD_LIBRARY_PATH "$prefix/bin/zcache-fidelity" --no-curve \
    traces/build-c >/dev/null
  echo "installed tools: ok (they find the installed library)"
}

if [ "$tier" = quick ]; then
  stage "quick tier: Release build, ctest -L quick (ZC_TEST_QUICK=1)"
  release
  stage "Installed package: pkg-config and CMake consumers"
  installed
  stage "quick tier passed (the full suite: bash scripts/test.sh --full)"
  exit 0
fi
stage "Release build and tests (full scale)"
release
stage "Debug + ASan/UBSan build and tests"
asan
stage "ThreadSanitizer: the threaded tests and zc-bench-core --threads"
tsan
stage "Installed package: pkg-config and CMake consumers"
installed
stage "Fuzzing: every trace reader, the config parser, content specs (15 s each)"
bash scripts/fuzz.sh 15
stage "full suite passed"
