#!/usr/bin/env python3
"""The class report's first line (grader/plot/class_report.py): where no
submission was graded it says there are no scores, rather than "0 graded
(mean 0.0, median 0 of 23)"; otherwise the mean and median of the graded.
Needs no matplotlib: only the page's words are checked.

    class_report_summary.py GRADER_PLOT_DIR
"""
import sys

sys.path.insert(0, sys.argv[1])
import class_report  # noqa: E402

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print(f"FAIL: {what}", flush=True)


nothing = {"lesson": "lesson01", "title": "vector addition", "students": 23, "graded": 0, "build_failures": 0,
           "not_graded": 23, "max_score": 0, "mean": 0, "median": 0, "scores": [], "tests": [], "diagnoses": []}
line = class_report.summary_line(nothing)
check(line == "23 submissions: none graded, so there are no scores; 0 did not compile, 23 not graded.", line)
page = class_report.page(nothing, "<img histogram>", "<img losses>")
check("none graded, so there are no scores" in page, "the page does not say there are no scores")
check("mean 0.0" not in page and "median" not in page, "a class with no scores still shows a mean or median")
check("<img histogram>" not in page and "<img losses>" not in page, "empty pictures drawn for a class with no scores")
check("No test was lost" not in page, "a class with nothing graded is said to have lost no test")

some = dict(nothing, graded=7, build_failures=2, not_graded=1, students=8, max_score=10, mean=5.5, median=6,
            scores=[0, 0, 4, 6, 6, 8, 10], tests=[{"id": "VecAdd.Large", "points": 10, "lost": 3, "share": 3 / 7}])
line = class_report.summary_line(some)
check(line == "8 submissions: 7 graded (mean 5.5, median 6 of 10), 2 did not compile (scored 0), 1 not graded.", line)
page = class_report.page(some, "<img histogram>", "<img losses>")
check("<img histogram>" in page and "<img losses>" in page, "a graded class's pictures are missing")
check("VecAdd.Large" in page, "a graded class's lost tests are missing")
check(class_report.summary_line(dict(nothing, students=1, not_graded=1)).startswith("1 submission: none graded"),
      "one submission is not 'submissions'")

print("ok" if not failures else f"{len(failures)} check(s) failed")
sys.exit(1 if failures else 0)
