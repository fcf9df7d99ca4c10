#!/usr/bin/env bash
# Gradescope runs this once when it builds the autograder image. The image
# must have an NVIDIA GPU and the CUDA Toolkit 13 (use a CUDA base image).
# It installs the course's packages and builds everything from the copy of
# the course that was uploaded with this file (source/ in the autograder zip).
set -euo pipefail
cd /autograder/source
./setup.sh || true   # builds; its sample run of lesson01 may report "nothing graded"
