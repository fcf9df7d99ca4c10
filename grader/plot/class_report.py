#!/usr/bin/env python3
"""Draws a batch's class report: one HTML page for the instructor.

  python3 grader/plot/class_report.py class_report.json [-o OUT_DIR]

class_report.json is what `grader batch` computes (schema course-class-report/1,
grader/src/batch/class_report.cpp). Writes into OUT_DIR (default: beside the file):

  class_report.html    self-contained: the pictures are embedded, so the page
                       can be mailed or uploaded alone
  score_histogram.png  how many students got each score
  test_losses.png      the share of the class that lost each test

The page also lists the most common diagnoses, the build failures, who was
not graded and why, which GPU graded which submission, and the submissions
that look copied (from the reference solution, a textbook form, a known-wrong
version or a classmate: similarity.json beside the gradebook has them all).

`grader batch` starts it while it grades, with --arguments-on-fd: it imports
matplotlib then, and waits for its arguments (FILE and -o OUT_DIR, as one
line of JSON) on that descriptor, so that drawing is all that is left at the
end. The descriptor's end with no line means there is nothing to draw.
"""
import argparse
import base64
import html
import json
import os
import sys

HISTOGRAM = "score_histogram.png"
LOSSES = "test_losses.png"
PAGE = "class_report.html"


class ReportError(Exception):
    """A problem with the input that the user can fix; printed without a traceback."""


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        raise ReportError(f"cannot read {path}: {e}")
    if not str(doc.get("schema", "")).startswith("course-class-report/"):
        raise ReportError(f"{path} is not a class report's data (no course-class-report schema)")
    return doc


def percent(share):
    return f"{100 * share:.0f}%"


