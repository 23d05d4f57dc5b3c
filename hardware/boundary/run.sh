#!/bin/sh
# Builds and runs boundary.cu on an sm_90 GPU (docs/hardware.md, "The
# kernel boundary"). Usage: hardware/boundary/run.sh [OUTDIR]
set -eu
cd "$(dirname "$0")"
out=${1:-/tmp/cklplan-boundary}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
nvcc --version | tail -n 1
sha256sum boundary.cu
nvcc -O3 -std=c++17 -arch=sm_90 -o "$out/boundary" boundary.cu
"$out/boundary" "$out/boundary.tsv"
"$out/boundary" "$out/boundary2.tsv"
