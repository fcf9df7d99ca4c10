#!/usr/bin/env python3
"""Builds the course as a site: the lessons with their hints behind a click,
the instructor's guide and the threat model, searchable, for an instructor
to publish (GitHub Pages, a university web space: any static host).

The pages are the repository's own Markdown, copied into a staging folder
beside the site and built with mkdocs and the Material theme, so a lesson's
text has one source. On the way:
  - each lesson's hints.md becomes a "Hints" section at the end of its page,
    every hint folded until it is clicked;
  - each `grader bench` file of the lesson in grader/site/measured/ (one per
    reference GPU: lesson01-h200.json) is drawn by grader/plot/course_plot.py
    into a "Measured" section before the hints, with the GPU, toolkit,
    driver, date and commit it was measured with;
  - grader/site/measured/grading.csv (how long `grader batch` took for a
    class, a row per run) becomes the page "Grading a class", tables with
    the GPU, date and commit of each run; a link to the CSV from a page
    (the instructor's guide) goes to that page;
  - a path in backquotes that names another page of the site
    (`grader/TRUST.md`) becomes a link to it;
  - a link to a file of the repository that is not a page (an exercise's
    source) goes to the repository's copy with --repo-url, and stays plain
    text without one, so no link on the site points nowhere.
mkdocs runs with --strict: a missing picture or page fails the build.

Setup, once (Debian's chromium is only for check_site.py):
    python3 -m venv build/tools
    build/tools/bin/pip install -r grader/site/requirements.txt
Build:
    build/tools/bin/python grader/site/build_site.py      # -> build/site/index.html
Check in a real browser:
    build/tools/bin/python grader/site/check_site.py build/site
"""
import argparse
import csv
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path, PurePosixPath

import yaml

SITE_DIR = Path(__file__).resolve().parent
SOURCE_DIR = SITE_DIR.parent.parent
MEASURED_DIR = SITE_DIR / "measured"
GRADING_FILE = MEASURED_DIR / "grading.csv"
# Pages made from data rather than copied: the repository file a link names,
# and the page of the site it goes to.
DATA_PAGES = {"grader/site/measured/grading.csv": "grading.md"}
PLOT_SCRIPT = SOURCE_DIR / "grader/plot/course_plot.py"

# The pictures each lesson's bench file is drawn as: a name for the picture,
# course_plot.py's --kind, and the --family and --baseline where one picture
# of the whole file would compare unlike things (lesson04's allocations and
# its temporaries are different jobs, each against its own cudaMalloc).
PLOTS = {
    "lesson01": [("bandwidth", "bandwidth", [], None)],
    "lesson02": [("bandwidth", "bandwidth", [], None)],
    "lesson03": [("time", "time", [], None)],
    "lesson04": [
        ("alloc-free", "speedup", ["alloc_free/pool", "alloc_free/cudaMallocAsync", "alloc_free/cudaMalloc"],
         "alloc_free/cudaMalloc"),
        ("temporaries", "speedup", ["temporaries/pool", "temporaries/cudaMallocAsync", "temporaries/cudaMalloc",
                                    "temporaries/none"], "temporaries/cudaMalloc"),
    ],
    "lesson05": [("timeline", "timeline", [], None)],
    "lesson06": [("bandwidth", "bandwidth", [], None)],
    "lesson07": [("gflops", "gflops", [], None)],
}

# The guides beside the grader, in the order the navigation shows them.
INSTRUCTOR_PAGES = [
    ("The course for instructors", "grader/INSTRUCTORS.md"),
    ("Why the grades can be trusted", "grader/TRUST.md"),
    ("Known-wrong versions", "grader/mutants/README.md"),
    ("Textbook forms", "grader/textbooks/README.md"),
    ("Known cheats", "grader/cheats/README.md"),
    ("Gradescope", "grader/gradescope/README.md"),
    ("How the grader is built", "grader/ARCHITECTURE.md"),
]

LINK = re.compile(r"(!?)\[([^\]]*)\]\(([^)\s]+)\)")
CODE_PATH = re.compile(r"`([A-Za-z0-9_./-]+\.md)`")
FENCE = re.compile(r"^\s*(```|~~~)")


def site_path(repo_path):
    """Where a page of the repository lands on the site: a folder's
    README.md becomes that folder's index.md, as web servers expect."""
    path = PurePosixPath(repo_path)
    return str(path.with_name("index.md")) if path.name == "README.md" else str(path)


