#!/usr/bin/env python3
"""grader/gradescope/README.md names every file a lesson's students submit:
its table must list, for each lesson, exactly the SOURCES of the lesson's
course_add_lesson call (lessons/NN_name/CMakeLists.txt), which is what the
batch and run_autograder copy over the skeleton. A file the table leaves
out is one students leave out, graded as the skeleton (lesson01 without
vecadd_cpu.cpp loses 6 points).

    gradescope_files.py SOURCE_DIR
"""
import pathlib
import re
import sys

source = pathlib.Path(sys.argv[1])
failures = []

# SOURCES up to the next keyword of course_add_lesson, comments dropped.
sources = {}
for cmake in sorted(source.glob("lessons/[0-9][0-9]_*/CMakeLists.txt")):
    text = re.sub(r"#[^\n]*", "", cmake.read_text())
    found = re.search(r"\bSOURCES\s+(.*?)\s+(?:TESTS|BENCH|LIBS|\))", text, re.S)
    if not found:
        failures.append(f"{cmake}: no SOURCES in its course_add_lesson call")
        continue
    sources["lesson" + cmake.parent.name[:2]] = found.group(1).split()

readme = (source / "grader/gradescope/README.md").read_text()
table = {m.group(1): re.findall(r"`([^`]+)`", m.group(2))
         for m in re.finditer(r"^\| (lesson\d\d) \| (.*) \|$", readme, re.M)}
for lesson, files in sources.items():
    if lesson not in table:
        failures.append(f"grader/gradescope/README.md's table has no row for {lesson}: add `{'`, `'.join(files)}`")
    elif table[lesson] != files:
        failures.append(f"grader/gradescope/README.md lists {table[lesson]} for {lesson}, its SOURCES are {files}")
for lesson in sorted(set(table) - set(sources)):
    failures.append(f"grader/gradescope/README.md lists {lesson}, which has no lessons/ folder")

# run_autograder copies what the build's manifest says (SOURCES), not a list of its own.
script = (source / "grader/gradescope/run_autograder").read_text()
if "['sources']" not in script:
    failures.append("run_autograder does not take the lesson's files from the manifest's sources")

for f in failures:
    print("FAILED:", f)
print("gradescope files:", "ok" if not failures else f"{len(failures)} failure(s)",
      f"({len(sources)} lessons)")
sys.exit(1 if failures or not sources else 0)
