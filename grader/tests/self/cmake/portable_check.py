#!/usr/bin/env python3
"""The portable preset builds machine code for every GPU generation the
toolkit supports, plus PTX of the newest: it configures the course with
COURSE_PORTABLE=ON in a scratch folder, builds lesson01's solution library,
and reads what the library holds with `cuobjdump --list-elf` and
`--list-ptx`. Expected: sm_75, 80, 86, 89 and 90, and sm_100 and sm_120 from
CUDA 12.8 on, each as an ELF, and the newest as PTX; nothing else.

cuobjdump is the one beside nvcc, on PATH, or NVIDIA's wheel in the build's
tool environment (build/tools: `pip install nvidia-cuda-cuobjdump`, which CI
does; a toolkit from Debian or pip may lack it). Without one the test reports
itself skipped, unless COURSE_REQUIRE_TOOLS=1 (CI) makes that a failure.

usage: portable_check.py SOURCE_DIR WORK_DIR CUDA_COMPILER
"""
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path


def run(argv):
    result = subprocess.run([str(a) for a in argv], capture_output=True, text=True)
    if result.returncode != 0:
        print(result.stdout[-4000:] + result.stderr[-4000:])
        raise SystemExit(f"FAIL: {' '.join(str(a) for a in argv)} exited {result.returncode}")
    return result.stdout


def main():
    source, work, nvcc = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
    version = re.search(r"release (\d+)\.(\d+)", run([nvcc, "--version"]))
    major, minor = int(version.group(1)), int(version.group(2))
    expected = [75, 80, 86, 89, 90] + ([100, 120] if (major, minor) >= (12, 8) else [])
    candidates = [nvcc.parent / "cuobjdump", shutil.which("cuobjdump")]
    candidates += sorted(source.glob("build/tools/lib/python3*/site-packages/nvidia/cu*/bin/cuobjdump"), reverse=True)
    cuobjdump = next((c for c in candidates if c and os.access(c, os.X_OK)), None)
    if cuobjdump is None:
        require = os.environ.get("COURSE_REQUIRE_TOOLS") == "1"
        print(f"{'FAIL' if require else 'SKIPPED'}: no cuobjdump beside {nvcc}, on PATH or in build/tools "
              "(build/tools/bin/pip install nvidia-cuda-cuobjdump)")
        return 1 if require else 0

    if work.exists():
        shutil.rmtree(work)
    run(["cmake", "-S", source, "-B", work, "-G", "Ninja", "-DCOURSE_PORTABLE=ON", "-DCMAKE_BUILD_TYPE=Release",
         f"-DCMAKE_CUDA_COMPILER={nvcc}", "-DCOURSE_BUILD_BENCHMARKS=OFF"])
    run(["cmake", "--build", work, "--target", "lesson01_solution"])
    library = next(work.rglob("liblesson01_solution.a"))

    elf = run([cuobjdump, "--list-elf", library])
    ptx = run([cuobjdump, "--list-ptx", library])
    print(f"CUDA {major}.{minor}: cuobjdump --list-elf {library.name}\n{elf}cuobjdump --list-ptx {library.name}\n{ptx}")
    elf_archs = sorted({int(a) for a in re.findall(r"\.sm_(\d+)[a-z]?\.cubin", elf)})
    ptx_archs = sorted({int(a) for a in re.findall(r"\.sm_(\d+)[a-z]?\.ptx", ptx)})
    problems = []
    if elf_archs != expected:
        problems.append(f"machine code for {elf_archs}, expected {expected}")
    if ptx_archs != [expected[-1]]:
        problems.append(f"PTX for {ptx_archs}, expected [{expected[-1]}] only")
    for problem in problems:
        print("FAIL:", problem)
    if not problems:
        print(f"portable build: machine code for sm_{', sm_'.join(map(str, expected))} and PTX for sm_{expected[-1]}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
