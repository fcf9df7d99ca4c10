#!/usr/bin/env bash
# Measures every lesson's reference solution and its baseline on this
# machine's GPU for the course site's "Measured on the reference GPUs"
# sections: one `grader bench` file per lesson, named after the GPU
# (grader/site/measured/lesson01-h200.json), which build_site.py draws with
# grader/plot/course_plot.py. Run it on each reference GPU after
# `cmake --build build`; it replaces that GPU's files and no other's.
#
# usage: grader/site/measure_reference.sh [BUILD_DIR] [LESSON...]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
shift || true
grader="$build/bin/grader"
[ -x "$grader" ] || { echo "measure_reference: no $grader: build the course first (cmake --build $build)" >&2; exit 1; }
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader -i 0 2>/dev/null) \
  || { echo "measure_reference: no GPU here (nvidia-smi answered nothing)" >&2; exit 1; }
# "NVIDIA H200" -> h200, "NVIDIA GeForce RTX 4090" -> geforce-rtx-4090
slug=$(echo "$gpu" | sed -E 's/^NVIDIA //; s/[^A-Za-z0-9]+/-/g; s/^-|-$//g' | tr '[:upper:]' '[:lower:]')
lessons=("$@")
[ ${#lessons[@]} -gt 0 ] || lessons=(lesson01 lesson02 lesson03 lesson04 lesson05 lesson06 lesson07)
# grader bench writes nothing inside grader/ (a student's -o must not
# overwrite the course), so each file is written in the build folder first.
mkdir -p grader/site/measured "$build/measured"
for lesson in "${lessons[@]}"; do
  echo "== $lesson on the $gpu"
  "$grader" --build-dir "$build" bench "$lesson" --no-build --impl solution,baseline --repetitions 3 \
    -o "$build/measured/$lesson-$slug.json"
  cp "$build/measured/$lesson-$slug.json" grader/site/measured/
done
