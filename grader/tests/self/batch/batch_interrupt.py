#!/usr/bin/env python3
"""Ctrl-C during `grader batch`: the submissions in progress finish, what was
graded is kept, nothing half-written is left, the exit code says the batch
is not complete, and running it again grades the rest.

    batch_interrupt.py GRADER BUILD_DIR
"""
import json
import pathlib
import shutil
import signal
import subprocess
import sys
import tempfile

from batch_test_support import Checks, bubblewrap_options, make_class

grader, build = sys.argv[1], sys.argv[2]
work = pathlib.Path(tempfile.mkdtemp(prefix="batch-interrupt-"))
check = Checks()

try:
    klass = work / "class"
    make_class(4, klass, "--copies", 2, "--count", 6)
    command = [grader, "--build-dir", build, "batch", "4", str(klass), "-o", str(work / "out"), "--seed", "5",
               "--no-build", "-j", "1", "--per-gpu", "1", *bubblewrap_options()]
    batch = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    seen = []
    for line in batch.stdout:
        seen.append(line)
        if line.startswith("graded "):
            batch.send_signal(signal.SIGINT)  # what Ctrl-C sends
            break
    rest = batch.stdout.read()
    code = batch.wait(timeout=300)
    print("".join(seen) + rest)
    check("stopping after the submissions in progress" in rest, "no word that it is stopping")
    check("left for a rerun (interrupted)" in rest, "the summary does not say what was left")
    check(code == 2, f"exit code {code}, not 2 (not everything graded)")
    stored = sorted(p.parent.name for p in (work / "out" / "students").glob("*/outcome.json"))
    check(0 < len(stored) < 6, f"{len(stored)} of 6 results stored after the interrupt: {stored}")
    for p in (work / "out" / "students").rglob("*"):
        check(".tmp" not in p.name and "partial" not in p.name, f"a half-written file was left: {p}")

    again = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600)
    print(again.stdout)
    rows = (work / "out" / "gradebook.csv").read_text().splitlines()
    check(len(rows) == 7, f"the gradebook after the rerun has {len(rows) - 1} students, not 6")
    check(json.loads((work / "out" / "logs" / "batch.json").read_text())["left_by_interrupt"] == 0,
          "the rerun left some ungraded")
finally:
    shutil.rmtree(work, ignore_errors=True)

sys.exit(check.finish("batch interrupt"))
