#!/usr/bin/env python3
"""Checks that the lesson texts state the speed tests' thresholds as the tests do.

Usage: lesson_thresholds.py SOURCE_DIR [--list]

A speed test's threshold lives in its code: the share passed to
expect_bandwidth_share (0.60), a named constant (share_of_textbook_needed =
0.8, needed = 1.3), or the number in its comparison (EXPECT_GE(share, 0.25),
EXPECT_LT(lookup, 0.10 * compile), `if (cuda_ns / pool_ns < 10.0)`). This
check reads every GRADED_PERF_TEST* of grader/tests/NN_*/ and

1. takes the figure in its title ("bandwidth >= 60% of ...", "1.3x or more")
   and fails unless the code checks that same number;
2. finds every threshold that lessons/NN_*/README.md and hints.md state (a
   percentage or a factor right after "at least", ">=", "under", "must
   reach", "asks for", or right before "is needed" or "or more"; "twice the
   speed" counts as 2x) and fails, with file:line and the figures the
   lesson's speed tests really use, for any number no speed test of that
   lesson has.

A share and a factor are one number here: 60% is 0.6, and so is 0.60x.
--list prints every test and every statement found, to see what is read.
Exit status: 0 when everything agrees, 1 otherwise.
"""
import re
import sys
from pathlib import Path

NUMBER = r"(\d+(?:\.\d+)?)(%|x\b)"
# A figure stated as a requirement: after a cue, or before one.
BEFORE = re.compile(r"(?:\bat least|>=|≥|\bunder|\bmust reach|\basks? for|\bno less than)\s+" + NUMBER, re.I)
AFTER = re.compile(NUMBER + r"\s+(?:or more|is needed|are needed|needed)\b", re.I)
BARE_NEEDED = re.compile(r"(?<![\w.%])(\d+(?:\.\d+)?)\s+is needed\b", re.I)
WORDS = {"twice": 2.0, "three times": 3.0, "four times": 4.0}
TIMES = re.compile(r"\b(twice|three times|four times)\s+(?:the speed|as fast)\b", re.I)

STOP = set("a an the of at least is are in on to and or for its this gpu gpu's s speed test tests "
           "needed kernel kernel's than more with by as be it".split())


def value(number, unit):
    """60% -> 0.6, 1.3x -> 1.3."""
    return float(number) / 100 if unit == "%" else float(number)


def show(v):
    return f"{v * 100:g}%" if v < 1 else f"{v:g}x"


def words(text):
    return {w for w in re.findall(r"[a-z0-9_^]+", text.lower()) if w not in STOP}


def strip_comments_and_strings(code):
    """The code with comments and string literals blanked (same length)."""
    out, i, n = [], 0, len(code)
    while i < n:
        if code.startswith("//", i):
            j = code.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i)); i = j
        elif code.startswith("/*", i):
            j = code.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", code[i:j])); i = j
        elif code[i] in "\"'":
            q, j = code[i], i + 1
            while j < n and code[j] != q:
                j += 2 if code[j] == "\\" else 1
            out.append(q + " " * (j - i - 1) + q); i = j + 1
        else:
            out.append(code[i]); i += 1
    return "".join(out)


def matching(code, start, open_ch, close_ch):
    """Index just past the bracket that closes the one at `start`."""
    depth = 0
    for i in range(start, len(code)):
        if code[i] == open_ch:
            depth += 1
        elif code[i] == close_ch:
            depth -= 1
            if depth == 0:
                return i + 1
    return len(code)


def top_level_args(text, raw=None):
    """The comma-separated arguments in `text` (code with its strings blanked),
    each taken from `raw` at the same place when given."""
    raw = text if raw is None else raw
    args, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            args.append(raw[start:i].strip()); start = i + 1
    args.append(raw[start:].strip())
    return args


def thresholds_in(body, constants):
    """Numbers a speed test's code compares against."""
    found = set()

    def number_of(expr):
        expr = expr.strip()
        m = re.fullmatch(r"(\d+(?:\.\d+)?)\s*(?:\*.*)?", expr, re.S)
        if m:
            return float(m.group(1))
        if expr in constants:
            return constants[expr]
        return None

    for m in re.finditer(r"\bexpect_bandwidth_share\s*\(", body):
        args = top_level_args(body[m.end():matching(body, m.end() - 1, "(", ")") - 1])
        found.update(float(a) for a in args if re.fullmatch(r"\d*\.\d+", a))
    for m in re.finditer(r"\bEXPECT_(?:GE|GT|LE|LT)\s*\(", body):
        args = top_level_args(body[m.end():matching(body, m.end() - 1, "(", ")") - 1])
        if len(args) == 2 and (v := number_of(args[1])) is not None:
            found.add(v)
    for m in re.finditer(r"\bif\s*\(([^(){};]*(?:\([^()]*\)[^(){};]*)*)\)", body):
        c = re.search(r"(?:<=|>=|<|>)\s*([\w.]+)\s*$", m.group(1))
        if c and (v := number_of(c.group(1))) is not None:
            found.add(v)
    return found


