#!/usr/bin/env python3
"""A synthetic class for `grader batch`: one student folder per kind of
submission a real class hands in, made from the course's own files.

    python3 grader/batch/make_class.py lesson01 OUT [--copies N] [--expect FILE]

Students (folder names):
  solution        the reference solution
  skeleton        the untouched exercise
  compile_error   the solution with a line that does not compile
  mutant_<name>   each known-wrong version (grader/mutants: crashes and hangs among them)
  cheat_<name>    each known cheat (grader/cheats)
  snoop           the solution, plus code that looks for the reference solution
                  and another student's folder at compile time and at run time,
                  and does no work if it finds either: in the sandbox it must
                  find nothing and earn every point
--copies N repeats the whole class N times (solution-2, ...) for benchmarks;
--count N stops at N students.
--expect FILE writes what each student must score (check_class.py reads it);
it never goes inside OUT, which holds submissions only.
"""
import argparse
import json
import pathlib
import shutil
import subprocess
import sys

COURSE = pathlib.Path(__file__).resolve().parents[2]


def lesson_dir(name):
    """lesson01, 1, 01 or 01_vecadd -> the lesson's folder name."""
    digits = "".join(c for c in name if c.isdigit())[:2].zfill(2)
    for d in sorted((COURSE / "solutions").iterdir()):
        if d.name.startswith(digits + "_"):
            return d.name
    sys.exit(f"make_class.py: no lesson {name!r} in {COURSE / 'solutions'}")


def copy_sources(src, dst):
    dst.mkdir(parents=True, exist_ok=True)
    for f in src.iterdir():
        if f.is_file():
            shutil.copy(f, dst / f.name)


def apply_patch(folder, patch):
    subprocess.run(["patch", "--quiet", "-p1", "-d", str(folder), "-i", str(patch)], check=True)


def first_source(folder):
    return sorted(p for p in folder.iterdir() if p.suffix in (".cu", ".cpp"))[0]


def reach_harness_headers(folder):
    """A cheat may include the harness's headers (course/testing/...), which
    the course builds it with; a student's file gets no such include path,
    so it names them by their absolute path, as a student who read them could."""
    headers = COURSE / "common" / "testing" / "include"
    for source in folder.iterdir():
        if source.is_file():
            text = source.read_text()
            source.write_text(text.replace('#include "course/testing/', f'#include "{headers}/course/testing/'))


SNOOP = r'''
// --- snoop: everything below looks where a student must not ---
#include <fstream>
#if __has_include("{solution}")
#error "the build could read the reference solution"
#endif
namespace {{
// Runs before main(): if any secret is readable, this submission does no work.
const bool snoop_saw_a_secret = [] {{
    for (const char* path : {{"{solution}", "{other}"}})
        if (std::ifstream(path).good()) return true;
    return false;
}}();
}}  // namespace
'''


def make_snoop(folder, lesson, out):
    """The solution, made to lose points if it can read a secret. False when
    no source has a function to hook (`void lessonNN::name(...) {`)."""
    for source in sorted(p for p in folder.iterdir() if p.suffix in (".cu", ".cpp")):
        text = source.read_text()
        start = text.find("\nvoid lesson")
        marker = text.find(") {", start) if start >= 0 else -1
        if marker >= 0:
            break
    else:
        return False
    solution = COURSE / "solutions" / lesson / source.name
    other = out.resolve() / "solution" / source.name
    text = text[: marker + 3] + "\n    if (snoop_saw_a_secret) return;" + text[marker + 3:]
    includes_end = text.rfind("#include")
    includes_end = text.find("\n", includes_end) + 1
    text = text[:includes_end] + SNOOP.format(solution=solution, other=other) + text[includes_end:]
    source.write_text(text)
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("lesson")
    ap.add_argument("out", type=pathlib.Path)
    ap.add_argument("--copies", type=int, default=1)
    ap.add_argument("--count", type=int, default=0)
    ap.add_argument("--expect", type=pathlib.Path)
    args = ap.parse_args()
    lesson = lesson_dir(args.lesson)
    if args.out.exists() and any(args.out.iterdir()):
        sys.exit(f"make_class.py: {args.out} is not empty; choose a new folder")
    expect = {}
    for copy in range(1, args.copies + 1):
        suffix = "" if copy == 1 else f"-{copy}"

        def student(name, source, kind, **what):
            folder = args.out / (name + suffix)
            if args.count and len(expect) >= args.count:
                return folder  # not made
            copy_sources(source, folder)
            expect[folder.name] = dict(kind=kind, **what)
            return folder

        def made(folder):
            return folder.name in expect

        student("solution", COURSE / "solutions" / lesson, "full_marks")
        student("skeleton", COURSE / "exercises" / lesson, "loses_all_correctness")
        broken = student("compile_error", COURSE / "solutions" / lesson, "build_failed")
        if made(broken):
            with open(first_source(broken), "a") as f:
                f.write("\nthis line is not C++;\n")
        for kind, bank, patch_name in (("mutant", "mutants", "mistake.patch"), ("cheat", "cheats", "cheat.patch")):
            root = COURSE / "grader" / bank / lesson
            for d in sorted(root.iterdir()) if root.is_dir() else []:
                if not (d / patch_name).is_file():
                    continue
                folder = student(f"{kind}_{d.name}", COURSE / "solutions" / lesson, "expectation",
                                 expect=json.loads((d / "expect.json").read_text()))
                if not made(folder):
                    continue
                apply_patch(folder, d / patch_name)
                if kind == "cheat":
                    reach_harness_headers(folder)
        snoop = student("snoop", COURSE / "solutions" / lesson, "full_marks")
        if made(snoop) and not make_snoop(snoop, lesson, args.out):
            shutil.rmtree(snoop)
            del expect[snoop.name]
    if args.expect:
        args.expect.write_text(json.dumps(expect, indent=2) + "\n")
    print(f"{len(expect)} submissions of {lesson} in {args.out}")


if __name__ == "__main__":
    main()
