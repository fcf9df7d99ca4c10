#!/usr/bin/env python3
"""The first report of an untouched lesson fits a screen.

Runs `grader run LESSON` on the untouched exercise in a pseudo-terminal of
80 columns (so the grader wraps as it would for a student), and counts the
rows the report fills there: a line wider than the terminal takes more than
one. Fails when they are more than the limit, printing the report.

usage: first_report_rows.py GRADER BUILD_DIR LESSON MAX_ROWS
"""
import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios

COLUMNS = 80


def run_in_terminal(argv):
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 50, COLUMNS, 0, 0))
    env = dict(os.environ, NO_COLOR="1", TERM="dumb")
    child = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=follower, stderr=subprocess.DEVNULL, env=env)
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 65536)
        except OSError:  # the child closed its end
            break
        if not data:
            break
        chunks.append(data)
    child.wait()
    os.close(leader)
    return b"".join(chunks).decode("utf-8", "replace").replace("\r\n", "\n")


def rows(line):
    return max(1, -(-len(line) // COLUMNS))  # len counts code points: ✓ and · take one column


def main():
    grader, build_dir, lesson, limit = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    report = run_in_terminal([grader, "--build-dir", build_dir, "run", lesson, "--no-build", "--seed", "1"])
    if "no CUDA device" in report:
        print("SKIPPED: no CUDA device")
        return 0
    lines = report.strip("\n").split("\n")
    used = sum(rows(line) for line in lines)
    print(report)
    print(f"{used} rows in a {COLUMNS}-column terminal ({len(lines)} lines); at most {limit} allowed")
    return 0 if used <= limit else 1


if __name__ == "__main__":
    sys.exit(main())