def draw_histogram(doc, output):
    import matplotlib.pyplot as plt

    scores, top = doc.get("scores", []), max(doc.get("max_score", 0), 1)
    fig, ax = plt.subplots(figsize=(9, 4.5))
    if top <= 50:  # one bar per possible score: every point is visible
        counts = [scores.count(s) for s in range(top + 1)]
        ax.bar(range(top + 1), counts, width=0.8, color="C0")
        ax.set_xticks(range(0, top + 1, max(1, (top + 1) // 20)))
    else:
        ax.hist(scores, bins=20, range=(0, top), color="C0", edgecolor="white")
    ax.set_xlim(-0.7, top + 0.7)
    ax.set_xlabel(f"score (out of {doc.get('max_score', 0)})")
    ax.set_ylabel("students")
    ax.yaxis.get_major_locator().set_params(integer=True)
    ax.set_title(f"{doc.get('lesson', '')}: scores of {doc.get('graded', 0)} graded students", loc="left")
    ax.grid(True, axis="y", alpha=0.35)
    fig.tight_layout()
    fig.savefig(output, dpi=120)
    plt.close(fig)


def draw_losses(doc, output):
    import matplotlib.pyplot as plt

    tests = doc.get("tests", [])
    fig, ax = plt.subplots(figsize=(9, 0.45 * max(len(tests), 2) + 1.4))
    labels = [f"{t['id']} ({t['points']} pt)" for t in tests]
    shares = [100 * t.get("share", 0) for t in tests]
    ax.barh(range(len(tests)), shares, color="C3")
    ax.set_yticks(range(len(tests)), labels)
    ax.invert_yaxis()  # the lesson's first test on top
    ax.set_xlim(0, 100)
    ax.set_xlabel("share of the graded class that lost the test (%)")
    for i, s in enumerate(shares):
        ax.text(min(s + 1, 92), i, f"{s:.0f}%", va="center", fontsize=9)
    ax.set_title(f"{doc.get('lesson', '')}: which tests cost points", loc="left")
    ax.grid(True, axis="x", alpha=0.35)
    fig.tight_layout()
    fig.savefig(output, dpi=120)
    plt.close(fig)


def embedded(path, alt):
    with open(path, "rb") as f:
        data = base64.b64encode(f.read()).decode("ascii")
    return f'<img alt="{html.escape(alt)}" src="data:image/png;base64,{data}">'


def table(header, rows):
    head = "".join(f"<th>{html.escape(str(h))}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


STYLE = """
body { font-family: system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem; color: #222; }
h1 { font-size: 1.6rem; } h2 { font-size: 1.2rem; margin-top: 2rem; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; margin: 0.5rem 0; } td, th { padding: 0.2rem 0.7rem; text-align: left; }
th { border-bottom: 2px solid #ccc; } tr:nth-child(even) { background: #f6f6f6; }
img { max-width: 100%; } .summary { font-size: 1.1rem; } .muted { color: #777; }
li { margin: 0.3rem 0; } code { background: #f2f2f2; padding: 0 0.2rem; }
pre { background: #f6f6f6; padding: 0.4rem; overflow-x: auto; font-size: 0.85rem; }
.warning { background: #fde8e8; border-left: 4px solid #c00; padding: 0.5rem 0.8rem; }
"""


def similar_submissions(similarity):
    """The flagged pairs: a flag for the instructor to look at, not a verdict."""
    e = html.escape
    pairs, total = similarity.get("pairs", []), similarity.get("pairs_total", 0)
    versions = similarity.get("compared_with", 0)
    against = (f" and with the course's {versions} versions of the lesson (the reference solution, its textbook "
               f"forms, its known-wrong versions)" if versions else "")
    parts = ["<h2>Similar submissions</h2>",
             f"<p>Each student's own code (what differs from the skeleton, comments, spacing and names left out) "
             f"compared with every classmate's{against}. "
             f"A pair is listed when at least {percent(similarity.get('threshold', 0))} of one side's own code "
             f"and {similarity.get('min_matched_tokens', 0)} tokens match. This is for you to look at: "
             f"it is not a verdict, and it changed no score.</p>"]
    if not pairs:
        parts.append("<p>No pair was similar enough to list.</p>")
        return "\n".join(parts)
    if total > len(pairs):
        parts.append(f'<p class="muted">The {len(pairs)} most similar of {total} pairs; similarity.json lists them all.</p>')
    rows = []
    for p in pairs:
        excerpt = "\n".join(p.get("excerpt", []))
        lines = e(p.get("lines_student", ""))
        if excerpt:
            lines = f"<details><summary>{lines}</summary><pre>{e(excerpt)}</pre></details>"
        rows.append(f"<tr><td>{e(p['student'])}</td><td>{e(p['other'])}</td><td>{p.get('percent', 0)}%</td>"
                    f"<td>{lines}</td><td>{e(p.get('lines_other', ''))}</td></tr>")
    parts.append("<table><thead><tr><th>student</th><th>similar to</th><th>similarity</th>"
                 "<th>the student's lines</th><th>the other's lines</th></tr></thead><tbody>"
                 + "".join(rows) + "</tbody></table>")
    return "\n".join(parts)


def summary_line(doc):
    """The page's first line: how many submissions, how they came out, and the
    scores' mean and median (over the graded ones, build failures at 0).
    Where none was graded there are no scores to average, and it says so."""
    students, graded = doc.get("students", 0), doc.get("graded", 0)
    failed, not_graded = doc.get("build_failures", 0), doc.get("not_graded", 0)
    if graded == 0:
        return (f"{students} submission{'s' if students != 1 else ''}: none graded, so there are no scores; "
                f"{failed} did not compile, {not_graded} not graded.")
    return (f"{students} submission{'s' if students != 1 else ''}: {graded} graded"
            f" (mean {doc.get('mean', 0):.1f}, median {doc.get('median', 0):g} of {doc.get('max_score', 0)}),"
            f" {failed} did not compile (scored 0), {not_graded} not graded.")


def page(doc, histogram_img, losses_img):
    e = html.escape
    lesson, title = doc.get("lesson", ""), doc.get("title", "")
    graded = doc.get("graded", 0)
    parts = [f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">",
             f"<title>{e(lesson)} class report</title><style>{STYLE}</style></head><body>",
             f"<h1>{e(lesson)} · {e(title)}: class report</h1>"]
    parts.append(f'<p class="summary">{e(summary_line(doc))}</p>')
    unsandboxed = doc.get("unsandboxed", 0)
    if unsandboxed:
        parts.append(f'<p class="warning"><b>NOT SANDBOXED:</b> {unsandboxed} submission'
                     f'{"s were" if unsandboxed != 1 else " was"} graded without the sandbox (--no-sandbox), so the students\' '
                     "code ran with the grader's rights and could have read the reference solutions and other "
                     "students' files. Grade again where bubblewrap runs for grades you can trust.</p>")

    if graded == 0:  # no scores: empty pictures would only look like a class that scored nothing
        parts.append("<h2>Scores</h2><p>None: no submission was graded.</p>")
        parts.append("<h2>Tests lost</h2><p>None: no submission was graded.</p>")
    else:
        parts.append("<h2>Scores</h2>" + histogram_img)
        parts.append("<h2>Tests lost</h2>" + losses_img)
        parts.append(table(["test", "what it checks", "points", "lost by", "share"],
                           [[t["id"], t.get("title", ""), t.get("points", 0), t.get("lost", 0),
                             percent(t.get("share", 0))] for t in doc.get("tests", [])]))

    parts.append("<h2>Most common diagnoses</h2>")
    diagnoses = doc.get("diagnoses", [])
    if diagnoses:
        parts.append("<ol>" + "".join(
            f"<li><b>{percent(d['share'])}</b> lost <code>{e(d['test'])}</code>: {e(d['text'])}"
            f' <span class="muted">({d["students"]} students)</span></li>' for d in diagnoses) + "</ol>")
    else:
        parts.append("<p>No test was lost.</p>" if graded else "<p>None: no submission was graded.</p>")

    parts.append("<h2>Build failures</h2>")
    failures = doc.get("build_failures", 0)
    parts.append(f"<p>{failures} submission{'s' if failures != 1 else ''} did not compile.</p>")
    if doc.get("build_errors"):
        parts.append("<ol>" + "".join(f"<li><code>{e(b['text'])}</code>"
                                      f' <span class="muted">({b["students"]} students)</span></li>'
                                      for b in doc["build_errors"]) + "</ol>")

    not_graded = doc.get("not_graded_students", [])
    if not_graded:
        parts.append("<h2>Not graded</h2><p>Not a zero: these submissions could not be graded and will be "
                     "graded again on the next run.</p>")
        parts.append(table(["student", "why"], [[n["student"], n["reason"]] for n in not_graded]))

    similarity = doc.get("similarity")
    if similarity is not None:
        parts.append(similar_submissions(similarity))

    parts.append("<h2>Who graded what</h2>")
    parts.append(table(["GPU", "worker", "submissions"],
                       [[m.get("device") or "unknown", m.get("worker") or "-", m["students"]]
                        for m in doc.get("machines", [])]))
    rows = [[s["student"], s["state"].replace("_", " "), s.get("score", ""), s.get("device") or "-",
             s.get("worker") or "-"] for s in doc.get("submissions", [])]
    parts.append(f"<details><summary>every submission ({len(rows)})</summary>"
                 + table(["student", "outcome", "score", "GPU", "worker"], rows) + "</details>")
    parts.append("</body></html>\n")
    return "\n".join(parts)


def arguments_from(fd):
    """The arguments grader batch sends on descriptor fd once its class is
    graded (one line of JSON); None where it sent none (nothing to draw)."""
    with os.fdopen(fd, "r", encoding="utf-8") as sent:
        line = sent.readline()
    return json.loads(line) if line.strip() else None


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("file", nargs="?", help="class_report.json, written by grader batch")
    parser.add_argument("-o", "--output-dir", help="where the page and pictures go (default: beside FILE)")
    parser.add_argument("--arguments-on-fd", type=int, metavar="FD",
                        help="import matplotlib, then read FILE and -o OUT_DIR from descriptor FD (grader batch)")
    args = parser.parse_args(argv)

    import matplotlib

    matplotlib.use("Agg")  # no display needed: CI, SSH, a GPU node
    matplotlib.rcParams.update({"font.size": 11})

    if args.arguments_on_fd is not None:
        import matplotlib.pyplot  # noqa: F401  (the slow part of the import, done while the class is graded)

        sent = arguments_from(args.arguments_on_fd)
        if sent is None:
            return 0
        args = parser.parse_args(sent)
    if args.file is None:
        parser.error("the class_report.json to draw is missing")

    try:
        doc = load(args.file)
        out = args.output_dir or os.path.dirname(os.path.abspath(args.file))
        os.makedirs(out, exist_ok=True)
        histogram, losses = os.path.join(out, HISTOGRAM), os.path.join(out, LOSSES)
        draw_histogram(doc, histogram)
        draw_losses(doc, losses)
        text = page(doc, embedded(histogram, "score histogram"), embedded(losses, "share of the class that lost each test"))
        # Written whole, then renamed: a reader never sees half a page.
        target = os.path.join(out, PAGE)
        with open(target + ".tmp", "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(target + ".tmp", target)
        print(f"wrote {target}")
    except (ReportError, OSError) as e:
        print(f"class_report: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
