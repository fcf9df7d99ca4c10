#!/usr/bin/env python3
"""`grader release`, end to end (issue 50's check), on a machine with or without a GPU.

1. Releases HEAD of the course twice: the same commit gives the same edition
   commit (and so the same tree).
2. Scans the edition for lines of solutions/: every line with 25 or more
   characters other than spaces that is in no file of exercises/, lessons/,
   common/ or the grader's own sources (grader/src: an idiom such as opening
   a file is the tool's as much as an answer's). None may appear. Checks that
   no file of an answer is there. (`grader release` itself refuses an edition
   by the copy flag's fingerprints; this scan is a second, plainer look.)
3. Builds the edition (the grader and lesson04) in a scratch folder, grades
   lesson04's skeleton (0 host points) and then the reference solution copied
   into exercises/ (every host point), both as practice grades.
4. The instructors' commands refuse to run in the edition.

    release_end_to_end.py GRADER SOURCE_DIR CUDA_ARCHITECTURES
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

GRADER, SOURCE, ARCHS = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3].replace(",", ";")
MIN_CHARS = 25


def run(argv, ok=(0,), **kw):
    print("+", " ".join(str(a) for a in argv), flush=True)
    p = subprocess.run([str(a) for a in argv], capture_output=True, text=True, **kw)
    if p.returncode not in ok:
        sys.exit(f"FAIL: exit {p.returncode}\n{p.stdout[-4000:]}\n{p.stderr[-4000:]}")
    return p


def squeezed_lines(folder):
    out = set()
    for path in Path(folder).rglob("*"):
        if path.is_file():
            try:
                text = path.read_text(encoding="utf-8")
            except (UnicodeDecodeError, OSError):
                continue
            out.update("".join(line.split()) for line in text.splitlines())
    return out


def solution_lines():
    own = set()
    for folder in ("exercises", "lessons", "common", "grader/src"):
        own |= squeezed_lines(SOURCE / folder)
    return {s for s in squeezed_lines(SOURCE / "solutions") if len(s) >= MIN_CHARS and s not in own}


def scan(edition):
    wanted = solution_lines()
    assert len(wanted) > 100, f"only {len(wanted)} solution lines found: is {SOURCE}/solutions there?"
    tracked = run(["git", "-C", edition, "ls-files"]).stdout.split()
    found = []
    for name in tracked:
        try:
            text = (Path(edition) / name).read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        for number, line in enumerate(text.splitlines(), 1):
            if "".join(line.split()) in wanted:
                found.append(f"{name}:{number}: {line.strip()}")
    if found:
        sys.exit("FAIL: solution lines in the student edition:\n  " + "\n  ".join(found[:40]))
    print(f"scan: none of {len(wanted)} solution lines in {len(tracked)} files of the edition")
    for gone in ("solutions", "grader/mutants", "grader/cheats", "grader/textbooks",
                 "grader/tests/07_matmul/textbook_kernels.cu", "grader/bench/07_matmul/sgemm_going_further.cu",
                 "grader/INSTRUCTORS.md", "grader/tests/self"):
        assert not (Path(edition) / gone).exists(), f"{gone} is in the student edition"
    assert (Path(edition) / "grader/tests/07_matmul/textbook_kernels.fatbin").is_file()


def host_points(report):
    tests = [t for t in report["tests"] if not t["gpu"]]
    assert tests, "lesson04 has no host tests in the report"
    return sum(t["score"] for t in tests), sum(t["points"] for t in tests)


def grade_lesson04(grader, build, out):
    # 0: full marks, 1: some failed, 2: nothing graded (no GPU: the GPU tests skip)
    run([grader, "--build-dir", build, "run", "lesson04", "--format", "json", "-o", out], ok=(0, 1, 2))
    report = json.loads(Path(out).read_text())
    assert report.get("practice") is True, "the student edition's report is not labelled a practice grade"
    return report


def main():
    work = Path(tempfile.mkdtemp(prefix="release-test-"))
    try:
        build = GRADER.parent.parent
        first, second = work / "edition", work / "again"
        run([GRADER, "--build-dir", build, "release", first])
        run([GRADER, "--build-dir", build, "release", second])
        ids = [run(["git", "-C", e, "rev-parse", "HEAD"]).stdout.strip() for e in (first, second)]
        assert ids[0] == ids[1], f"two releases of one commit differ: {ids}"
        head = run(["git", "-C", SOURCE, "rev-parse", "HEAD"]).stdout.strip()
        message = run(["git", "-C", first, "log", "-1", "--format=%B"]).stdout
        assert f"Source-Commit: {head}" in message, message
        print(f"release: the same commit twice ({ids[0][:12]}), recording {head[:12]}")
        refused = run([GRADER, "--build-dir", build, "release", first], ok=(3,))
        assert "not empty" in refused.stderr, refused.stderr

        scan(first)

        ebuild = first / "build"
        run(["cmake", "-S", first, "-B", ebuild, "-G", "Ninja", f"-DCMAKE_CUDA_ARCHITECTURES={ARCHS}",
             "-DCOURSE_BUILD_BENCHMARKS=OFF", "-DCMAKE_BUILD_TYPE=Release"])
        run(["cmake", "--build", ebuild, "--target", "grader", "-j", str(os.cpu_count() or 2)])
        egrader = ebuild / "bin" / "grader"

        skeleton = grade_lesson04(egrader, ebuild, work / "skeleton.json")
        got, most = host_points(skeleton)
        assert got == 0, f"lesson04's skeleton earned {got}/{most} host points in the student edition"
        print(f"skeleton: {got}/{most} host points (practice grade)")

        lesson = first / "exercises" / "04_memory_pools"
        for f in (SOURCE / "solutions" / "04_memory_pools").iterdir():
            shutil.copy(f, lesson / f.name)
        solution = grade_lesson04(egrader, ebuild, work / "solution.json")
        got, most = host_points(solution)
        assert got == most, f"lesson04's solution earned {got}/{most} host points in the student edition"
        print(f"solution copied in: {got}/{most} host points (practice grade)")

        for command in (["verify", "--no-build"], ["release", work / "third"]):
            refused = run([egrader, "--build-dir", ebuild, *command], ok=(3,))
            assert "student edition" in refused.stderr, refused.stderr
        print("the edition refuses verify and release, saying why")
        print("PASS")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
