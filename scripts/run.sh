#!/usr/bin/env bash
# The main job: install what is missing, build (Release), and run the core
# benchmark on real files from this system.  Extra arguments go to the
# benchmark (see: build/bench/zc-bench-core --help).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DZC_BUILD_TESTS=OFF >/dev/null
cmake --build build -j"$(nproc)" >/dev/null
exec build/bench/zc-bench-core "$@"