def relative(from_page, to_path):
    start = PurePosixPath(from_page).parent
    return PurePosixPath(*([".."] * len(start.parts)), to_path).as_posix() if start.parts else to_path


def lesson_pages():
    pages = []
    for readme in sorted(SOURCE_DIR.glob("lessons/[0-9][0-9]_*/README.md")):
        first = readme.read_text().splitlines()[0]
        title = first.lstrip("# ").strip() or readme.parent.name
        pages.append((title, readme.relative_to(SOURCE_DIR).as_posix()))
    return pages


def hints_section(hints_file, lesson_id):
    """hints.md's "## Hint N" sections as folded blocks (pymdownx.details)."""
    out = ["", "## Hints", "",
           f"Try the exercise first. `grader hint {lesson_id}` gives these one at a time in the terminal;",
           "here each one opens on a click.", ""]
    title, body = None, []

    def flush():
        if title is None:
            return
        out.append(f'??? tip "{title}"')
        out.extend(("    " + line) if line.strip() else "" for line in body)
        out.append("")

    for line in hints_file.read_text().splitlines():
        if line.startswith("## "):
            flush()
            title, body = line[3:].strip(), []
        elif title is not None:
            body.append(line)
    flush()
    return out


def measured_section(lesson_id, page_dir, docs_dir):
    """The lesson's bench files drawn as pictures, one per reference GPU,
    each captioned with where and when it was measured."""
    files = sorted(MEASURED_DIR.glob(f"{lesson_id}-*.json"))
    if not files:
        return []
    out = ["", "## Measured on the reference GPUs", "",
           f"These come from `grader bench {lesson_id} --impl solution,baseline` on the GPUs the course",
           "is checked on. Run it on yours and draw it with `grader plot`: your figures are the ones",
           "your grade is measured against.", ""]
    for bench_file in files:
        context = json.loads(bench_file.read_text()).get("context", {})
        for name, kind, families, baseline in PLOTS.get(lesson_id, [("auto", "auto", [], None)]):
            picture = f"measured/{bench_file.stem}-{name}.png"
            destination = docs_dir / page_dir / picture
            destination.parent.mkdir(parents=True, exist_ok=True)
            argv = [sys.executable, str(PLOT_SCRIPT), str(bench_file), "--kind", kind, "-o", str(destination)]
            for family in families:
                argv += ["--family", family]
            if baseline:
                argv += ["--baseline", baseline]
            plot = subprocess.run(argv, capture_output=True, text=True)
            if plot.returncode != 0:
                raise SystemExit(f"build_site: course_plot.py could not draw {bench_file.name} as {kind}:\n"
                                 + plot.stdout + plot.stderr)
            device = context.get("device", "an unnamed GPU")
            caption = (f"{device} ({context.get('compute_capability', '?')}), CUDA {context.get('cuda_runtime', '?')}, "
                       f"driver for CUDA {context.get('cuda_driver', '?')}, {context.get('date', '?')[:10]}, "
                       f"commit {context.get('git_commit', '?')[:7]}")
            out += [f"![{lesson_id} {name} on the {device}]({picture})", "", f"*{caption}*", ""]
        out += measured_table(json.loads(bench_file.read_text()))
    return out


def measured_table(bench):
    """A bench file's figures as a table: each family of each implementation
    at its largest size, median time and what it reached, then the caption."""
    largest = {}
    for r in bench.get("results", []):
        key = (r.get("impl", "?"), r.get("family", r.get("name", "?")))
        if key not in largest or (r.get("size") or 0) > (largest[key].get("size") or 0):
            largest[key] = r
    if not largest:
        return []
    rows = ["| implementation | benchmark | size | median | GB/s | % of copy | GFLOP/s |",
            "|---|---|---|---|---|---|---|"]
    for (impl, family), r in sorted(largest.items()):
        c = r.get("counters", {})
        median_us = r.get("time_us", {}).get("median")

        def figure(name, scale=1.0, digits=0):
            return f"{c[name] * scale:,.{digits}f}" if isinstance(c.get(name), (int, float)) and c[name] > 0 else ""
        size = r.get("size")
        rows.append(f"| {impl} | {family} | {f'{size:,.0f}' if size else ''} | "
                    f"{f'{median_us:,.1f} us' if median_us else ''} | {figure('GB/s')} | {figure('copy%')} | "
                    f"{figure('GFLOP/s')} |")
    context = bench.get("context", {})
    caption = (f"{context.get('device', 'an unnamed GPU')}, CUDA {context.get('toolkit', context.get('cuda_runtime', '?'))}, "
               f"driver for CUDA {context.get('cuda_driver', '?')}, {context.get('date', '?')[:10]}, "
               f"commit {context.get('git_commit', '?')[:7]}: at each benchmark's largest size, "
               f"median of {max((r.get('repetitions', 1) for r in bench.get('results', [])), default=1)} repetitions.")
    return rows + ["", f"*{caption}*", ""]


