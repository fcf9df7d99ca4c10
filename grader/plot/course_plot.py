#!/usr/bin/env python3
"""Draws a `grader bench` file for a slide.

  grader plot FILE [-o out.png|svg|pdf] [--kind KIND] [--family NAME] [--baseline NAME]
  python3 grader/plot/course_plot.py FILE ...          (the same, without the grader)

Kinds (auto picks one from what the file holds):
  time       time vs problem size, log-log, one line per series (a block size,
             an implementation), the spread over repetitions shaded
  bandwidth  GB/s vs bytes moved per call, with the GPU's measured copy
             bandwidth and its theoretical peak as lines and the L2 size marked
  gflops     GFLOP/s vs size, the library baseline (cuBLAS) drawn in black
  speedup    bars: how many times faster than the baseline (default: the slowest)
  timeline   lesson05's streams as a Gantt chart: copies and kernels over time
  crossover  lesson01's `grader bench --vs-cpu`: the time a program waits for one
             addition on the CPU and on the GPU (with and without the copies) vs
             size, log-log, with the size from which each GPU line stays below the
             CPU's marked

The figure carries the lesson, the device, the toolkit, the date and the commit,
so a slide says what was measured where.
"""
import argparse
import json
import math
import os
import sys
from collections import defaultdict

KINDS = ("auto", "time", "bandwidth", "gflops", "speedup", "timeline", "crossover")
DASHES = ("--", ":", "-.", (0, (5, 1, 1, 1, 1, 1)))
BLOCK_KEYS = ("threads", "block", "block_size", "bx", "by")


def block_of(s):
    """A series' block size (threads, or bx x by), or None."""
    fixed = dict(s.fixed)
    if "bx" in fixed and "by" in fixed:
        return fixed["bx"] * fixed["by"]
    for key in ("threads", "block", "block_size"):
        if key in fixed:
            return fixed[key]
    return None


def line_style(series, s):
    """One colour per block size, shared by every family, so a sweep reads at a
    glance; solid lines for the lesson's code, dashes for baselines (one dash
    pattern per baseline family); a baseline without a block size is black."""
    import matplotlib

    blocks = sorted({block_of(x) for x in series if block_of(x) is not None})
    families = sorted({x.family for x in series if x.is_baseline})
    style = {"linewidth": 1.8}
    if s.is_baseline:
        style.update(linestyle=DASHES[families.index(s.family) % len(DASHES)], linewidth=2.0)
    block = block_of(s)
    if block is not None:
        cmap = matplotlib.colormaps["viridis"]
        style["color"] = cmap(0.9 * blocks.index(block) / max(len(blocks) - 1, 1))
    elif s.is_baseline:
        style["color"] = "black"
        style["linewidth"] = 2.4
    else:
        plain = [x for x in series if not x.is_baseline and block_of(x) is None]
        style["color"] = f"C{plain.index(s) % 10}"
    return style


class PlotError(Exception):
    """A problem with the input that the user can fix; printed without a traceback."""


def load(path):
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        raise PlotError(f"cannot read {path}: {e}")
    # `grader run --timeline` writes a timeline of its own (course-timeline/).
    if not str(doc.get("schema", "")).startswith(("course-bench/", "course-timeline/")):
        raise PlotError(f"{path} is not a `grader bench` file (no course-bench schema)")
    return doc


def human_size(v):
    """2^20 -> '1Mi', 1e8 -> '1e8': the labels a reader expects on a size axis."""
    n = int(round(v))
    if n >= 65536 and n & (n - 1) == 0:
        return f"2^{n.bit_length() - 1}"
    if n >= 10000:
        exponent = int(math.floor(math.log10(n)))
        mantissa = n / 10**exponent
        return f"1e{exponent}" if mantissa == 1 else f"{mantissa:g}e{exponent}"
    return str(n)


def human_bytes(b):
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if b >= scale:
            return f"{b / scale:g} {unit}"
    return f"{b:g} B"


class Series:
    """One line on a plot: an implementation's family with fixed parameters (all but the size)."""

    def __init__(self, impl, family, fixed):
        self.impl, self.family, self.fixed = impl, family, fixed
        self.points = []  # result dicts, by size

    @property
    def is_baseline(self):
        return self.impl == "baseline"

    def label(self, show_impl):
        text = self.family
        if self.fixed:
            text += " " + " ".join(f"{k}={v:g}" for k, v in self.fixed)
        if self.is_baseline:
            return text + " (baseline)"
        return f"{self.impl}: {text}" if show_impl else text


