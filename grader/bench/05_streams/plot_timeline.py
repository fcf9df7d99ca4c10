#!/usr/bin/env python3
"""Draws lesson05's pipeline timeline as a Gantt chart.

  python3 grader/bench/05_streams/plot_timeline.py TIMELINE.json [-o timeline.png] [--run NAME]

TIMELINE.json is what lesson05_solution_bench writes (COURSE_TIMELINE, or
<build>/lesson05_solution_bench_timeline.json). Each run becomes one panel:
a row per stream, a bar per step (copy in, kernel, copy out) from its start
to its end event, labelled with its chunk number. Bars that sit above each
other in time ran at the same time: that is the overlap.
"""
import argparse
import json
import sys

COLOURS = {"h2d": "#4878d0", "kernel": "#6acc64", "d2h": "#ee854a"}
LABELS = {"h2d": "copy in (H2D)", "kernel": "kernel", "d2h": "copy out (D2H)"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("timeline")
    parser.add_argument("-o", "--output", default="timeline.png", help="PNG, SVG or PDF (default timeline.png)")
    parser.add_argument("--run", action="append", help="only this run (repeatable), e.g. pipelined/streams:4/chunks:32")
    args = parser.parse_args()

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    with open(args.timeline) as f:
        doc = json.load(f)
    runs = [r for r in doc["runs"] if not args.run or r["name"] in args.run]
    if not runs:
        print("no runs to draw", file=sys.stderr)
        return 1

    end = max((e["end_ms"] for r in runs for e in r["entries"]), default=1.0)
    rows = [max(r["streams"], 1) + 1 for r in runs]  # a panel's height follows its stream count
    fig, axes = plt.subplots(len(runs), 1, figsize=(12, 1.0 + 0.45 * sum(rows)), squeeze=False, sharex=True,
                             gridspec_kw={"height_ratios": rows})
    for ax, run in zip(axes[:, 0], runs):
        # Copies and kernels of one stream share its row, in three thin lanes.
        lane = {"h2d": 0.0, "kernel": 0.3, "d2h": 0.6}
        for e in run["entries"]:
            y = e["stream"] + lane[e["kind"]]
            ax.broken_barh([(e["start_ms"], e["end_ms"] - e["start_ms"])], (y, 0.28), color=COLOURS[e["kind"]])
            if run["chunks"] <= 16:
                ax.text((e["start_ms"] + e["end_ms"]) / 2, y + 0.14, str(e["chunk"]), ha="center", va="center",
                        fontsize=6)
        ax.set_yticks([s + 0.45 for s in range(run["streams"])])
        ax.set_yticklabels([f"stream {s}" for s in range(run["streams"])])
        ax.invert_yaxis()
        ax.set_xlim(0, end * 1.02)
        title = f"{run['name']}: {run['total_ms']:.2f} ms"
        if run.get("serial_ms"):
            title += f" (serial {run['serial_ms']:.2f} ms, {run['serial_ms'] / run['total_ms']:.2f}x)"
        ax.set_title(title, fontsize=9, loc="left")
    axes[-1, 0].set_xlabel("ms since the first step started (GPU clock, from events)")
    fig.legend(handles=[Patch(color=COLOURS[k], label=LABELS[k]) for k in COLOURS], loc="upper right", ncol=3)
    fig.suptitle(f"{doc.get('device', '')}: {doc.get('bytes_each_way', 0) / 2**20:.0f} MiB each way", x=0.01,
                 ha="left", fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 0.96))
    fig.savefig(args.output, dpi=150)
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
