#!/usr/bin/env python3
"""setup.sh on WSL2 says where the driver and the toolkit go, and what is
wrong with the GPU Windows passes through: none at all (no /dev/dxg or
/usr/lib/wsl/lib/libcuda.so.1), or a Linux driver installed inside WSL
that hides Windows' own. Off WSL it says nothing of it.

COURSE_SETUP_ROOT points setup.sh at a made-up machine (its /proc, /dev and
/usr/lib); dpkg-query says every package is installed, and cmake fails, so
setup stops before configuring anything. Nothing is installed or built.

    setup_wsl.py COURSE_DIR
"""
import os
import pathlib
import subprocess
import sys
import tempfile

course = pathlib.Path(sys.argv[1]).resolve()
scratch = pathlib.Path(tempfile.mkdtemp(prefix="setup-wsl-"))
calls = scratch / "calls.txt"
stubs = scratch / "bin"
stubs.mkdir()
for program, body in [("dpkg-query", "printf 'install ok installed'\nexit 0"), ("apt-get", "exit 1"),
                      ("sudo", "exit 1"), ("cmake", "exit 1"), ("ninja", "exit 1"), ("nvcc", "exit 1")]:
    stub = stubs / program
    stub.write_text(f"#!/bin/sh\necho \"{program} $*\" >> '{calls}'\n{body}\n")
    stub.chmod(0o755)

failures = []


def check(condition, what):
    if not condition:
        failures.append(what)


def machine(name, osrelease, version, files=()):
    root = scratch / name
    (root / "proc/sys/kernel").mkdir(parents=True)
    (root / "proc/sys/kernel/osrelease").write_text(osrelease + "\n")
    (root / "proc/version").write_text(version + "\n")
    for f in files:
        (root / f).parent.mkdir(parents=True, exist_ok=True)
        (root / f).write_text("")
    return root


def setup(root):
    env = dict(os.environ, PATH=f"{stubs}:{os.environ.get('PATH', '')}", COURSE_SETUP_ROOT=str(root))
    done = subprocess.run(["bash", str(course / "setup.sh")], cwd=scratch, env=env, capture_output=True, text=True,
                          timeout=60)
    return done.stdout + done.stderr


wsl_kernel = "5.15.153.1-microsoft-standard-WSL2"
wsl_version = "Linux version 5.15.153.1-microsoft-standard-WSL2 (root@941d701f84f1) (gcc (GCC) 11.2.0)"

said = setup(machine("wsl-without-gpu", wsl_kernel, wsl_version))
for words in ["this is WSL", "The NVIDIA driver belongs in Windows, never inside WSL", "WSL-Ubuntu",
              "WSL has no GPU from Windows here", "install the current NVIDIA driver", "wsl --update",
              "wsl --shutdown"]:
    check(words in said, f"setup on WSL without a GPU does not say '{words}':\n{said}")

said = setup(machine("wsl-with-linux-driver", wsl_kernel, wsl_version,
                     ["dev/dxg", "usr/lib/wsl/lib/libcuda.so.1", "usr/lib/x86_64-linux-gnu/libcuda.so.1"]))
check("this is WSL" in said, f"setup on WSL does not say so:\n{said}")
check("WSL has no GPU" not in said, f"setup says WSL has no GPU where Windows passes one:\n{said}")
check("is a Linux NVIDIA driver's, installed inside WSL: it hides Windows' driver" in said,
      f"setup does not name the Linux driver inside WSL:\n{said}")

said = setup(machine("wsl-with-gpu", wsl_kernel, wsl_version, ["dev/dxg", "usr/lib/wsl/lib/libcuda.so.1"]))
check("this is WSL" in said and "WSL has no GPU" not in said and "hides Windows' driver" not in said,
      f"setup on a working WSL said:\n{said}")

said = setup(machine("linux", "6.1.0-18-amd64", "Linux version 6.1.0-18-amd64 (debian-kernel@lists.debian.org)"))
check("WSL" not in said, f"setup off WSL speaks of WSL:\n{said}")

made = calls.read_text() if calls.exists() else ""
check("apt-get" not in made and "sudo" not in made, f"setup installed something:\n{made}")

for f in failures:
    print("FAILED:", f)
print("setup_wsl:", "ok" if not failures else f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)
