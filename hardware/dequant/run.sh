#!/bin/sh
# Builds, checks and times the dequantize -> mma plans on an sm_90 GPU (an H200 here); see
# docs/hardware.md. Usage: hardware/dequant/run.sh [OUTDIR]
# OUTDIR gets the binary, ptxas.txt (registers, spills), sass.txt (instruction counts per kernel),
# raw.json (every timing, keyed as in the log) and run.log.
set -u
cd "$(dirname "$0")"
out=${1:-/tmp/cklplan-dequant}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv,noheader
nvcc --version | tail -n 2
sha256sum dequant_mma.cu
echo "== build: nvcc -O3 -std=c++17 -arch=sm_90 -Xptxas -v"
nvcc -O3 -std=c++17 -arch=sm_90 -Xptxas -v -o "$out/dequant_mma" dequant_mma.cu >"$out/ptxas.txt" 2>&1 || {
  cat "$out/ptxas.txt"
  exit 1
}
echo "spills: $(grep -c '[1-9][0-9]* bytes spill' "$out/ptxas.txt") kernel(s) with spill stores or loads"
python3 sasscount.py "$out/dequant_mma" >"$out/sass.txt" && cat "$out/sass.txt"
echo "== run"
"$out/dequant_mma" "$out/raw.json"
