#!/usr/bin/env bash
# The test job: install what is missing, then build and run the cmocka suite
# twice (Release, and Debug with AddressSanitizer + UndefinedBehaviorSanitizer),
# warnings as errors; the threaded tests and zc-bench-core --threads once more
# under ThreadSanitizer; then install the library into a scratch prefix and
# build the README's example against it with pkg-config and with CMake;
# then run every fuzz target briefly (scripts/fuzz.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
jobs=$(nproc)

echo "== Release build and tests"
cmake -S . -B build-release -DCMAKE_BUILD_TYPE=Release -DZC_WERROR=ON >/dev/null
cmake --build build-release -j"$jobs" >/dev/null
(cd build-release && ctest --output-on-failure -j"$jobs")

echo "== Debug + ASan/UBSan build and tests"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DZC_SANITIZE=ON -DZC_WERROR=ON \
  -DZC_BUILD_BENCH=OFF >/dev/null
cmake --build build-asan -j"$jobs" >/dev/null
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --output-on-failure -j"$jobs")

echo "== ThreadSanitizer: the threaded tests and zc-bench-core --threads"
cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=Debug -DZC_TSAN=ON -DZC_WERROR=ON \
  -DZC_BUILD_TOOLS=OFF >/dev/null
cmake --build build-tsan -j"$jobs" --target test_threads test_replay \
  zc_bench_core >/dev/null
(cd build-tsan && TSAN_OPTIONS=halt_on_error=1 \
  ctest --output-on-failure -R '^(test_threads|test_replay)$')
TSAN_OPTIONS=halt_on_error=1 build-tsan/bench/zc-bench-core --allocator zsmalloc \
  --threads 2 --pages 2048 --runs 1 >/dev/null
echo "zc-bench-core --threads 2 under ThreadSanitizer: ok"

echo "== Installed package: pkg-config and CMake consumers"
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
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
echo "installed-package example: ok (pkg-config and CMake; zcache_sim.h)"
# The installed tools find the installed library by themselves (RPATH
# $ORIGIN/../lib...): no LD_LIBRARY_PATH, a prefix outside the system's.
env -u LD_LIBRARY_PATH "$prefix/bin/zcache-replay" --zcache capacity=1M \
  --page-cache 500 traces/build-c.zca >/dev/null
env -u LD_LIBRARY_PATH "$prefix/bin/zcache-sweep" --page-cache 500 \
  --capacity 0,1M traces/build-c.zca >/dev/null
env -u LD_LIBRARY_PATH "$prefix/bin/zcache-fidelity" --no-curve \
  traces/build-c >/dev/null
echo "installed tools: ok (they find the installed library)"

echo "== Fuzzing: every trace reader, the config parser, content specs (15 s each)"
bash scripts/fuzz.sh 15
