#!/usr/bin/env python3
"""setup.sh where apt-get fails (a machine offline, or a package source that
is down) goes on without the missing packages, as it does without root, and
says so; CMake installed outside Debian's packages (from pip, say) is not
counted as missing.

Stubs stand in for dpkg-query (every package installed but libelf-dev and
cmake), sudo (runs what it is given), apt-get (fails) and cmake (on PATH,
but says no version, so setup stops right after the packages step). Nothing
is installed or built.

    setup_offline.py COURSE_DIR
"""
import os
import pathlib
import subprocess
import sys
import tempfile

course = pathlib.Path(sys.argv[1]).resolve()
scratch = pathlib.Path(tempfile.mkdtemp(prefix="setup-offline-"))
calls = scratch / "calls.txt"
failures = []


def check(condition, what):
    if not condition:
        failures.append(what)


def stubs(name):
    folder = scratch / name
    folder.mkdir()
    programs = [("dpkg-query", 'case "$*" in *libelf-dev*|*" cmake") exit 1;; esac\nprintf "install ok installed"'),
                ("sudo", '[ "$1" = -n ] && exit 0\nexec "$@"'), ("apt-get", "exit 100"), ("id", "echo 1000"),
                ("cmake", "exit 0")]
    for program, body in programs:
        stub = folder / program
        stub.write_text(f"#!/bin/sh\necho \"{program} $*\" >> '{calls}'\n{body}\n")
        stub.chmod(0o755)
    return folder


def setup(folder):
    env = dict(os.environ, PATH=f"{folder}:{os.environ.get('PATH', '')}", COURSE_SETUP_ROOT=str(scratch / "none"))
    done = subprocess.run(["bash", str(course / "setup.sh")], cwd=scratch, env=env, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=60)
    return done.returncode, done.stdout + done.stderr


rc, said = setup(stubs("cmake-from-pip"))
check("apt-get could not install them" in said, f"setup does not say apt-get failed:\n{said}")
check("not installed (apt-get failed): cmake libelf-dev" in said, f"setup does not name what is missing:\n{said}")
check("nothing can be built" not in said, f"setup stops though cmake is on PATH:\n{said}")
check("is too old" in said, f"setup did not go on to check CMake's version:\n{said}")
made = calls.read_text() if calls.exists() else ""
check("apt-get update" in made, f"setup did not try apt-get:\n{made}")

for f in failures:
    print("FAILED:", f)
print("setup_offline:", "ok" if not failures else f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)
