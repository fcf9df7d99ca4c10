#!/usr/bin/env python3
"""`./setup.sh --help` (and -h) says what setup does and its options, and
installs and builds nothing; an unknown option is refused the same way.

Every program setup.sh would install or build with (apt-get, sudo,
dpkg-query, cmake, ninja, nvcc) is replaced, first on PATH, by one that
records its call and fails: the test fails if any of them ran.

    setup_help.py COURSE_DIR
"""
import os
import pathlib
import subprocess
import sys
import tempfile
import time

course = pathlib.Path(sys.argv[1]).resolve()
scratch = pathlib.Path(tempfile.mkdtemp(prefix="setup-help-"))
calls = scratch / "calls.txt"
stubs = scratch / "bin"
stubs.mkdir()
for program in ["apt-get", "apt", "sudo", "dpkg-query", "cmake", "ninja", "nvcc", "make"]:
    stub = stubs / program
    stub.write_text(f"#!/bin/sh\necho \"{program} $*\" >> '{calls}'\nexit 1\n")
    stub.chmod(0o755)
env = dict(os.environ, PATH=f"{stubs}:{os.environ.get('PATH', '')}")

failures = []


def check(condition, what):
    if not condition:
        failures.append(what)


def setup(*args):
    started = time.monotonic()
    done = subprocess.run(["bash", str(course / "setup.sh"), *args], cwd=scratch, env=env,
                          capture_output=True, text=True, timeout=60)
    return done, time.monotonic() - started


for flag in ["--help", "-h"]:
    done, seconds = setup(flag)
    check(done.returncode == 0, f"setup.sh {flag} exited {done.returncode}:\n{done.stdout}{done.stderr}")
    check(done.stdout.startswith("Usage: ./setup.sh [--preset NAME]"), f"setup.sh {flag} printed:\n{done.stdout}")
    for words in ["installs the Debian packages", "configures the build", "grades lesson01",
                  "--preset NAME", "-h, --help"]:
        check(words in done.stdout, f"setup.sh {flag} does not say '{words}':\n{done.stdout}")
    check(seconds < 10, f"setup.sh {flag} took {seconds:.1f} s")

done, _ = setup("--preset", "ci", "--hlep")
check(done.returncode == 2, f"setup.sh --hlep exited {done.returncode}, not 2 (a usage error)")
check("unknown option '--hlep'" in done.stderr and "Usage: ./setup.sh" in done.stderr,
      f"setup.sh --hlep said:\n{done.stderr}")
done, _ = setup("--preset")
check(done.returncode == 2 and "--preset needs a name" in done.stderr, f"setup.sh --preset said:\n{done.stderr}")

check(not calls.exists(), "setup.sh ran what installs or builds:\n" + (calls.read_text() if calls.exists() else ""))

for f in failures:
    print("FAILED:", f)
print("setup_help:", "ok" if not failures else f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)
