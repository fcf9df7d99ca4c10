#!/usr/bin/env bash
# Sets the course up on Debian or Ubuntu with the CUDA toolkit installed:
# installs the packages it needs (asking sudo only if something is missing),
# configures with CMake, builds everything, and grades lesson01.
#
#   ./setup.sh            configure for this machine's GPU (or sm_90 without one)
#   ./setup.sh --preset ci   any preset from CMakePresets.json
#   ./setup.sh --help     what it does; installs and builds nothing
set -euo pipefail
cd "$(dirname "$0")"

usage() {
  cat <<'USAGE'
Usage: ./setup.sh [--preset NAME]

Sets the course up on Debian or Ubuntu with the CUDA toolkit installed, in order:
  1. installs the Debian packages it needs that are missing (apt-get, through sudo
     if you are not root; without root or sudo it goes on without them where it
     can, and names them): cmake, ninja-build, g++, python3, the libraries
     (CMake fetches those it cannot find), bubblewrap (the sandbox) and others
  2. finds nvcc (PATH, then /usr/local/cuda*/bin) and checks CMake is 3.24 or newer
  3. configures the build with CMake (the preset's folder: build/ for default)
  4. builds the grader and lesson01, and grades lesson01: the first report, in minutes
  5. builds the other lessons and the course's own tests (log: build/setup-build.log)
Ctrl-C after step 4 leaves a grader that builds each lesson it grades; the course's
own tests (ctest) then need `cmake --build build` first.

Options:
  --preset NAME   a configure preset of CMakePresets.json (default: default;
                  ci: sm_90 without a GPU; portable: every GPU generation)
  -h, --help      print this and exit; installs and builds nothing
USAGE
}

preset=default
while [ $# -gt 0 ]; do
  case $1 in
    -h|--help) usage; exit 0 ;;
    --preset)
      if [ -z "${2:-}" ]; then echo "setup: --preset needs a name (see ./setup.sh --help)" >&2; exit 2; fi
      preset=$2; shift 2 ;;
    --preset=*) preset=${1#--preset=}; shift ;;
    *) echo "setup: unknown option '$1'" >&2; usage >&2; exit 2 ;;
  esac
done

