#!/usr/bin/env python3
"""`grader release`, end to end (issues 50 and 81), on a machine with or without a GPU.

1. Releases HEAD of the course twice: the same commit gives the same edition
   commit (and so the same tree).
2. Scans the edition for lines of solutions/: every line with 25 or more
   characters other than spaces that is in no file of exercises/, lessons/,
   common/ or the grader's own sources (grader/src: an idiom such as opening
   a file is the tool's as much as an answer's). None may appear. Checks that
   no file of an answer is there. (`grader release` itself refuses an edition
   by the copy flag's fingerprints; this scan is a second, plainer look.)
3. Every file a student text of the edition cites (the README, lessons/,
   exercises/, the notebook, grader/GRADING.md) is in the edition, and the
   README section the Dockerfile points to exists.
4. As a student would: clones the edition and runs its README's quick start
   as written (`git clone`, `./setup.sh`: the build and the first report,
   `cmake --build build && ctest --preset default`), then `grader run`, `grader hint` and
   `grader bench --help`. Every `grader bench` and `grader plot` command the
   lesson texts show is run: with the GPU hidden, a bench command must get as
   far as the GPU (exit 2, "no CUDA device"), never be refused.
5. Grades lesson04's skeleton (0 host points) and then the reference
   solution copied into exercises/ (every host point), both as practice grades.
6. The instructor's commands and flags refuse to run in the edition, each
   saying so in one line.

    release_end_to_end.py GRADER SOURCE_DIR
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

GRADER, SOURCE = Path(sys.argv[1]), Path(sys.argv[2])
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
                 "grader/INSTRUCTORS.md", "grader/tests/self", "grader/tests/fixtures"):
        assert not (Path(edition) / gone).exists(), f"{gone} is in the student edition"
    assert (Path(edition) / "grader/tests/07_matmul/textbook_kernels.fatbin").is_file()


def student_texts(edition):
    """The files of the edition a student reads."""
    tracked = run(["git", "-C", edition, "ls-files"]).stdout.split()
    return [name for name in tracked
            if name in ("README.md", "grader/GRADING.md", "colab/course.ipynb", "Dockerfile", "setup.sh")
            or (name.startswith(("lessons/", "exercises/")) and not name.endswith("CMakeLists.txt"))]


# A path a text names: the course's top folders, then a file or folder name.
CITED = re.compile(r"(?<![\w./-])((?:grader|common|lessons|exercises|solutions|colab|cmake|\.ci|\.vscode)/[\w./-]*\w)(?![\w{])")
# Cited on purpose, with a sentence saying that the edition leaves it out.
INSTRUCTORS_ONLY = {"grader/bench/07_matmul/sgemm_going_further.cu", "grader/bench/02_doublify/going_further.cu",
                    "grader/bench/03_saxpy_driver/going_further.cpp", "grader/bench/06_kernels/going_further.cu"}


def check_citations(edition):
    missing = []
    for name in student_texts(edition):
        try:
            text = (Path(edition) / name).read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue  # a picture
        for number, line in enumerate(text.splitlines(), 1):
            for cited in CITED.findall(line):
                cited = cited.rstrip(".")
                if cited not in INSTRUCTORS_ONLY and not (Path(edition) / cited).exists():
                    missing.append(f"{name}:{number}: {cited}")
    if missing:
        sys.exit("FAIL: student texts cite files the edition does not have:\n  " + "\n  ".join(missing))
    dockerfile = (Path(edition) / "Dockerfile").read_text()
    section = re.search(r'README says more \("([^"]+)"\)', dockerfile)
    assert section, "the Dockerfile names no README section"
    headings = re.findall(r"^#+ (.+)$", (Path(edition) / "README.md").read_text(), re.M)
    assert section.group(1) in headings, f"the Dockerfile points to README \"{section.group(1)}\": not in {headings}"
    print(f"citations: every file the student texts cite is in the edition; the Dockerfile's README section exists")


def readme_quick_start(clone_dir):
    """The commands of the README's first sh block."""
    text = (clone_dir / "README.md").read_text()
    block = re.search(r"```sh\n(.*?)```", text, re.S)
    assert block, "the README has no sh block"
    return [line.split("  #")[0].strip() for line in block.group(1).splitlines() if line.strip()]


