#!/usr/bin/env bash
# Install the Debian packages libzcache needs, if missing, in two tiers:
#   scripts/deps.sh          the build, the main job (scripts/run.sh) and
#                            the quick tier of tests (scripts/test.sh)
#   scripts/deps.sh --full   that, and what only the full tier needs
#                            (scripts/test.sh --full): clang and libFuzzer's
#                            runtime for the fuzzers, munge and Slurm for
#                            tests/slurm_sweep.sh
# Runs apt-get as root (or through sudo); does nothing when all are present.
# liblz4-dev and libzstd-dev: libzstd is required (packs, access streams,
# compressed traces); liblz4 is optional for the library but installed so
# that every compressor is built and tested.  jq reads the tools' JSON in
# the shell tests.  gnuplot-nox draws the main job's plots (the tools write
# their gnuplot scripts either way; the library never needs it).  zstd(1)
# makes the recompressed streams of tests/hardening_formats.sh.
# libFuzzer's runtime is in libclang-rt-14-dev, which clang only
# recommends.  munge, slurmctld, slurmd and slurm-client run the one-node
# Slurm cluster of tests/slurm_sweep.sh (that test alone; it is skipped
# without them).
set -euo pipefail
need=(gcc libc6-dev make cmake pkg-config liblzo2-dev libcmocka-dev
  liblz4-dev libzstd-dev jq gnuplot-nox zstd)
case ${1:-} in
  "") ;;
  --full) need+=(clang libclang-rt-14-dev munge slurmctld slurmd slurm-client) ;;
  *)
    echo "usage: scripts/deps.sh [--full]" >&2
    exit 2
    ;;
esac
missing=()
for p in "${need[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing: ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
# The packages' own services (munge, slurmctld, slurmd) are not started:
# the test that needs them starts its own, privately.  Where no policy says
# otherwise, one that refuses service starts stands for the install alone.
policy=/usr/sbin/policy-rc.d
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' | $sudo tee "$policy" >/dev/null
  $sudo chmod 755 "$policy"
  trap '$sudo rm -f "$policy"' EXIT
fi
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
