"""What the end-to-end tests of `grader batch` share: the course's folder,
a synthetic class (grader/batch/make_class.py), and checks that are all
made before the test says which failed."""
import pathlib
import subprocess
import sys

COURSE = pathlib.Path(__file__).resolve().parents[4]


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
