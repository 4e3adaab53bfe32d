#!/usr/bin/env bash
# The main job: install what is missing, build (Release), and replay the
# traces shipped in traces/ (real workloads recorded with their page
# contents, see traces/README.md) into zcaches of a few sizes: for each,
# the kernel's own page-cache stream and the stream of libzcache's
# page-cache model.  `run.sh --bench [ARGS]` runs the core benchmark on this
# system's files instead (build/bench/zc-bench-core --help).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DZC_BUILD_TESTS=OFF >/dev/null
cmake --build build -j"$(nproc)" >/dev/null
if [ "${1:-}" = --bench ]; then
  shift
  exec build/bench/zc-bench-core "$@"
fi

replay=build/tools/zcache-replay
sizes=${ZC_RUN_SIZES:-"256K 1M 4M"}
printf '%-16s %-7s %6s %7s %7s %6s %7s %7s %7s %8s %8s\n' trace stream zcache \
  gets hits hit% puts kept% held density cpu_ms
for info in traces/*.info; do
  name=$(basename "$info" .info)
  for stream in kernel model; do
    f=traces/$name.zct
    [ $stream = kernel ] && f=traces/$name.kernel.zct
    for z in $sizes; do
      $replay --zcache "capacity=$z" --output json --verify "$f" | awk -v n="$name" \
        -v s=$stream -v z="$z" '
        function get(k,   r) { r = $0; sub(".*\"" k "\":", "", r); sub("[,}].*", "", r); return r + 0 }
        {
          gets = get("zc_gets"); hits = get("zc_hits"); puts = get("zc_puts")
          kept = get("zc_stored"); held = get("stored_pages")
          used = get("mem_used_total"); compr = get("compr_data_size")
          cpu = (get("compress_ns") + get("compress_ns_rejected") + get("decompress_ns")) / 1e6
          printf "%-16s %-7s %6s %7d %7d %5.1f%% %7d %6.1f%% %7d %8.3f %8.1f\n", n, s, z,
            gets, hits, gets ? 100 * hits / gets : 0, puts, puts ? 100 * kept / puts : 0,
            held, used ? compr / used : 0, cpu
        }'
    done
  done
done
echo
echo "gets: page-cache misses that asked the zcache; hits: disk reads avoided;"
echo "kept: puts that passed the half-size rule; held: pages in the zcache at the end;"
echo "density: compressed bytes / arena bytes in use; cpu_ms: LZO time (compress,"
echo "rejected compress, decompress).  Every hit was verified against its put."