def measurements_page(lessons):
    """The site's "Measurements" page: one row per bench file in
    grader/site/measured/, where and when it was measured and each lesson's
    headline figure, with a link to the lesson's tables and plots."""
    page_of = {"lesson" + PurePosixPath(page).parent.name[:2]: site_path(page) for _, page in lessons}
    rows = ["# Measurements", "",
            "Each lesson's reference solution and baseline, measured with",
            "`grader bench LESSON --impl solution,baseline` on the course's reference GPUs",
            "(`grader/site/measure_reference.sh`). The files are kept in `grader/site/measured/`;",
            "their history is in git. Each lesson's page shows its figures as tables and plots.", "",
            "| lesson | GPU | toolkit | driver (CUDA) | date | commit | benchmarks |",
            "|---|---|---|---|---|---|---|"]
    for bench_file in sorted(MEASURED_DIR.glob("lesson*-*.json")):
        bench = json.loads(bench_file.read_text())
        context = bench.get("context", {})
        lesson_id = bench_file.stem.split("-")[0]
        lesson = f"[{lesson_id}]({page_of[lesson_id]})" if lesson_id in page_of else lesson_id
        dirty = " (uncommitted changes)" if context.get("git_dirty") else ""
        rows.append(f"| {lesson} | {context.get('device', '?')} ({context.get('compute_capability', '?')}) | "
                    f"{context.get('toolkit', context.get('cuda_runtime', '?'))} | {context.get('cuda_driver', '?')} | "
                    f"{context.get('date', '?')[:10]} | {context.get('git_commit', '?')[:7]}{dirty} | "
                    f"{len(bench.get('results', []))} |")
    return rows


def seconds(text):
    return float(text) if text.strip() else None


def figure_s(value):
    return f"{value:.1f} s" if value is not None else "not kept"


def measured_on(row):
    return f"{row['gpu']} ({row['cpus']} cores), CUDA {row['cuda']}, driver {row['driver']}"


