#!/usr/bin/env bash
# Record the traces shipped in traces/ (see traces/README.md), as root, on a
# machine like the project's (Debian 12): the file systems are filled from
# this system's own files and from this source tree, so a new recording has
# the same workloads but not the same bytes.
#
#   bash scripts/deps.sh && apt-get install -y sqlite3   # the tools
#   cmake -S . -B build && cmake --build build           # zcache-tracefs, -replay
#   bash traces/record.sh [NAME...]                      # all, or some
set -euo pipefail
cd "$(dirname "$0")/.."
rec=tools/zcache-record
src=$(pwd)
want=("$@")
[ ${#want[@]} -gt 0 ] || want=(grep-headers build-libzcache sqlite-queries)

for name in "${want[@]}"; do
  case $name in
  grep-headers)
    # Search 9 MB of C headers twice under an 8 MiB memory limit: the second
    # pass finds the pages evicted by the first.
    $rec --out traces --size 128M --memory 8M \
      --populate /usr/include/linux --populate /usr/include/x86_64-linux-gnu \
      grep-headers -- sh -c \
      'grep -r -c -E "struct [a-z_]+ \{" . > /dev/null; grep -r -l -i copyright . > /dev/null'
    ;;
  build-libzcache)
    # Configure and build this library, its tools, tests and benchmarks with
    # CMake and gcc under 64 MiB: the compilers' own memory pushes the
    # sources and objects out of the page cache.
    tmp=$(mktemp -d)
    mkdir "$tmp/zcache"
    git -C "$src" archive HEAD src include tools cmake CMakeLists.txt LICENSE \
      tests bench examples | tar -x -C "$tmp/zcache"
    $rec --out traces --size 128M --memory 64M --page-cache 1M \
      --populate "$tmp/zcache" build-libzcache -- sh -c \
      'cmake -S zcache -B build > /dev/null && cmake --build build -j2 > /dev/null'
    rm -rf "$tmp"
    ;;
  sqlite-queries)
    # A 60,000-row table of header lines (made before recording), then a
    # scan, an index build, point lookups, an update and a grouping, under
    # an 8 MiB limit.
    $rec --out traces --size 128M --memory 8M --page-cache 2M \
      --setup 'find /usr/include/linux -name "*.h" | sort | xargs cat | head -n 60000 > lines.txt &&
        sqlite3 db.sqlite "PRAGMA page_size=4096" "PRAGMA journal_mode=DELETE" \
          "CREATE TABLE src(id INTEGER PRIMARY KEY, line TEXT)" \
          ".mode ascii" ".separator \"\037\" \"\n\"" ".import lines.txt src_in" \
          "INSERT INTO src(line) SELECT * FROM src_in" "DROP TABLE src_in" \
          "VACUUM" && rm lines.txt' \
      sqlite-queries -- sqlite3 db.sqlite \
        "SELECT count(*) FROM src WHERE line LIKE '%struct%'" \
        "CREATE INDEX src_line ON src(line)" \
        "WITH RECURSIVE k(n, id) AS (SELECT 0, 1 UNION ALL SELECT n + 1, abs(random()) % 60000 + 1 FROM k WHERE n < 3000) SELECT sum(length(line)) FROM src JOIN k USING (id)" \
        "UPDATE src SET line = upper(line) WHERE id % 64 = 0" \
        "SELECT substr(line, 1, 8) AS p, count(*) FROM src GROUP BY p ORDER BY 2 DESC LIMIT 5"
    ;;
  *) echo "record.sh: no trace named $name" >&2; exit 2 ;;
  esac
done
