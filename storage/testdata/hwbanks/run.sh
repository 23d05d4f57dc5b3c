#!/bin/sh
# Builds and runs the hardware check of storage's shared-memory bank model on
# an sm_90 GPU; see README.md. Usage: storage/testdata/hwbanks/run.sh [OUTDIR]
set -u
cd "$(dirname "$0")"
out=${1:-/tmp/cklplan-hwbanks}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
nvcc --version | tail -n 2
sha256sum bankcheck.cu patterns.txt
nvcc -O3 -std=c++17 -arch=sm_90 -o "$out/bankcheck" bankcheck.cu || exit 1
echo "SASS shared loads: $(cuobjdump --dump-sass "$out/bankcheck" | grep -c 'LDS')"
cuobjdump --dump-sass "$out/bankcheck" | grep -o 'LDS[.A-Z0-9]*' | sort | uniq -c
"$out/bankcheck" < patterns.txt
