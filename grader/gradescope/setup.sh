#!/usr/bin/env bash
# Gradescope runs this once when it builds the autograder image. The image
# must have an NVIDIA GPU and the CUDA Toolkit 13 (use a CUDA base image).
# It installs the course's packages and builds everything from the copy of
# the course that was uploaded with this file (source/ in the autograder zip).
set -euo pipefail
cd /autograder/source
# setup.sh builds, then grades lesson01's skeleton: it ends well where that
# sample run fails or finds no GPU, and fails where the build does, so a
# broken build fails the image instead of every submission.
./setup.sh