def read_tests(test_dir):
    """[(name, title, figure or None, where, problems)] for every speed test in test_dir."""
    tests = []
    for path in sorted(test_dir.iterdir()):
        if path.suffix not in (".cpp", ".cu", ".hpp", ".cuh"):
            continue
        raw = path.read_text()
        code = strip_comments_and_strings(raw)
        constants = {m.group(1): float(m.group(2))
                     for m in re.finditer(r"\bconstexpr\s+double\s+(\w+)\s*=\s*(\d+(?:\.\d+)?)\s*;", code)}
        functions = {}
        for m in re.finditer(r"\b(?:void|bool|double|auto|int)\s+(\w+)\s*\([^;{)]*(?:\([^)]*\)[^;{)]*)*\)\s*\{", code):
            functions[m.group(1)] = code[m.end() - 1:matching(code, m.end() - 1, "{", "}")]
        for m in re.finditer(r"\bGRADED_PERF_TEST\w*\s*\(", raw):
            if code[m.start():m.end()] != raw[m.start():m.end()]:
                continue  # in a comment
            close = matching(code, m.end() - 1, "(", ")")
            args = top_level_args(code[m.end():close - 1], raw[m.end():close - 1])
            if len(args) < 4:
                continue
            title = "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', args[3]))
            brace = code.find("{", close)
            body = code[brace:matching(code, brace, "{", "}")]
            # Helpers of the same file that the test calls hold its comparison too.
            for called in set(re.findall(r"\b(\w+)\s*\(", body)):
                if called in functions:
                    body += functions[called]
            in_code = thresholds_in(body, constants)
            line = raw.count("\n", 0, m.start()) + 1
            where = f"{path.relative_to(test_dir.parents[2])}:{line}"
            in_title = [value(n, u) for n, u in re.findall(NUMBER, title)]
            problems = []
            figure = None
            if len(in_title) == 1:
                figure = in_title[0]
                if not any(abs(figure - c) < 1e-9 for c in in_code):
                    problems.append(f"{where}: the title \"{title}\" says {show(figure)}, but the test's code checks "
                                    f"{', '.join(show(c) for c in sorted(in_code)) or 'no number this check can read'}")
            elif len(in_code) == 1:
                figure = next(iter(in_code))
            else:
                problems.append(f"{where}: cannot tell the threshold of \"{title}\" (title: "
                                f"{[show(v) for v in in_title]}, code: {[show(c) for c in sorted(in_code)]})")
            tests.append((f"{args[0]}.{args[1]}", title, figure, where, problems))
    return tests


def statements(path):
    """[(line, value, the text around it)] for every threshold the file states."""
    raw = path.read_text()
    flat = raw.replace("\n", " ").replace("*", " ")  # same length: offsets keep their lines
    found = []

    def add(pos, v, end):
        start = max(flat.rfind(c, 0, pos) for c in (". ", ";", "|", "(", "  "))  # the clause it is in
        found.append((raw.count("\n", 0, pos) + 1, v, flat[start + 1:end].strip()))

    for pattern in (BEFORE, AFTER):
        for m in pattern.finditer(flat):
            add(m.start(1), value(m.group(1), m.group(2)), m.end())
    for m in BARE_NEEDED.finditer(flat):
        add(m.start(1), float(m.group(1)), m.end())
    for m in TIMES.finditer(flat):
        add(m.start(), WORDS[m.group(1).lower()], m.end())
    seen, unique = set(), []
    for line, v, context in sorted(found):
        if (line, v) not in seen:
            seen.add((line, v)); unique.append((line, v, context))
    return unique


def main():
    if len(sys.argv) < 2:
        print(__doc__); return 2
    root = Path(sys.argv[1]).resolve()
    listing = "--list" in sys.argv[2:]
    failures, checked = [], 0
    for lesson in sorted((root / "lessons").glob("[0-9][0-9]_*")):
        test_dir = root / "grader" / "tests" / lesson.name
        tests = read_tests(test_dir) if test_dir.is_dir() else []
        for name, title, figure, where, problems in tests:
            failures += problems
            if listing:
                print(f"{lesson.name}: test {name} \"{title}\": {show(figure) if figure else '?'} ({where})")
        figures = [(name, title, figure) for name, title, figure, _, _ in tests if figure is not None]
        for text in (lesson / "README.md", lesson / "hints.md"):
            if not text.exists():
                continue
            rel = text.relative_to(root)
            for line, v, context in statements(text):
                checked += 1
                if listing:
                    print(f"  {rel}:{line}: {show(v)}  ({context[-90:]})")
                if any(abs(v - f) < 1e-9 for _, _, f in figures):
                    continue
                if not figures:
                    failures.append(f"{rel}:{line}: states a threshold of {show(v)} (\"{context[-100:]}\"), "
                                    f"but {lesson.name} has no speed test")
                    continue
                near = max(figures, key=lambda t: len(words(t[1]) & words(context)))
                others = "; ".join(f"{n} \"{t}\": {show(f)}" for n, t, f in figures)
                failures.append(f"{rel}:{line}: states {show(v)} (\"{context[-100:]}\"), which no speed test of "
                                f"{lesson.name} asks for; the nearest, {near[0]} \"{near[1]}\", asks for "
                                f"{show(near[2])}. The lesson's speed tests: {others}")
    for f in failures:
        print("FAIL " + f)
    if failures:
        print(f"{len(failures)} stated threshold(s) disagree with the graded tests")
        return 1
    print(f"every threshold the lessons state ({checked} statements) matches a graded speed test")
    return 0


if __name__ == "__main__":
    sys.exit(main())