def size_keys(result):
    """The parameters that make up the problem size (merged into one x value by grader bench)."""
    params = result.get("params", {})
    for key in ("n", "bytes", "size"):
        if key in params:
            return {key}
    if "rows" in params and "cols" in params:
        return {"rows", "cols"}
    return set()


def build_series(results, families):
    series = {}
    for r in results:
        if families and r["family"] not in families:
            continue
        fixed = tuple(sorted((k, v) for k, v in r.get("params", {}).items() if k not in size_keys(r)))
        key = (r["impl"], r["family"], fixed)
        if key not in series:
            series[key] = Series(*key)
        series[key].points.append(r)
    for s in series.values():
        s.points.sort(key=lambda r: r.get("size", 0))
    return list(series.values())


def show_impl(series):
    return len({s.impl for s in series if not s.is_baseline}) > 1


def context_line(doc):
    c = doc.get("context", {})
    parts = [c.get("device", "unknown GPU")]
    if c.get("compute_capability"):
        cc = str(c["compute_capability"])
        parts.append(cc if cc.startswith("sm_") else f"sm_{cc.replace('.', '')}")
    if c.get("toolkit"):
        parts.append(f"CUDA {c['toolkit']}")
    if c.get("date"):
        parts.append(str(c["date"])[:10])
    if c.get("git_commit") and c["git_commit"] != "unknown":
        parts.append(f"commit {c['git_commit'][:7]}" + (" + local changes" if c.get("git_dirty") else ""))
    return " · ".join(parts)


def figure(doc, what):
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(11, 6.5))
    lesson = doc.get("lesson", {})
    fig.suptitle(f"{lesson.get('id', '')}: {what}", x=0.01, ha="left", fontsize=16, fontweight="bold")
    ax.set_title(f"{lesson.get('title', '')}\n{context_line(doc)}", loc="left", fontsize=11, color="dimgray")
    ax.grid(True, which="major", alpha=0.35)
    ax.grid(True, which="minor", alpha=0.12)
    return fig, ax


