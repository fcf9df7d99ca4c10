#!/usr/bin/env python3
"""Unknown names are usage errors (exit 3) that name the close ones, and
`grader list LESSON` shows the test ids that `grader run --test` takes; the
help reads cleanly. The grader as a student calls it, on lesson01 (no GPU
needed: nothing here grades).

    unknown_names.py GRADER BUILD_DIR CASE
    CASE: unknown_test, unknown_lesson, list_tests, help
"""
import subprocess
import sys

grader, build, case = sys.argv[1], sys.argv[2], sys.argv[3]
USAGE_ERROR = 3  # grader --help: 3 usage error
failures = []


def check(condition, what):
    if not condition:
        failures.append(what)


def run(*args):
    done = subprocess.run([grader, "--build-dir", build, *args], capture_output=True, text=True, timeout=600)
    return done.returncode, done.stdout + done.stderr


def list_lesson01():
    """`grader list lesson01` (which builds lesson01's tests where they are missing)."""
    code, out = run("list", "lesson01")
    check(code == 0, f"grader list lesson01 exited {code}:\n{out}")
    return out


if case == "unknown_test":
    list_lesson01()  # the tests' program, built; --no-build below builds nothing
    code, out = run("run", "lesson01", "--no-build", "--test", "VecAddCpuHost.Emtpy")
    check(code == USAGE_ERROR, f"an unknown --test exited {code}, not {USAGE_ERROR}:\n{out}")
    check("no test VecAddCpuHost.Emtpy in lesson01; did you mean VecAddCpuHost.Empty?" in out,
          f"an unknown --test does not name the close one:\n{out}")
    check("grader list lesson01" in out, f"an unknown --test does not say where the ids are:\n{out}")
    check("nothing was graded" not in out, f"an unknown --test graded:\n{out}")
    # Each unknown one is named; the known one is not.
    code, out = run("run", "lesson01", "--no-build", "--test", "VecAddCpuHost.Empty", "--test", "Bandwidth")
    check(code == USAGE_ERROR, f"--test Bandwidth exited {code}:\n{out}")
    check("no test Bandwidth in lesson01; did you mean VecAdd.Bandwidth?" in out, f"--test Bandwidth:\n{out}")
    check("no test VecAddCpuHost.Empty" not in out, f"a known id was called unknown:\n{out}")
elif case == "unknown_lesson":
    for command in (["run"], ["list"], ["hint"], ["reset", "--dry-run"], ["bench"]):
        code, out = run(*command[:1], "vecad", *command[1:])
        check(code == USAGE_ERROR, f"grader {command[0]} vecad exited {code}, not {USAGE_ERROR}:\n{out}")
        check("unknown lesson 'vecad'; did you mean lesson01 (vecadd)? Valid lessons: lesson01 (vecadd)" in out,
              f"grader {command[0]} vecad does not name the close one:\n{out}")
    code, out = run("run", "nosuchlesson")
    check(code == USAGE_ERROR, f"grader run nosuchlesson exited {code}, not {USAGE_ERROR}:\n{out}")
    check("did you mean" not in out, f"nosuchlesson is close to no lesson:\n{out}")
elif case == "list_tests":
    out = list_lesson01()
    check("lesson01 (vector addition):" in out, f"no heading:\n{out}")
    for test_id in ["VecAdd.PartialLastBlock", "VecAdd.Bandwidth", "VecAddCpuHost.Empty"]:
        check(f"\n  {test_id} " in out, f"grader list lesson01 does not show {test_id}:\n{out}")
    check("grade one with: grader run lesson01 --test " in out, f"no example:\n{out}")
    code, out = run("list")
    check(code == 0 and "lesson01  vecadd" in out and "grader list lesson01" in out, f"grader list:\n{out}")
elif case == "help":
    code, out = run("run", "--help")
    check(code == 0, f"grader run --help exited {code}")
    check("{false}" not in out and "{true}" not in out, f"a flag's default shows in grader run --help:\n{out}")
    check("  --no-build " in out, f"grader run --help has no --no-build:\n{out}")
    check("Exit codes: 0 all tests passed" in out, f"grader run --help lacks its exit codes:\n{out}")
    code, out = run("--help")
    check("Exit codes: 0 all tests passed" in out, f"grader --help lacks the exit codes:\n{out}")
    for command in ["hint", "release", "plot", "list", "watch", "reset", "doctor"]:
        code, out = run(command, "--help")
        check(code == 0 and "Exit codes" not in out, f"grader {command} --help shows exit codes:\n{out}")
    for command in ["verify", "batch", "bench"]:
        code, out = run(command, "--help")
        check("{false}" not in out, f"a flag's default shows in grader {command} --help:\n{out}")
    code, out = run("batch", "--help")
    check("Exit codes: 0 every submission graded" in out, f"grader batch --help:\n{out}")
else:
    sys.exit(f"unknown case {case}")

for f in failures:
    print("FAILED:", f)
print(f"{case}:", "ok" if not failures else f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)
