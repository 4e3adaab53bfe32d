#!/usr/bin/env bash
# Record the traces shipped in traces/ (see traces/README.md), as root, on a
# machine like the project's (Debian 12): the file systems are filled from
# this system's own files and from this source tree, so a new recording has
# the same workloads but not the same bytes.  The workloads' scripts are in
# traces/workloads/.
#
#   bash scripts/deps.sh && apt-get install -y sqlite3 python3.11  # the tools
#   cmake -S . -B build && cmake --build build           # zcache-tracefs, -replay
#   bash traces/record.sh [NAME...]                      # all, or some
set -euo pipefail
cd "$(dirname "$0")/.."
# KEEP_RAW=DIR keeps each raw capture in DIR/NAME (to convert it again)
rec() { tools/zcache-record ${KEEP_RAW:+--keep-raw "$KEEP_RAW/$name"} "$@"; }
src=$(pwd)
wl=$src/traces/workloads
want=("$@")
[ ${#want[@]} -gt 0 ] || want=(grep-src build-c sqlite-oltp python-imports file-server)

for name in "${want[@]}"; do
  case $name in
  grep-src)
    # 32 rounds of searches over 24 MB of C and C++ headers under a 12 MiB
    # limit: a slow whole-tree search per round and quick subtree searches.
    rec --out traces --size 256M --memory 12M \
      --populate /usr/include/c++ --populate /usr/include/linux \
      --populate /usr/include/x86_64-linux-gnu --populate /usr/include/openssl \
      grep-src -- sh "$wl/grep-src.sh"
    ;;
  build-c)
    # libzcache's C sources built three times (Release, Debug,
    # RelWithDebInfo) with gcc -j2 under 56 MiB, the system headers read
    # from the traced file system.
    tmp=$(mktemp -d)
    mkdir "$tmp/zcache"
    git -C "$src" archive HEAD src include tools cmake CMakeLists.txt LICENSE \
      tests bench examples fuzz | tar -x -C "$tmp/zcache"
    rec --out traces --size 512M --memory 56M \
      --populate "$tmp/zcache" --setup "bash $wl/build-setup.sh" \
      build-c -- bash "$wl/build.sh"
    rm -rf "$tmp"
    ;;
  sqlite-oltp)
    # 100,000 customer rows (26 MB) and 17,000 transactions of point reads
    # (TPC-C's skewed NURand ids), a name range count and an update, under
    # an 8 MiB limit; journal_mode=PERSIST.
    awk -v N=17000 -f "$wl/sqlite-oltp.awk" > /tmp/sqlite-oltp.sql
    rec --out traces --size 256M --memory 8M \
      --setup "bash $wl/sqlite-oltp-setup.sh" \
      sqlite-oltp -- sh -c 'sqlite3 db.sqlite < /tmp/sqlite-oltp.sql > /dev/null'
    rm -f /tmp/sqlite-oltp.sql
    ;;
  python-imports)
    # 800 python3.11 runs from the traced file system (interpreter, loader,
    # shared libraries, standard library), each importing a skewed random
    # choice of modules, under 32 MiB.
    rec --out traces --size 256M --memory 32M \
      --setup "bash $wl/python-imports-setup.sh" \
      python-imports -- bash "$wl/python-imports.sh" py 800
    ;;
  file-server)
    # 3,900 small files (Perl modules, Python packages, package docs: 17 MB)
    # read whole 150,000 times with Zipf(0.9) popularity, in bursts, under
    # 16 MiB (the reader, python3, takes about 8 of them).
    rec --out traces --size 256M --memory 16M \
      --setup 'mkdir files && find /usr/share/perl/5.36 /usr/share/doc /usr/lib/python3/dist-packages -type f -size -24k ! -name "*.gz" ! -name "*.pyc" | sort | while read -r f; do mkdir -p "files$(dirname "$f")"; cp "$f" "files$f"; done && (cd files && find . -type f | sort) > list.txt' \
      file-server -- sh -c "cd files && /usr/bin/python3.11 $wl/file-server.py ../list.txt 150000"
    ;;
  *) echo "record.sh: no trace named $name" >&2; exit 2 ;;
  esac
done
