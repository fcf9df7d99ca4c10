#!/usr/bin/env python3
"""`grader batch` end to end on lesson04: a class of a solution, a skeleton,
a submission that does not compile and one that lacks a file. Checks the
gradebook, the per-student reports, the class report's data, that a copy of
the reference solution is flagged as similar and the untouched skeleton is
not (the comparison needs no GPU), and that a rerun grades nothing twice.
Without a GPU, only the build failure is a grade: the others' host tests
ran, but their GPU tests could not, so they have no score, only why.

    batch_end_to_end.py GRADER BUILD_DIR
"""
import csv
import json
import pathlib
import shutil
import subprocess
import sys
import tempfile

from batch_test_support import COURSE as course, Checks, bubblewrap_options, make_class

grader, build = sys.argv[1], sys.argv[2]
work = pathlib.Path(tempfile.mkdtemp(prefix="batch-e2e-"))
check = Checks()

sandbox = bubblewrap_options()
try:
    klass = work / "class"
    make_class(4, klass, "--count", 3)
    # A student who handed in one of the two files, in a folder of their own making.
    (klass / "dora" / "src").mkdir(parents=True)
    shutil.copy(course / "solutions/04_memory_pools/memory_pool.cu", klass / "dora/src/memory_pool.cu")

    def batch(*extra):
        return subprocess.run([grader, "--build-dir", build, "batch", "4", str(klass), "-o", str(work / "out"),
                               "--seed", "3", "--no-build", *sandbox, *extra],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

    first = batch()
    print(first.stdout)
    check(first.returncode in (0, 2), f"grader batch exit code {first.returncode}")

    no_gpu = "no GPU here" in first.stdout
    rows = {r["student"]: r for r in csv.DictReader(open(work / "out" / "gradebook.csv", newline=""))}
    check(sorted(rows) == ["compile_error", "dora", "skeleton", "solution"], f"gradebook rows {sorted(rows)}")
    host = [c for c in rows["solution"] if c.startswith("MemoryPoolHost.")]
    check(len(host) >= 5, f"host test columns {host}")
    check(rows["compile_error"]["score"] == "0" and "did not compile" in rows["compile_error"]["note"],
          f"compile_error row {rows['compile_error']}")
    check("missing async_pool.cu" in rows["dora"]["note"], f"dora's note: {rows['dora']['note']}")
    if no_gpu:
        # Host tests alone are no grade: no score, no points per test, and why.
        for student in ("dora", "skeleton", "solution"):
            row = rows[student]
            check(row["score"] == "" and all(row[c] == "" for c in host), f"{student} has a score without a GPU: {row}")
            check(row["note"].startswith("not graded: its GPU tests could not run here (no GPU"),
                  f"{student}'s note: {row['note']!r}")
            check(not (work / "out/students" / student / "results.json").exists(),
                  f"{student}'s Gradescope results.json exports a score without a GPU")
    else:
        check(all(rows["solution"][c] not in ("", "0") for c in host), "the solution lost a host test")
        check(all(rows["skeleton"][c] == "0" for c in host), "the skeleton earned a host test")
        check(all(rows["dora"][c] not in ("", "0") for c in host if "MemoryPool" in c),
              "dora's memory_pool.cu is the solution's: its host tests pass")

    # Copies flagged: the solution's row names the reference solution; the
    # skeleton wrote nothing of its own and is in no pair. Scores are as above.
    check("the reference solution" in rows["solution"].get("similarity", ""),
          f"the copy of the solution is not flagged: {rows['solution']}")
    check(rows["skeleton"].get("similarity") == "", f"the skeleton is flagged: {rows['skeleton']}")
    similar = json.loads((work / "out/similarity.json").read_text())
    pairs = {(p["student"], p["other"], p["other_kind"]) for p in similar["pairs"]}
    check(any(p["student"] == "solution" and p["other_kind"] == "reference" and p["similarity"] > 0.9
              for p in similar["pairs"]), f"similarity.json has no solution ~ reference pair: {sorted(pairs)}")
    check(not any("skeleton" in pair for pair in pairs), f"similarity.json pairs the skeleton: {sorted(pairs)}")

    report = (work / "out/students/compile_error/report.txt").read_text()
    check("does not compile" in report and "this line is not C++" in report, "compile_error's report:\n" + report)
    if not no_gpu:
        solution = json.loads((work / "out/students/solution/report.json").read_text())
        check(any("sandbox" in n for n in solution.get("notes", [])), f"no word on the sandbox: {solution.get('notes')}")
    # Where each graded submission's time went, as `grader run --timings` shows it, from the batch's start.
    timings = work / "out/logs/solution.timings.txt"
    table = timings.read_text() if timings.exists() else ""
    check(table.startswith("where the time went:") and "from the batch's start" in table
          and "student: MemoryPoolHost." in table and "judge: MemoryPoolHost." in table,
          f"the solution's timings table:\n{table}")
    check(not (work / "out/logs/compile_error.timings.txt").exists(), "a submission that did not build has timings")
    check(json.loads((work / "out/logs/batch.json").read_text()).get("sandboxed") is not sandbox,
          "batch.json says the wrong thing of the sandbox")
    data = json.loads((work / "out/report/class_report.json").read_text())
    check(data.get("lesson") == "lesson04" or "lesson04" in json.dumps(data)[:200], "class report data")
    check(data.get("not_graded") == (3 if no_gpu else 0), f"the class report's not_graded: {data.get('not_graded')}")
    check(data.get("unsandboxed") == (0 if not sandbox else 1 if no_gpu else 4),
          f"the class report's unsandboxed: {data.get('unsandboxed')}")
    check(data.get("similarity", {}).get("pairs_total") == len(pairs), "the class report lists the similar pairs")

    # Grades back to students: Canvas's and Moodle's CSVs, a feedback file per student.
    canvas = (work / "out/lms/canvas.csv").read_bytes().decode("utf-8").split("\r\n")
    check(canvas[0] == "Student,ID,SIS User ID,SIS Login ID,Section,lesson04", f"Canvas's header: {canvas[0]!r}")
    check(canvas[1].startswith("    Points Possible,,,,,"), f"Canvas's second row: {canvas[1]!r}")
    check("compile_error,,,compile_error,,0" in canvas, f"no roster: the folder is the login: {canvas}")
    for student in rows:
        for ext in ("txt", "html"):
            check((work / "out/feedback" / f"{student}.{ext}").is_file(), f"no feedback/{student}.{ext}")
    check("lms/canvas.csv (Canvas)" in first.stdout and "--roster FILE maps them" in first.stdout,
          "the batch does not say where the LMS files are")

    # Without a GPU nothing but the build failure is final: a rerun grades the
    # other three again (their GPU tests are still owed) and skips it. This
    # one with a roster that leaves dora out: she is named, not dropped.
    roster = work / "roster.csv"
    roster.write_text('folder,id,name,section\n'
                      'solution,sol@uni.example,"Solution, Sally",S1\n'
                      'skeleton,skel@uni.example,"Skeleton, Sam",S2\n'
                      'compile_error,ce@uni.example,"Error, Eve",S1\n'
                      'nobody,nobody@uni.example,"Absent, Al",S2\n', encoding="utf-8")
    second = batch("--roster", str(roster), "--lms-column", "lesson04 (42)")
    print(second.stdout)
    check("NOT IN THE ROSTER: 1 student (dora)" in second.stdout, "the batch does not name dora, not in the roster")
    check("no submission from 1 student of the roster: nobody" in second.stdout,
          "the batch does not name the roster's student without a submission")
    canvas = list(csv.reader(open(work / "out/lms/canvas.csv", newline="", encoding="utf-8")))
    check(canvas[0][-1] == "lesson04 (42)", f"--lms-column: {canvas[0]}")
    by_login = {r[3]: r for r in canvas[2:]}
    check(by_login.get("ce@uni.example", [""])[0] == "Error, Eve" and by_login["ce@uni.example"][4] == "S1"
          and by_login["ce@uni.example"][5] == "0", f"the roster's student in Canvas's CSV: {canvas}")
    check(by_login.get("dora", [""])[0] == "dora (not in the roster)", f"dora in Canvas's CSV: {canvas}")
    check((work / "out/feedback/ce@uni.example.txt").is_file() and (work / "out/feedback/dora.html").is_file(),
          "feedback files named by the roster's id (and the folder, out of it)")
    check((work / "out/lms/roster.csv").is_file(), "the roster is not kept in the batch folder")
    if sandbox:  # grades made without the sandbox are not final either: all are graded again
        check("already graded" not in second.stdout, "a rerun kept grades made without the sandbox")
    else:
        expected = "1 already graded" if no_gpu else "4 already graded"
        check(expected in second.stdout, f"the rerun did not say '{expected}'")
finally:
    shutil.rmtree(work, ignore_errors=True)

sys.exit(check.finish("batch end to end"))
