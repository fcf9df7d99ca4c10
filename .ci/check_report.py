#!/usr/bin/env python3
"""Checks a `grader run --format json` report against what it must show.

  check_report.py REPORT --full-marks            the reference solution
  check_report.py REPORT --loses-all-correctness an untouched skeleton
  check_report.py REPORT --expect EXPECT.json    a known-wrong version (grader/mutants)

Prints one line per problem and exits 1 if there is any; a GPU test that was
skipped is always a problem here, since this runs on a GPU machine.
"""
import argparse
import json
import sys


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("report")
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--full-marks", action="store_true")
    group.add_argument("--loses-all-correctness", action="store_true")
    group.add_argument("--expect")
    args = parser.parse_args()

    with open(args.report) as f:
        report = json.load(f)
    tests = {t["id"]: t for t in report["tests"]}
    problems = []

    for t in tests.values():
        if t["status"] == "skipped":
            problems.append(f"{t['id']} was skipped: {' '.join(t['messages'])}")

    if args.full_marks:
        for t in tests.values():
            if t["status"] != "passed":
                problems.append(f"{t['id']} is {t['status']}: {' | '.join(t['messages'])[:300]}")
    elif args.loses_all_correctness:
        for t in tests.values():
            if t["kind"] == "correctness" and t["status"] == "passed":
                problems.append(f"{t['id']} passed on the untouched skeleton")
            if t["status"] == "failed" and not t["messages"]:
                problems.append(f"{t['id']} failed without a message")
    else:
        with open(args.expect) as f:
            expect = json.load(f)
        for test_id in expect.get("must_fail", []):
            if tests.get(test_id, {}).get("status") == "passed":
                problems.append(f"{test_id} passed but should catch: {expect['mistake']}")
        for test_id in expect.get("must_pass", []):
            status = tests.get(test_id, {}).get("status")
            if status != "passed":
                problems.append(f"{test_id} is {status}, should pass (only its own test may suffer)")
        for test_id, status in expect.get("status", {}).items():
            if tests.get(test_id, {}).get("status") != status:
                problems.append(f"{test_id} is {tests.get(test_id, {}).get('status')}, expected {status}")
        for test_id, text in expect.get("message_contains", {}).items():
            messages = "\n".join(tests.get(test_id, {}).get("messages", []))
            if text not in messages:
                problems.append(f"{test_id}: report does not say '{text}'; it says: {messages[:300]!r}")

    for p in problems:
        print(f"  problem: {p}")
    print(f"{report['lesson']} {report['variant']}: score {report['score']}/{report['max_score']}, "
          f"{'ok' if not problems else f'{len(problems)} problem(s)'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
