#!/usr/bin/env python3
"""Draws where a `grader batch` run's time went, from its logs/batch.json:

    python3 grader/batch/plot_timeline.py BATCH_OUT/logs/batch.json timeline.png [--gpu-util util.csv]

One row per submission: its build, then its time at the GPU gate (waiting
to share, sharing for correctness tests, waiting to be alone, alone for the
timed tests) and its failures being explained. With --gpu-util (lines
"seconds,percent", as bench_batch.py samples nvidia-smi) a panel above shows
how busy the GPU was.
"""
import argparse
import json
import pathlib

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

# What each stretch is, in the order a submission goes through them; lower
# layers are drawn thinner so the gate's spans show inside judge/explain.
STYLE = {
    "build": ("#b0b0b0", 0.8, "build (CPU)"),
    "judge": ("#e8e8f8", 0.8, "judging"),
    "explain": ("#f3e3f7", 0.8, "explaining failures"),
    "queued": ("#ffd27f", 0.5, "waiting to share the GPU"),
    "shared": ("#4c8bd6", 0.5, "sharing the GPU"),
    "waiting_alone": ("#f28e2b", 0.5, "waiting to be alone"),
    "alone": ("#d62728", 0.5, "alone: timed tests"),
    "explain_shared": ("#9467bd", 0.5, "sharing: compute-sanitizer's reruns"),
    "explain_alone": ("#8c564b", 0.5, "alone: Nsight Compute's profiles"),
}


def style(kind):
    """The colour, bar height and legend of a kind of span; explain_queued and the like as their plain kind."""
    if kind in STYLE:
        return STYLE[kind]
    return STYLE.get(kind.removeprefix("explain_"), ("black", 0.3, kind))


def draw(summary, out, util=None):
    timeline = sorted(summary.get("timeline", []), key=lambda t: min((s[1] for s in t["spans"]), default=0))
    rows = len(timeline)
    fig, axes = plt.subplots(2 if util else 1, 1, sharex=True, figsize=(11, 1.2 + 0.28 * rows + (1.6 if util else 0)),
                             gridspec_kw={"height_ratios": [1, max(2, rows / 4)]} if util else None)
    ax = axes[-1] if util else axes
    for y, t in enumerate(timeline):
        for kind, start, end in t["spans"]:
            colour, height, _ = style(kind)
            ax.barh(y, max(end - start, 0.05), left=start, height=height, color=colour, edgecolor="none")
    ax.set_yticks(range(rows))
    ax.set_yticklabels([t["student"] for t in timeline], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("seconds since the batch started")
    sec = summary["seconds"]
    ax.set_title(f"{summary['lesson']}: {summary['graded'] + summary['build_failed']} submissions in {sec['wall']:.0f} s; "
                 f"GPU alone {sec['gpu_alone']:.0f} s, shared {sec['gpu_shared']:.0f} s", fontsize=10)
    ax.legend(handles=[Patch(color=c, label=label) for c, _, label in STYLE.values()], fontsize=7, loc="lower right")
    if util:
        top = axes[0]
        top.plot([u[0] for u in util], [u[1] for u in util], color="#2f4b7c", linewidth=0.8)
        top.set_ylabel("GPU busy %")
        top.set_ylim(0, 105)
    fig.tight_layout()
    fig.savefig(out, dpi=120)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("batch_json", type=pathlib.Path)
    ap.add_argument("png", type=pathlib.Path)
    ap.add_argument("--gpu-util", type=pathlib.Path)
    args = ap.parse_args()
    util = None
    if args.gpu_util and args.gpu_util.is_file():
        util = [tuple(float(x) for x in line.split(",")) for line in args.gpu_util.read_text().split() if "," in line]
    draw(json.loads(args.batch_json.read_text()), args.png, util)


if __name__ == "__main__":
    main()
