#!/usr/bin/env python3
"""Checks a `grader batch` of a synthetic class (make_class.py) against what
each student must score, as `grader verify` holds the same versions to it:

    python3 grader/batch/check_class.py EXPECT.json BATCH_DIR

full_marks             every test passed
loses_all_correctness  no correctness test passed
build_failed           the batch says it did not compile (a zero, not "not graded")
expectation            the known-wrong version's or cheat's expect.json: must_fail
                       tests lost, must_pass tests passed, exact statuses, score,
                       the diagnosis in the message, the note in the report
Prints one line per student and exits 1 if any is not as expected.
"""
import json
import pathlib
import sys


def problems_of(want, outcome, report):
    if want["kind"] == "build_failed":
        return [] if outcome.get("state") == "build_failed" else [f"state {outcome.get('state')}, not build_failed"]
    if outcome.get("state") != "graded" or report is None:
        return [f"state {outcome.get('state')}: {outcome.get('not_graded') or outcome.get('build_error', '')[:200]}"]
    tests = {t["id"]: t for t in report["tests"]}
    skipped = [i for i, t in tests.items() if t["status"] == "skipped"]
    if skipped:
        return [f"{len(skipped)} test(s) skipped (no GPU?)"]
    found = []
    if want["kind"] == "full_marks":
        found += [f"{i} {t['status']}: {' '.join(t['messages'])[:200]}" for i, t in tests.items() if t["status"] != "passed"]
    elif want["kind"] == "loses_all_correctness":
        found += [f"{i} passed" for i, t in tests.items() if t["kind"] == "correctness" and t["status"] == "passed"]
    else:
        e = want["expect"]
        found += [f"{i} passed, must fail" for i in e.get("must_fail", []) if tests.get(i, {}).get("status") == "passed"]
        found += [f"{i} {tests.get(i, {}).get('status', 'absent')}, must pass"
                  for i in e.get("must_pass", []) if tests.get(i, {}).get("status") != "passed"]
        found += [f"{i} {tests.get(i, {}).get('status')}, must be {s}"
                  for i, s in e.get("status", {}).items() if tests.get(i, {}).get("status") != s]
        for i, said in e.get("message_contains", {}).items():
            texts = [said] if isinstance(said, str) else said  # one text, or a list of which one must be said
            messages = "\n".join(tests.get(i, {}).get("messages", []))
            if not any(text in messages for text in texts):
                found.append(f"{i}: message lacks {' or '.join(repr(text) for text in texts)}")
        if "score" in e and report["score"] != e["score"]:
            found.append(f"score {report['score']}, must be {e['score']}")
        if "max_score" in e and report["max_score"] != e["max_score"]:
            found.append(f"max score {report['max_score']}, must be {e['max_score']}")
        if e.get("note_contains") and not any(e["note_contains"] in n for n in report.get("notes", [])):
            found.append(f"no note says {e['note_contains']!r}")
    return found


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    expect = json.loads(pathlib.Path(sys.argv[1]).read_text())
    students = pathlib.Path(sys.argv[2]) / "students"
    bad = 0
    for name, want in sorted(expect.items()):
        folder = students / name
        try:
            outcome = json.loads((folder / "outcome.json").read_text())
        except OSError:
            print(f"  ✗ {name}: no result in {folder}")
            bad += 1
            continue
        report_file = folder / "report.json"
        report = json.loads(report_file.read_text()) if report_file.is_file() else None
        found = problems_of(want, outcome, report)
        score = f"{report['score']}/{report['max_score']}" if report else outcome.get("state")
        if found:
            bad += 1
            print(f"  ✗ {name} {score}: " + "; ".join(found))
        else:
            print(f"  ✓ {name} {score}")
    print(f"batch check: {len(expect) - bad} of {len(expect)} as expected")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