def finish(fig, ax, output, legend=True):
    if legend and ax.get_legend_handles_labels()[0]:
        handles = len(ax.get_legend_handles_labels()[0])
        if handles > 8:  # many series: the legend goes beside the plot, not over it
            ax.legend(fontsize=10, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
        else:
            ax.legend(fontsize=11)
    fig.tight_layout()
    fig.savefig(output, dpi=150, bbox_inches="tight")
    print(f"wrote {output}")


def sized(series):
    return [s for s in series if any("size" in p for p in s.points)]


def draw_lines(ax, series, y_of, spread_of=None):
    show = show_impl(series)
    for s in series:
        pts = [p for p in s.points if "size" in p and y_of(p) is not None]
        if not pts:
            continue
        xs = [p["size"] for p in pts]
        ys = [y_of(p) for p in pts]
        style = line_style(series, s)
        (line,) = ax.plot(xs, ys, marker="o", markersize=4, label=s.label(show), **style)
        if spread_of:
            lo, hi = zip(*[spread_of(p) for p in pts])
            ax.fill_between(xs, lo, hi, color=line.get_color(), alpha=0.18, linewidth=0)


def plot_time(doc, series, output):
    series = sized(series)
    if not series:
        raise PlotError("no result has a problem size (n, bytes, rows x cols): try --kind speedup")
    fig, ax = figure(doc, "time vs size")
    draw_lines(ax, series, lambda p: p["time_us"]["median"], lambda p: (p["time_us"]["min"], p["time_us"]["max"]))
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("problem size (elements)", fontsize=13)
    ax.set_ylabel("GPU time per call (µs, median; band: min–max)", fontsize=13)
    finish(fig, ax, output)


def crossover_size(cpu, gpu):
    """The smallest size from which the GPU's median time stays below the
    CPU's at every larger size measured by both, or None."""
    cpu_time = {p["size"]: p["time_us"]["median"] for p in cpu.points}
    shared = [p for p in gpu.points if p["size"] in cpu_time]
    found = None
    for p in reversed(shared):
        if p["time_us"]["median"] >= cpu_time[p["size"]]:
            break
        found = p["size"]
    return found


def plot_crossover(doc, series, output):
    series = [s for s in sized(series) if s.family.startswith("when/")]
    cpu = next((s for s in series if s.family == "when/cpu"), None)
    if cpu is None:
        raise PlotError("no CPU line: this kind draws `grader bench lesson01 --vs-cpu`")
    fig, ax = figure(doc, "when does the GPU win?")
    draw_lines(ax, series, lambda p: p["time_us"]["median"], lambda p: (p["time_us"]["min"], p["time_us"]["max"]))
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("elements added (float32)", fontsize=13)
    ax.set_ylabel("time a program waits per addition (µs, median)", fontsize=13)
    never = []
    for s in series:
        if s is cpu:
            continue
        size = crossover_size(cpu, s)
        if size is None:
            never.append(s.family.split("/", 1)[1])
        else:
            ax.axvline(size, color="gray", linestyle=":", linewidth=1)
            ax.annotate(f"{s.family.split('/', 1)[1]} wins from {human_size(size)}", (size, ax.get_ylim()[0]),
                        xytext=(4, 12 + 16 * series.index(s)), textcoords="offset points", fontsize=10,
                        color="dimgray")
    if never:
        ax.text(0.99, 0.02, f"{', '.join(never)}: never faster than the CPU at these sizes", transform=ax.transAxes,
                ha="right", va="bottom", fontsize=10, color="dimgray")
    finish(fig, ax, output)


def bytes_moved(p):
    gbps = p.get("counters", {}).get("GB/s")
    if not gbps:
        return None
    return gbps * 1e9 * p["time_us"]["median"] * 1e-6


def plot_bandwidth(doc, series, output):
    series = [s for s in series if any(p.get("counters", {}).get("GB/s") for p in s.points)]
    if not series:
        raise PlotError("no result reports GB/s: try --kind time")
    fig, ax = figure(doc, "bandwidth")
    show = show_impl(series)
    for s in series:
        pts = sorted((p for p in s.points if bytes_moved(p)), key=bytes_moved)
        if not pts:
            continue
        style = line_style(series, s)
        ax.plot([bytes_moved(p) for p in pts], [p["counters"]["GB/s"] for p in pts], marker="o", markersize=4,
                label=s.label(show), **style)
    c = doc.get("context", {})
    copy = float(c.get("copy_bandwidth_gbps", 0) or 0)
    peak = float(c.get("peak_bandwidth_gbps", 0) or 0)
    if copy:
        ax.axhline(copy, color="tab:gray", linewidth=2, label=f"measured copy: {copy:.0f} GB/s")
    if peak:
        ax.axhline(peak, color="tab:gray", linewidth=1.5, linestyle=":", label=f"theoretical peak: {peak:.0f} GB/s")
    l2 = float(c.get("l2_bytes", 0) or 0)
    if l2:
        ax.axvline(l2, color="tab:red", linewidth=1.2, linestyle="-.")
        ax.text(l2 * 1.08, ax.get_ylim()[1] * 0.03, f"L2 = {human_bytes(l2)}\n(smaller fits in cache)",
                color="tab:red", fontsize=10, va="bottom")
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_formatter(__import__("matplotlib.ticker").ticker.FuncFormatter(
        lambda v, _: human_bytes(v) if v >= 1 else ""))
    ax.set_ylim(bottom=0)
    ax.set_xlabel("bytes moved per call (read + written)", fontsize=13)
    ax.set_ylabel("bandwidth (GB/s, 10^9 bytes/s)", fontsize=13)
    finish(fig, ax, output)


def plot_gflops(doc, series, output):
    series = [s for s in sized(series) if any(p.get("counters", {}).get("GFLOP/s") for p in s.points)]
    if not series:
        raise PlotError("no result reports GFLOP/s: try --kind bandwidth or time")
    fig, ax = figure(doc, "throughput")
    best = max(p.get("counters", {}).get("GFLOP/s", 0) for s in series for p in s.points)
    scale, unit = (1e3, "TFLOP/s (10^12") if best >= 1e4 else (1.0, "GFLOP/s (10^9")
    draw_lines(ax, series, lambda p: p.get("counters", {}).get("GFLOP/s", 0) / scale or None)
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_formatter(__import__("matplotlib.ticker").ticker.FuncFormatter(lambda v, _: human_size(v)))
    ax.set_ylim(bottom=0)
    ax.set_xlabel("problem size (n)", fontsize=13)
    ax.set_ylabel(f"{unit} floating-point operations/s)", fontsize=13)
    finish(fig, ax, output)


def plot_speedup(doc, series, output, baseline):
    # Compare at one size: the largest that every series has (series without a size count as any size).
    sizes = [set(p.get("size") for p in s.points) for s in series if any("size" in p for p in s.points)]
    common = set.intersection(*sizes) if sizes else set()
    size = max(common) if common else None
    if sizes and size is None:
        size = max(max(s) for s in sizes)

    bars = []
    for s in series:
        pts = [p for p in s.points if size is None or p.get("size", size) == size]
        if pts:
            bars.append((s, pts[0]["time_us"]["median"]))
    if len(bars) < 2:
        raise PlotError("a speedup needs at least two series at one size: loosen --family")
    show = show_impl([s for s, _ in bars])
    if baseline:
        chosen = [t for s, t in bars if s.family == baseline or s.label(show) == baseline]
        if not chosen:
            raise PlotError(f"--baseline {baseline}: no such family; there are "
                            + ", ".join(sorted({s.family for s, _ in bars})))
        base_time, base_name = chosen[0], baseline
    else:
        slowest = max(bars, key=lambda b: b[1])
        base_time, base_name = slowest[1], slowest[0].label(show)

    what = f"speedup over {base_name}" + (f" at size {human_size(size)}" if size else "")
    fig, ax = figure(doc, what)
    labels = [s.label(show) for s, _ in bars]
    values = [base_time / t for _, t in bars]
    # The same colours as the line plots (one per block size); baselines hatched.
    all_series = [s for s, _ in bars]
    colors = [line_style(all_series, s)["color"] for s in all_series]
    rects = ax.barh(range(len(bars)), values, color=colors, alpha=0.85,
                    hatch=["//" if s.is_baseline else "" for s in all_series], edgecolor="white")
    ax.set_yticks(range(len(bars)))
    ax.set_yticklabels(labels, fontsize=11)
    ax.invert_yaxis()
    for rect, value, (_, t) in zip(rects, values, bars):
        time_text = f"{t:,.1f} µs" if t >= 1 else f"{t * 1000:,.0f} ns"
        ax.text(rect.get_width(), rect.get_y() + rect.get_height() / 2, f" {value:,.2f}x  ({time_text})",
                va="center", fontsize=10)
    ax.axvline(1.0, color="dimgray", linewidth=1)
    # Ratios a hundredfold apart (an allocator's hot path against cudaMalloc)
    # would leave the small bars invisible on a linear axis.
    if max(values) / min(values) > 100:
        ax.set_xscale("log")
        ax.set_xlim(min(min(values), 1.0) / 1.5, max(values) * 8)
    else:
        ax.set_xlim(0, max(values) * 1.3)
    ax.set_xlabel(f"times faster than {base_name} (median GPU time)", fontsize=13)
    ax.grid(True, axis="y", alpha=0)
    finish(fig, ax, output, legend=False)


def plot_timeline(doc, output, runs_wanted):
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    timelines = doc.get("timelines", {})
    if not timelines:
        raise PlotError("this file has no timeline (only lesson05's benchmark records one)")
    impl = "solution" if "solution" in timelines else sorted(timelines)[0]  # grader run --timeline: "your code"
    timeline = timelines[impl]
    runs = [r for r in timeline.get("runs", []) if not runs_wanted or r["name"] in runs_wanted]
    if not runs_wanted and len(runs) > 4:
        # A slide holds about four panels: the stream counts at the chunk count of the fastest run.
        fastest = min(runs, key=lambda r: r["total_ms"])
        runs = [r for r in runs if r.get("chunks") == fastest.get("chunks")][:4]
        others = ", ".join(r["name"] for r in timeline["runs"] if r not in runs)
        print(f"drawing the runs with {fastest.get('chunks')} chunks; others with --family NAME: {others}")
    if not runs:
        names = ", ".join(r["name"] for r in timeline.get("runs", []))
        raise PlotError(f"no timeline run to draw; the file has: {names}")

    colours = {"h2d": "#4878d0", "kernel": "#6acc64", "d2h": "#ee854a", "other": "#9a9a9a"}
    labels = {"h2d": "copy in (host to device)", "kernel": "kernel", "d2h": "copy out (device to host)",
              "other": "other GPU work (memset, copy within the GPU)"}
    # A stream's row holds three thin lanes; other work shares the kernel's.
    lane = {"h2d": 0.0, "kernel": 0.3, "d2h": 0.6, "other": 0.3}
    end = max((e["end_ms"] for r in runs for e in r["entries"]), default=1.0)
    heights = [max(r["streams"], 1) + 1 for r in runs]
    fig, axes = plt.subplots(len(runs), 1, figsize=(13, 1.6 + 0.5 * sum(heights)), squeeze=False, sharex=True,
                             gridspec_kw={"height_ratios": heights})
    for ax, run in zip(axes[:, 0], runs):
        for e in run["entries"]:
            y = e["stream"] + lane[e["kind"]]
            ax.broken_barh([(e["start_ms"], e["end_ms"] - e["start_ms"])], (y, 0.28), color=colours[e["kind"]])
            if "chunk" in e and run.get("chunks", 99) <= 16:
                ax.text((e["start_ms"] + e["end_ms"]) / 2, y + 0.14, str(e["chunk"]), ha="center", va="center",
                        fontsize=7)
        ax.set_yticks([s + 0.45 for s in range(run["streams"])])
        ax.set_yticklabels([f"stream {s}" for s in range(run["streams"])], fontsize=10)
        ax.invert_yaxis()
        ax.set_xlim(0, end * 1.02)
        title = f"{run['name']}: {run['total_ms']:.2f} ms"
        if run.get("serial_ms"):
            title += f"  (serial {run['serial_ms']:.2f} ms: {run['serial_ms'] / run['total_ms']:.2f}x faster)"
        if run.get("overlap"):
            title += f"  (copies and kernels overlapped: {run['overlap']:.2f}x)"
        ax.set_title(title, fontsize=11, loc="left")
        ax.grid(True, axis="x", alpha=0.3)
    clock = timeline.get("clock", "events")
    axes[-1, 0].set_xlabel(f"ms since the first step started (GPU clock, from {clock})", fontsize=12)
    lesson = doc.get("lesson", {})
    mib = timeline.get("bytes_each_way", 0) / 2**20
    fig.suptitle(f"{lesson.get('id', '')} {lesson.get('title', '')}: timeline of {impl}, {mib:.0f} MiB each way\n"
                 f"{context_line(doc)}", x=0.01, ha="left", fontsize=13)
    drawn = {e["kind"] for r in runs for e in r["entries"]}
    fig.legend(handles=[Patch(color=colours[k], label=labels[k]) for k in colours if k in drawn or k != "other"],
               loc="upper right", ncol=3,
               fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 0.95))
    fig.savefig(output, dpi=150)
    print(f"wrote {output}")


