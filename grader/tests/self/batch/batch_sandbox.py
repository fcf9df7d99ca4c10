#!/usr/bin/env python3
"""Where bubblewrap cannot run, graded runs fail closed: `grader batch`
grades nothing and says why and how to fix it, and so does `grader run
--sandbox` (what the Gradescope script runs); with --no-sandbox they grade,
and the report, the gradebook and the class report say the grades were made
without the sandbox.

bubblewrap is made unusable as on a machine that forbids user namespaces:
COURSE_BWRAP names a bwrap that fails the way bwrap does there, and PATH
holds no other (each folder of PATH with a bwrap is replaced by one of links
to everything else in it).

    batch_sandbox.py GRADER BUILD_DIR
"""
import csv
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

from batch_test_support import Checks, make_class

grader, build = sys.argv[1], sys.argv[2]
work = pathlib.Path(tempfile.mkdtemp(prefix="batch-sandbox-"))
check = Checks()
REFUSED = 4  # exit code: build or setup error (grader --help)


def without_bwrap(scratch):
    """The environment: a failing COURSE_BWRAP, and PATH without bwrap."""
    failing = scratch / "bwrap-that-fails"
    failing.write_text("#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n")
    failing.chmod(0o755)
    folders = []
    for i, folder in enumerate(os.environ.get("PATH", "").split(":")):
        path = pathlib.Path(folder)
        if not (path / "bwrap").exists():
            folders.append(folder)
            continue
        shadow = scratch / f"path-{i}"
        shadow.mkdir()
        for entry in path.iterdir():
            if entry.name != "bwrap":
                (shadow / entry.name).symlink_to(entry)
        folders.append(str(shadow))
    return dict(os.environ, COURSE_BWRAP=str(failing), PATH=":".join(folders))


def run(*args, env):
    result = subprocess.run([grader, "--build-dir", build, *map(str, args)], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, env=env)
    print(f"$ grader {' '.join(map(str, args))}\n{result.stdout}(exit code {result.returncode})\n", flush=True)
    return result


def says_why_and_the_fixes(output, what):
    for part in ["bwrap: setting up uid map: Permission denied", "nothing was graded",
                 "apt-get install bubblewrap", "kernel.unprivileged_userns_clone=1", "--no-sandbox",
                 "runs with your rights"]:
        check(part in output, f"{what} does not say {part!r}")


try:
    env = without_bwrap(work)
    klass = work / "class"
    make_class(4, klass, "--count", 3)  # solution, skeleton, compile_error
    out = work / "out"

    # 1. Refused: nothing built, graded or written, and why.
    refused = run("batch", "4", klass, "-o", out, "--seed", "3", "--no-build", env=env)
    check(refused.returncode == REFUSED, f"grader batch without bubblewrap exited {refused.returncode}, not {REFUSED}")
    says_why_and_the_fixes(refused.stdout, "grader batch's refusal")
    check(not (out / "students").exists(), "a refused batch stored results")
    check(not (out / "gradebook.csv").exists(), "a refused batch wrote a gradebook")

    # The Gradescope script's command refuses the same way, before building.
    report = work / "results.json"
    run_refused = run("run", "4", "--sandbox", "--no-build", "--format", "gradescope", "-o", report, env=env)
    check(run_refused.returncode == REFUSED, f"grader run --sandbox exited {run_refused.returncode}, not {REFUSED}")
    says_why_and_the_fixes(run_refused.stdout, "grader run --sandbox's refusal")
    check(not report.exists(), "grader run --sandbox wrote a report without the sandbox")

    # 2. --no-sandbox: graded, and said everywhere.
    graded = run("batch", "4", klass, "-o", out, "--seed", "3", "--no-build", "--no-sandbox", env=env)
    check(graded.returncode in (0, 2), f"grader batch --no-sandbox exited {graded.returncode}")
    check("NOT SANDBOXED (--no-sandbox)" in graded.stdout, "the batch's output does not say it is not sandboxed")
    rows = {r["student"]: r for r in csv.DictReader(open(out / "gradebook.csv", newline=""))}
    check(sorted(rows) == ["compile_error", "skeleton", "solution"], f"gradebook rows {sorted(rows)}")
    # A build failure is a grade with or without a GPU: its row carries the word.
    check(rows["compile_error"]["score"] == "0", f"compile_error's row {rows['compile_error']}")
    check("NOT SANDBOXED" in rows["compile_error"]["note"],
          f"compile_error's note: {rows['compile_error']['note']!r}")
    for student, row in rows.items():
        if row["score"] != "":
            check("NOT SANDBOXED" in row["note"], f"{student} has a score and no word on the sandbox: {row}")
    summary = json.loads((out / "logs/batch.json").read_text())
    check(summary.get("sandboxed") is False, f"batch.json's sandboxed: {summary.get('sandboxed')}")
    data = json.loads((out / "report/class_report.json").read_text())
    check(data.get("unsandboxed", 0) >= 1, f"the class report's unsandboxed: {data.get('unsandboxed')}")
    solution_report = out / "students/solution/report.json"
    if solution_report.exists():  # graded (a GPU here): its report says so
        notes = json.loads(solution_report.read_text()).get("notes", [])
        check(any(n.startswith("NOT SANDBOXED (--no-sandbox)") for n in notes), f"the solution's notes: {notes}")

    # Not final: a rerun grades them again (sandboxed where bubblewrap runs).
    again = run("batch", "4", klass, "-o", out, "--seed", "3", "--no-build", "--no-sandbox", env=env)
    check("already graded" not in again.stdout, "a rerun kept grades made without the sandbox")

    run_open = run("run", "4", "--no-sandbox", "--no-build", "--format", "gradescope", "-o", report, env=env)
    check(run_open.returncode in (0, 1, 2), f"grader run --no-sandbox exited {run_open.returncode}")
    check(report.exists() and "NOT SANDBOXED (--no-sandbox)" in json.loads(report.read_text()).get("output", ""),
          "grader run --no-sandbox's results.json does not say it was not sandboxed")
finally:
    shutil.rmtree(work, ignore_errors=True)

sys.exit(check.finish("batch sandbox required"))
