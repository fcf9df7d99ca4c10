#!/usr/bin/env python3
"""The course site builds and every page of it loads in a real browser, and
the browser check fails where a page is broken.

1. grader/site/build_site.py builds the site (mkdocs --strict: a missing
   page or picture fails the build), with the plots of grader/site/measured/.
2. grader/site/check_site.py walks it in Debian's chromium through
   Playwright: every page, picture, link to a place, and hint; it must say
   "all fine".
3. The page "Grading a class" shows every run of
   grader/site/measured/grading.csv, and the instructor's guide links to it.
4. A copy of the site with four faults (a picture deleted, a link to a place
   no page has, a picture that is not there, a page nothing links to) must
   fail the same check, each fault named: a check that cannot fail proves
   nothing.

The tools come from grader/site/requirements.txt in a virtual environment
(build/tools, which .ci/run makes) and chromium from the system's packages.
Without them the test reports itself skipped, saying what is missing, unless
COURSE_REQUIRE_TOOLS=1 (CI) makes that a failure.

usage: site_check.py SOURCE_DIR BUILD_DIR
"""
import csv
import os
import shutil
import subprocess
import sys
from pathlib import Path

MODULES = ("mkdocs", "material", "pymdownx", "playwright", "matplotlib", "yaml")


def tools_python(source_dir):
    """A Python that has the site's tools, and what is missing otherwise."""
    candidates = [os.environ.get("COURSE_SITE_PYTHON"), str(source_dir / "build/tools/bin/python"), sys.executable]
    missing = "no Python found"
    for python in filter(None, candidates):
        if not os.access(python, os.X_OK):
            continue
        probe = subprocess.run([python, "-c", "import importlib.util, sys; "
                                f"print(' '.join(m for m in {MODULES!r} if importlib.util.find_spec(m) is None))"],
                               capture_output=True, text=True)
        if probe.returncode == 0 and not probe.stdout.strip():
            return python, None
        missing = f"{python} lacks {probe.stdout.strip() or probe.stderr.strip()}"
    return None, missing


def run(argv, **kwargs):
    result = subprocess.run(argv, capture_output=True, text=True, timeout=900, **kwargs)
    print(f"$ {' '.join(str(a) for a in argv)}  (exit {result.returncode})")
    print(result.stdout + result.stderr)
    return result


def break_site(site, broken):
    """A copy of the site with four faults a reader would meet."""
    shutil.copytree(site, broken)
    lesson = next(broken.glob("lessons/01_*/index.html"))
    pictures = sorted(p for p in broken.glob("lessons/**/*.png"))
    if not pictures:
        raise SystemExit("FAIL: the built site has no picture in a lesson to delete")
    deleted = pictures[0]
    deleted.unlink()
    html = lesson.read_text()
    html = html.replace("</article>", '<p><a href="#no-such-place">a link to nowhere</a>'
                        '<img src="not-there.png" alt="a picture that is not there"></p></article>', 1)
    lesson.write_text(html)
    orphan = broken / "orphan" / "index.html"
    orphan.parent.mkdir()
    orphan.write_text("<!doctype html><title>orphan</title><p>no link leads here</p>")
    return [deleted.name, "#no-such-place", "not-there.png", "orphan/index.html"]


def main():
    source_dir, build_dir = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
    require = os.environ.get("COURSE_REQUIRE_TOOLS") == "1"
    python, missing = tools_python(source_dir)
    browser = next(filter(None, (os.environ.get("CHROMIUM"), shutil.which("chromium"),
                                 shutil.which("chromium-browser"))), None)
    if python is None or browser is None:
        why = missing if python is None else "no chromium on PATH (apt-get install chromium)"
        fix = "python3 -m venv build/tools && build/tools/bin/pip install -r grader/site/requirements.txt"
        print(f"{'FAIL' if require else 'SKIPPED'}: the site's tools are missing: {why}; {fix}")
        return 1 if require else 0

    work = build_dir / "site-check"
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    site = work / "site"
    env = dict(os.environ, MPLBACKEND="Agg")
    if run([python, source_dir / "grader/site/build_site.py", "--out", site], env=env).returncode != 0:
        print("FAIL: the site did not build")
        return 1
    good = run([python, source_dir / "grader/site/check_site.py", site, "--browser", browser,
                "--screenshot", work / "lesson01.png"])
    if good.returncode != 0 or "all fine" not in good.stdout:
        print("FAIL: the browser check found problems in the built site")
        return 1

    # The grading figures are data (grader/site/measured/grading.csv): every
    # run's commit is on the page "Grading a class", and the instructor's
    # guide links to that page.
    with open(source_dir / "grader/site/measured/grading.csv", newline="") as data:
        commits = {row["commit"] for row in csv.DictReader(data)}
    grading_page = site / "grading" / "index.html"
    shown = grading_page.read_text() if grading_page.is_file() else ""
    unshown = sorted(c for c in commits if c not in shown)
    if not shown or unshown or "NVIDIA H200" not in shown:
        print(f"FAIL: the page of grading figures is missing or leaves out the runs of {unshown}")
        return 1
    if 'href="../../grading/' not in (site / "grader" / "INSTRUCTORS" / "index.html").read_text():
        print("FAIL: the instructor's guide does not link to the page of grading figures")
        return 1

    faults = break_site(site, work / "broken")
    bad = run([python, source_dir / "grader/site/check_site.py", work / "broken", "--browser", browser])
    unnamed = [fault for fault in faults if not any(fault in line for line in bad.stdout.splitlines()
                                                     if line.startswith("FAIL:"))]
    if bad.returncode == 0 or unnamed:
        print(f"FAIL: the browser check passed a broken site or did not name {unnamed}")
        return 1
    print(f"site check: the site builds and loads; a broken copy fails, naming all {len(faults)} faults")
    return 0


if __name__ == "__main__":
    sys.exit(main())