def lesson_commands(edition, tool):
    """Every `grader TOOL ...` command line the lesson texts show, comment left out."""
    found = []
    for readme in sorted(Path(edition).glob("lessons/*/*.md")):
        for line in readme.read_text().splitlines():
            line = line.split("  #")[0].strip()
            if line.startswith(f"grader {tool} "):
                found.append(line)
    return found


def student_commands(edition, work):
    """The README's quick start in a clone of the edition, then the loop's commands."""
    commands = readme_quick_start(edition)
    assert commands[0].startswith("git clone <this repository> cuda-course"), commands
    assert commands[1].startswith("./setup.sh"), commands
    assert commands[2] == "cmake --build build && ctest --preset default", commands
    run(["git", "clone", "-q", f"file://{edition}", work / "cuda-course"])
    clone = work / "cuda-course"
    setup = run([clone / "setup.sh"], cwd=clone)
    assert "grading lesson01" in setup.stdout and "lesson01" in setup.stdout, setup.stdout[-3000:]
    print("setup.sh: built the edition and showed lesson01's first report")
    run(["cmake", "--build", "build"], cwd=clone)
    run(["ctest", "--preset", "default", "-j", str(os.cpu_count() or 2)], cwd=clone)
    print("cmake --build build && ctest --preset default: passed in the edition")
    grader = clone / "build" / "bin" / "grader"
    first = run([grader, "run", "lesson01"], ok=(1, 2), cwd=clone)
    assert "practice" in first.stdout.lower() and "lesson01" in first.stdout, first.stdout[-3000:]
    hint = run([grader, "hint", "lesson01"], cwd=clone)
    assert hint.stdout.strip(), "grader hint lesson01 printed nothing"
    run([grader, "bench", "--help"], cwd=clone)
    print("grader run, hint and bench --help: as the README says")

    # Each bench command of the texts, with the GPU hidden: it must pass the
    # choice of programs and options and stop at the GPU, never be refused.
    hidden = dict(os.environ, CUDA_VISIBLE_DEVICES="")
    benches = lesson_commands(clone, "bench")
    assert len(benches) >= 7, benches
    for command in benches + [f"grader bench lesson{n:02d}" for n in range(1, 8)]:
        done = run(["bash", "-c", f"PATH={clone}/build/bin:$PATH {command}"], ok=(2,), cwd=clone, env=hidden)
        assert "no CUDA device" in done.stderr, f"{command}: {done.stderr}"
    plots = [command for command in lesson_commands(clone, "plot") if "<date>" not in command]  # a file of one's own
    for command in plots:
        run(["bash", "-c", f"PATH={clone}/build/bin:$PATH {command}"], cwd=clone)
    print(f"{len(benches)} bench and {len(plots)} plot commands of the lesson texts: none refused")
    return clone, grader


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
        check_citations(first)

        clone, egrader = student_commands(first, work)
        ebuild = clone / "build"

        skeleton = grade_lesson04(egrader, ebuild, work / "skeleton.json")
        got, most = host_points(skeleton)
        assert got == 0, f"lesson04's skeleton earned {got}/{most} host points in the student edition"
        print(f"skeleton: {got}/{most} host points (practice grade)")

        lesson = clone / "exercises" / "04_memory_pools"
        for f in (SOURCE / "solutions" / "04_memory_pools").iterdir():
            shutil.copy(f, lesson / f.name)
        solution = grade_lesson04(egrader, ebuild, work / "solution.json")
        got, most = host_points(solution)
        assert got == most, f"lesson04's solution earned {got}/{most} host points in the student edition"
        print(f"solution copied in: {got}/{most} host points (practice grade)")

        for command in (["verify", "--no-build"], ["release", work / "third"], ["batch", "lesson01", work],
                        ["run", "lesson01", "--solution"], ["run", "lesson01", "--mutant", "no_bounds_check"],
                        ["run", "lesson01", "--cheat", "memoized"], ["run", "lesson07", "--textbook", "tiled_16x16"],
                        ["bench", "lesson01", "--impl", "solution"]):
            refused = run([egrader, "--build-dir", ebuild, *command], ok=(3,))
            said = refused.stderr.strip()
            assert "student edition" in said and "\n" not in said, f"{command}: {refused.stderr}"
        print("the edition refuses the instructor's commands and flags, each in one line")
        print("PASS")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