def grading_page(csv_file):
    """grading.csv as the page "Grading a class": what a class of 300 takes
    at the rate of the slowest run measured, then every run, --pause beside
    the default, and how much of its own time limit a correct test used.
    Every figure is a row's or is worked out from rows, next to the GPU, date
    and commit it was measured on."""
    rows = list(csv.DictReader(csv_file.read_text().splitlines()))
    for row in rows:
        row["scores"], row["batch"] = seconds(row["scores_final_s"]), seconds(row["batch_s"])
    out = ["# Grading a class", "",
           "How long `grader batch` took to grade a synthetic class (`grader/batch/make_class.py`: the solution,",
           "the skeleton, every known-wrong version and cheat, a crash and a hang among them; a class of 60 has each",
           "two or three times), measured with `python3 grader/batch/bench_batch.py LESSON --count N --skip-loop`.",
           "*Scores final* is when the last score was known; the rest of the *whole batch* is explanations",
           "(compute-sanitizer, Nsight Compute) and the class report. The data is",
           "`grader/site/measured/grading.csv`: one row per run, with where it was measured and the notes of",
           "the session that measured it (`source`).", "",
           "## A class of 300, from the slowest run", "",
           "Each class measured, scaled to 300 students at the rate of its slowest run.", "",
           "| lesson | class | runs | scores final | whole batch | 300 students: scores | 300 students: all done "
           "| measured on | dates | commits |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    how_long = [r for r in rows if r["figure"] == "how long"]
    groups = {}
    for row in how_long:
        groups.setdefault((row["lesson"], int(row["students"]), row["timeout_s"]), []).append(row)
    for (lesson, students, timeout), runs in sorted(groups.items()):
        scores = [r["scores"] for r in runs if r["scores"] is not None]
        whole = [r["batch"] for r in runs if r["batch"] is not None]

        def span(values):
            return f"{min(values):.1f} to {max(values):.1f} s" if len(values) > 1 else f"{values[0]:.1f} s"
        commits = list(dict.fromkeys(r["commit"] for r in runs))
        out.append(f"| {lesson} | {students} (`--timeout {timeout}`) | {len(runs)} | {span(scores)} | {span(whole)} | "
                   f"{max(scores) * 300 / students / 60:.1f} min | {max(whole) * 300 / students / 60:.1f} min | "
                   f"{'; '.join(dict.fromkeys(measured_on(r) for r in runs))} | "
                   f"{', '.join(dict.fromkeys(r['date'] for r in runs))} | {', '.join(commits)} |")
    out += ["", "On a Slurm cluster each task grades its chunk as one GPU does: N GPUs take about 1/N of one GPU's "
            "time, plus the queue and each task's start.", "",
            "## Every run", "",
            "| lesson | students | `--timeout` | scores final | whole batch | measured on | date | commit | note |",
            "|---|---|---|---|---|---|---|---|---|"]
    for r in how_long:
        out.append(f"| {r['lesson']} | {r['students']} | {r['timeout_s']} s | {figure_s(r['scores'])} | "
                   f"{figure_s(r['batch'])} | {measured_on(r)} | {r['date']} | {r['commit']} | {r['note']} |")
    out += ["", "## `--pause` beside the default", "",
            "`--pause` lets a timed test pause the programs sharing its GPU instead of waiting for them "
            "(driver 570 or newer).", "",
            "| commit | lesson | options | scores final | whole batch | measured on | date |",
            "|---|---|---|---|---|---|---|"]
    pause_commits = {r["commit"] for r in rows if "--pause" in r["options"]}
    for r in sorted((r for r in rows if r["commit"] in pause_commits and r["figure"] in ("how long", "--pause")),
                    key=lambda r: (r["date"], r["commit"], r["lesson"], r["options"], r["timeout_s"])):
        options = " ".join(filter(None, [r["options"] and f"`{r['options']}`", f"`--timeout {r['timeout_s']}`"]))
        out.append(f"| {r['commit']} | {r['lesson']} | {options} | {figure_s(r['scores'])} | {figure_s(r['batch'])} | "
                   f"{measured_on(r)} | {r['date']} |")
    out += ["", "## Time limits: how much of its own limit a correct test used", "",
            "In a batch each test's limit is 5 s plus 20 times the reference solution's time for it on that GPU "
            "model (from `grader verify`), 10 s more for the first GPU test of a process, never more than "
            "`--timeout`.", "",
            "| lesson | students | slowest first GPU test of a process | slowest later test | measured on | date | "
            "commit | note |",
            "|---|---|---|---|---|---|---|---|"]
    for r in (r for r in rows if r["figure"] == "time limits"):
        out.append(f"| {r['lesson']} | {r['students']} | {r['slowest_first_gpu_test_s']} s | "
                   f"{r['slowest_later_test_s']} s | {measured_on(r)} | {r['date']} | {r['commit']} | {r['note']} |")
    return out


class Stager:
    """Copies the pages into the staging folder, rewriting their links."""

    def __init__(self, docs_dir, pages, repo_url):
        self.docs_dir = docs_dir
        self.pages = {repo: site_path(repo) for repo in pages}
        self.repo_url = repo_url.rstrip("/") if repo_url else None
        self.unlinked = []

    def link_target(self, repo_page, target):
        """The link a page of the site should use for `target`, written in
        the repository page `repo_page`; None where there is nothing to link."""
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
            return target
        path_part, _, anchor = target.partition("#")
        resolved = (SOURCE_DIR / PurePosixPath(repo_page).parent / path_part).resolve()
        try:
            repo_path = resolved.relative_to(SOURCE_DIR).as_posix()
        except ValueError:
            return None
        suffix = f"#{anchor}" if anchor else ""
        here = self.pages[repo_page]
        if repo_path in self.pages:
            return relative(here, self.pages[repo_path]) + suffix
        if repo_path in DATA_PAGES:
            return relative(here, DATA_PAGES[repo_path]) + suffix
        if resolved.is_file() and resolved.suffix.lower() in {".png", ".svg", ".jpg", ".jpeg", ".gif"}:
            destination = self.docs_dir / repo_path
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(resolved, destination)
            return relative(here, repo_path) + suffix
        if resolved.exists() and self.repo_url:
            kind = "tree" if resolved.is_dir() else "blob"
            return f"{self.repo_url}/{kind}/HEAD/{repo_path}{suffix}"
        return None

    def rewrite_line(self, repo_page, line):
        def markdown_link(match):
            bang, text, target = match.groups()
            new_target = self.link_target(repo_page, target)
            if new_target is None:
                self.unlinked.append(f"{repo_page}: {target}")
                return text
            return f"{bang}[{text}]({new_target})"

        def code_path(match):
            path = match.group(1)
            if path not in self.pages or path == repo_page:
                return match.group(0)
            return f"[`{path}`]({relative(self.pages[repo_page], self.pages[path])})"

        # Inline code is left alone but for whole page paths, so a link
        # written inside backquotes stays code.
        parts = re.split(r"(`[^`]*`)", line)
        for i, part in enumerate(parts):
            parts[i] = CODE_PATH.sub(code_path, part) if part.startswith("`") else LINK.sub(markdown_link, part)
        return "".join(parts)

    def stage(self, repo_page, extra_lines=()):
        lines, in_fence = [], False
        for line in (SOURCE_DIR / repo_page).read_text().splitlines():
            if FENCE.match(line):
                in_fence = not in_fence
            lines.append(line if in_fence else self.rewrite_line(repo_page, line))
        lines.extend(extra_lines)
        destination = self.docs_dir / self.pages[repo_page]
        destination.parent.mkdir(parents=True, exist_ok=True)
        destination.write_text("\n".join(lines) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=str(SOURCE_DIR / "build/site"), help="where the site goes (build/site)")
    parser.add_argument("--repo-url", help="the repository's web address (https://github.com/OWNER/NAME): "
                        "links to its files go there")
    args = parser.parse_args()

    out = Path(args.out).resolve()
    staging = out.parent / (out.name + "-src")
    docs_dir = staging / "docs"
    if staging.exists():
        shutil.rmtree(staging)
    docs_dir.mkdir(parents=True)

    lessons = lesson_pages()
    instructor = [(title, page) for title, page in INSTRUCTOR_PAGES if (SOURCE_DIR / page).is_file()]
    stager = Stager(docs_dir, ["README.md"] + [p for _, p in lessons + instructor], args.repo_url)
    stager.stage("README.md")
    for _, page in lessons:
        lesson_dir = SOURCE_DIR / PurePosixPath(page).parent
        hints = lesson_dir / "hints.md"
        lesson_id = "lesson" + lesson_dir.name[:2]
        extra = measured_section(lesson_id, PurePosixPath(site_path(page)).parent, docs_dir)
        extra += hints_section(hints, lesson_id) if hints.is_file() else []
        stager.stage(page, extra)
    for _, page in instructor:
        stager.stage(page)
    (docs_dir / "measurements.md").write_text("\n".join(measurements_page(lessons)) + "\n")
    (docs_dir / DATA_PAGES["grader/site/measured/grading.csv"]).write_text("\n".join(grading_page(GRADING_FILE)) + "\n")

    config = yaml.safe_load((SITE_DIR / "mkdocs.yml").read_text())
    config["docs_dir"] = str(docs_dir)
    config["site_dir"] = str(out)
    if args.repo_url:
        config["repo_url"] = args.repo_url
    config["nav"] = [
        {"Home": "index.md"},
        {"Lessons": [{title: site_path(page)} for title, page in lessons]},
        {"Measurements": [{"Benchmarks": "measurements.md"}, {"Grading a class": "grading.md"}]},
        {"For instructors": [{title: site_path(page)} for title, page in instructor]},
    ]
    config_file = staging / "mkdocs.yml"
    config_file.write_text(yaml.safe_dump(config, sort_keys=False, allow_unicode=True))

    build = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--clean", "-f", str(config_file)],
                           capture_output=True, text=True)
    if build.returncode != 0:
        sys.stderr.write(build.stdout + build.stderr)
        print(f"build_site: mkdocs failed (exit {build.returncode}); its messages are above", file=sys.stderr)
        return 1
    pages = len(lessons) + len(instructor) + 3
    print(f"build_site: {pages} pages ({len(lessons)} lessons) in {out}; open {out / 'index.html'}")
    if stager.unlinked:
        print(f"build_site: {len(stager.unlinked)} links to repository files are plain text "
              f"(--repo-url links them): {', '.join(sorted(set(stager.unlinked)))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