# WSL2 (Windows): the GPU driver is Windows' own, shown inside as
# /usr/lib/wsl/lib/libcuda.so.1 and /dev/dxg; only the CUDA toolkit is
# installed inside, from NVIDIA's WSL-Ubuntu packages, which hold no driver.
# COURSE_SETUP_ROOT stands for / in the course's own test of this (setup_wsl.py).
root=${COURSE_SETUP_ROOT:-}
wsl=no
if grep -qiE 'microsoft|wsl' "$root/proc/sys/kernel/osrelease" "$root/proc/version" 2> /dev/null; then wsl=yes; fi
if [ $wsl = yes ]; then
  echo "setup: this is WSL (Linux on Windows). The NVIDIA driver belongs in Windows, never inside WSL;"
  echo "       the CUDA toolkit belongs inside WSL (NVIDIA's WSL-Ubuntu packages: cuda-toolkit-13-0 or -12-x)."
  if [ ! -e "$root/dev/dxg" ] || [ ! -e "$root/usr/lib/wsl/lib/libcuda.so.1" ]; then
    echo "setup: WSL has no GPU from Windows here (no /dev/dxg or /usr/lib/wsl/lib/libcuda.so.1):"
    echo "       in Windows, install the current NVIDIA driver for your GPU, run \`wsl --update\` and"
    echo "       \`wsl --shutdown\`, and open WSL again (WSL 1 has no GPU: \`wsl --set-version <distro> 2\`)."
    echo "       Everything still builds; without the GPU only the tests that need none are graded."
  fi
  for lib in "$root"/usr/lib/x86_64-linux-gnu/libcuda.so.1 "$root"/usr/lib/aarch64-linux-gnu/libcuda.so.1; do
    if [ -e "$lib" ] && [[ "$(readlink -f "$lib")" != */usr/lib/wsl/* ]]; then
      echo "setup: $lib is a Linux NVIDIA driver's, installed inside WSL: it hides Windows' driver."
      echo "       Remove the package that put it there (dpkg -S names it: sudo apt-get remove --purge PACKAGE)."
    fi
  done
  case $PWD/ in
    /mnt/[a-zA-Z]/*)
      echo "setup: the course is on a Windows drive ($PWD): builds there are several times slower, and"
      echo "       saving a file from Windows sends no file event, so \`grader watch\` needs --manual."
      echo "       Better: clone the course into your Linux home (cd ~ && git clone ...), and open it from"
      echo "       Windows as \\\\wsl\$\\<distro>\\home\\<you> or with VS Code's WSL extension." ;;
  esac
fi

# libyaml-cpp-dev, libarchive-dev and libssl-dev are for `grader batch` (a
# Gradescope export's metadata and zip, the result cache's SHA-256);
# libseccomp-dev (found with pkg-config) lets graded runs refuse new
# processes to the test program; libelf-dev lets the judge replay timed calls
# from the device code of the student's library (without it speed tests say
# they cannot be graded). Without them everything else still builds.
packages=(cmake ninja-build g++ pkg-config libgtest-dev libgmock-dev libbenchmark-dev libcli11-dev
          nlohmann-json3-dev libfmt-dev python3 python3-matplotlib bubblewrap patch
          libyaml-cpp-dev libarchive-dev libssl-dev libseccomp-dev libelf-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Without them nothing builds; the rest CMake fetches (the libraries) or the
# course does without (the sandbox, the zip reader, ...), saying so.
required=(cmake ninja-build g++ python3)
if [ ${#missing[@]} -gt 0 ]; then
  can_install=yes
  why="no root or sudo"
  if [ "$(id -u)" -eq 0 ]; then sudo=()
  elif command -v sudo > /dev/null && { sudo -n true 2> /dev/null || [ -t 0 ]; }; then sudo=(sudo)  # may ask for a password
  else can_install=no
  fi
  if [ $can_install = yes ]; then
    echo "setup: installing ${missing[*]}"
    step=$SECONDS
    export DEBIAN_FRONTEND=noninteractive
    # Offline, or with a broken package source, apt-get fails: go on without
    # them as if there were no root, so that what can be built still is.
    if "${sudo[@]}" apt-get update -qq && \
       "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" > /dev/null; then
      echo "setup: installed them in $((SECONDS - step)) s"
    else
      echo "setup: apt-get could not install them (offline, or a package source fails); going on without them"
      can_install=no
      why="apt-get failed"
      still=()
      for p in "${missing[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || still+=("$p")
      done
      missing=("${still[@]}")
    fi
  fi
  if [ $can_install = no ] && [ ${#missing[@]} -gt 0 ]; then
    # A required tool installed outside Debian's packages (CMake from pip,
    # say) is on PATH all the same.
    blocking=()
    for p in "${missing[@]}"; do
      tool=$p; [ "$p" = ninja-build ] && tool=ninja
      [[ " ${required[*]} " == *" $p "* ]] && ! command -v "$tool" > /dev/null && blocking+=("$p")
    done
    if [ ${#blocking[@]} -gt 0 ]; then
      echo "setup: nothing can be built without ${blocking[*]}, and they cannot be installed ($why):" >&2
      echo "       ask for them to be installed (apt-get install ${missing[*]})" >&2
      exit 1
    fi
    echo "setup: not installed ($why): ${missing[*]}"
    echo "       CMake fetches the libraries among them (GoogleTest, Google Benchmark, CLI11, nlohmann-json, fmt);"
    echo "       what else is missing is named where it is needed (without bubblewrap, graded runs need --no-sandbox)."
    echo "       As root: apt-get install ${missing[*]}"
  fi
fi

# The CUDA toolkit is not a Debian package here: it comes from NVIDIA.
if ! command -v nvcc > /dev/null; then
  for dir in /usr/local/cuda/bin /usr/local/cuda-13*/bin /usr/local/cuda-12*/bin; do
    if [ -x "$dir/nvcc" ]; then export PATH="$dir:$PATH"; break; fi
  done
fi
if ! command -v nvcc > /dev/null; then
  echo "setup: nvcc not found. Install the CUDA Toolkit, 12.4 or newer (https://developer.nvidia.com/cuda-downloads)" >&2
  echo "       and put its bin folder on PATH (usually /usr/local/cuda/bin)." >&2
  if [ $wsl = yes ]; then
    echo "       In WSL choose Linux > x86_64 > WSL-Ubuntu there and install cuda-toolkit-13-0 (or -12-x):" >&2
    echo "       not cuda, cuda-13-0 or cuda-drivers, which bring a Linux driver that hides Windows' one." >&2
  fi
  exit 1
fi
cmake_version=$(cmake --version | head -1 | awk '{print $3}')
if [ "$(printf '%s\n3.24\n' "$cmake_version" | sort -V | head -1)" != "3.24" ]; then
  echo "setup: CMake $cmake_version is too old; the course needs 3.24 or newer." >&2
  echo "       python3 -m pip install --user cmake   (or Kitware's apt repository)" >&2
  exit 1
fi

# The preset's build folder (binaryDir, from the preset or the one it inherits).
build=$(python3 - "$preset" <<'PRESETS'
import json, sys
presets = {p["name"]: p for p in json.load(open("CMakePresets.json"))["configurePresets"]}
name = sys.argv[1]
while name in presets and "binaryDir" not in presets[name]:
    name = presets[name].get("inherits", "")
binary_dir = presets.get(name, {}).get("binaryDir", "${sourceDir}/build")
print(binary_dir.replace("${sourceDir}/", ""))
PRESETS
)

echo "setup: configuring (preset $preset, in $build/)"
step=$SECONDS
cmake --preset "$preset" > build-configure.log 2>&1 || { tail -30 build-configure.log; exit 1; }
rm -f build-configure.log
echo "setup: configured in $((SECONDS - step)) s"
# The grader first, with lesson01's test programs beside it (what `grader
# run lesson01` builds: the exercise's and, in the instructor's edition, the
# solution's), so that every core stays busy until the first report. The
# other lessons and the course's own tests build after it, into a log.
first=(grader)
first+=($(python3 - "$build/course_manifest.json" <<'TARGETS' 2> /dev/null || true
import json, sys
lesson = next(l for l in json.load(open(sys.argv[1]))["lessons"] if l["id"] == "lesson01")
print(" ".join(v["tests_target"] for name, v in lesson["variants"].items() if name in ("exercise", "solution")))
TARGETS
))
echo "setup: building the grader and lesson01"
step=$SECONDS
cmake --build "$build" --target "${first[@]}" -j "$(nproc)"
echo "setup: built the grader and lesson01 in $((SECONDS - step)) s"

echo
echo "setup: the grader is $build/bin/grader; put it on your PATH with"
echo "         export PATH=\"$PWD/$build/bin:\$PATH\""
echo "setup: grading lesson01 (the skeleton is unfinished, so expect it to fail):"
echo
status=0
step=$SECONDS
"$build/bin/grader" run lesson01 || status=$?
case $status in
  0|1|2) ;;
  *)     exit $status ;;
esac
echo "setup: lesson01 graded in $((SECONDS - step)) s; the first report came $SECONDS s after setup started"

echo
echo "setup: building the other lessons and the course's own tests (log: $build/setup-build.log)."
echo "       You can start reading now: grader run builds any lesson it grades."
start=$SECONDS
if ! cmake --build "$build" -j "$(nproc)" > "$build/setup-build.log" 2>&1; then
  grep -m 20 -E "error|Error" "$build/setup-build.log"
  echo "setup: that build failed (the whole log is $build/setup-build.log); lesson01 still grades." >&2
  exit 1
fi
echo "setup: built everything in $((SECONDS - start)) s."
echo
if [ $status -eq 2 ]; then
  echo "setup: no GPU here, so only the tests that need none were graded; the course's own"
  echo "       tests run with:  ctest --preset default"
else
  echo "setup: next, read lessons/01_vecadd/README.md and edit exercises/01_vecadd/vecadd.cu"
fi
if [ $wsl = yes ]; then
  echo "setup: on WSL, grader run, watch, hint and bench work as on Linux; \`grader doctor\` checks the GPU"
  echo "       that Windows passes through and says what to change."
fi