def choose_kind(doc, series):
    results = [p for s in series for p in s.points]
    has_size = any("size" in r for r in results)
    if any(s.family == "when/cpu" for s in series):
        return "crossover"
    if doc.get("timelines") and not has_size:
        return "timeline"
    if any(r.get("counters", {}).get("GFLOP/s") for r in results) and has_size:
        return "gflops"
    if any(r.get("counters", {}).get("GB/s") for r in results):
        return "bandwidth"
    return "time" if has_size else "speedup"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("file", help="a JSON file written by grader bench")
    parser.add_argument("-o", "--output", help="picture to write: .png, .svg or .pdf (default: beside FILE)")
    parser.add_argument("--kind", choices=KINDS, default="auto")
    parser.add_argument("--family", action="append", default=[],
                        help="only this benchmark family, e.g. vecadd (repeatable); for timeline: a run name")
    parser.add_argument("--baseline", default="", help="speedup: relative to this family (default: the slowest)")
    args = parser.parse_args(argv)

    import matplotlib

    matplotlib.use("Agg")  # no display needed: CI, SSH, a GPU node
    matplotlib.rcParams.update({"font.size": 12, "axes.titlesize": 12})

    try:
        doc = load(args.file)
        series = build_series(doc.get("results", []), set(args.family) if args.kind != "timeline" else set())
        if not series and args.kind != "timeline" and not doc.get("timelines"):
            raise PlotError("no results to draw" + (f" for --family {', '.join(args.family)}" if args.family else ""))
        kind = choose_kind(doc, series) if args.kind == "auto" else args.kind
        output = args.output or os.path.splitext(args.file)[0] + f".{kind}.png"
        if os.path.splitext(output)[1].lower() not in (".png", ".svg", ".pdf"):
            raise PlotError(f"{output}: the picture must end in .png, .svg or .pdf")
        if kind == "time":
            plot_time(doc, series, output)
        elif kind == "bandwidth":
            plot_bandwidth(doc, series, output)
        elif kind == "gflops":
            plot_gflops(doc, series, output)
        elif kind == "speedup":
            plot_speedup(doc, series, output, args.baseline)
        elif kind == "crossover":
            plot_crossover(doc, series, output)
        else:
            plot_timeline(doc, output, set(args.family))
    except PlotError as e:
        print(f"course_plot: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
