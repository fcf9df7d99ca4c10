"""What the end-to-end tests of `grader batch` share: the course's folder,
a synthetic class (grader/batch/make_class.py), and checks that are all
made before the test says which failed."""
import pathlib
import subprocess
import sys

COURSE = pathlib.Path(__file__).resolve().parents[4]


def bubblewrap_options():
    """[] where bubblewrap runs here; else ["--no-sandbox"], said once: a
    batch refuses to grade without the sandbox, and these tests are about the
    grading (batch_sandbox.py is the one about the refusal)."""
    probe = ["bwrap", "--ro-bind", "/", "/", "--unshare-net", "--unshare-pid", "--die-with-parent", "--", "/bin/true"]
    try:
        runs = subprocess.run(probe, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0
    except OSError:
        runs = False
    if not runs:
        print("note: bubblewrap cannot run here: the batches below grade with --no-sandbox")
    return [] if runs else ["--no-sandbox"]


def make_class(lesson, folder, *options):
    """A synthetic class of `lesson` in `folder` (make_class.py's options)."""
    subprocess.run([sys.executable, str(COURSE / "grader/batch/make_class.py"), str(lesson), str(folder),
                    *map(str, options)], check=True)


class Checks:
    """check(condition, what) as often as needed; finish(name) prints every
    failure and returns the exit code."""

    def __init__(self):
        self.failures = []

    def __call__(self, condition, what):
        if not condition:
            self.failures.append(what)

    def finish(self, name):
        for f in self.failures:
            print("FAILED:", f)
        print(f"{name}:", "ok" if not self.failures else f"{len(self.failures)} failure(s)")
        return 1 if self.failures else 0
