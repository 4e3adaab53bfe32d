#!/usr/bin/env bash
# Install the Debian packages libzcache needs to build and test, if missing.
# Runs apt-get as root (or through sudo); does nothing when all are present.
# clang builds the fuzz targets; libFuzzer's runtime is in libclang-rt-14-dev,
# which clang only recommends.  liblz4-dev and libzstd-dev are optional for
# the library (without them it builds lzo and none only) but installed here
# so that every compressor is built and tested.  jq reads the tools' JSON
# in tests/fidelity.sh.  gnuplot-nox draws the main job's plots (the tools
# write their gnuplot scripts either way; the library never needs it).
# munge, slurmctld, slurmd and slurm-client run the one-node Slurm cluster
# of tests/slurm_sweep.sh (that test alone; it is skipped without them).
set -euo pipefail
need=(gcc libc6-dev make cmake pkg-config liblzo2-dev libcmocka-dev
  liblz4-dev libzstd-dev clang libclang-rt-14-dev jq gnuplot-nox
  munge slurmctld slurmd slurm-client)
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
