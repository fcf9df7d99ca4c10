#!/usr/bin/env python3
"""How much faster `grader batch` grades a class than a plain loop of
`grader run` on the same machine, and whether it grades the same.

    python3 grader/batch/bench_batch.py LESSON [--count 20] [--build-dir build] [-o OUT]

A benchmark, not a test: it makes a synthetic class (make_class.py), grades
it with `grader batch`, then the way an instructor without it would: for each
student, their files copied over exercises/NN_name, the exercise built
(`cmake --build`), then `grader run --no-build --sandbox` (the exercise folder
is saved first and put back at the end, whatever happens). Same seed both ways.

Prints and writes OUT/bench.json (and OUT/timeline.png, plot_timeline.py): submissions per minute each way, when
the batch's scores were final (its last judging; explanations come after), where the explanations' time went
(profiles alone, their waits, reruns), how busy the CPU was (/proc/stat), the loop's
build/grading split, the batch's summed build and grading time, the time
its timed tests and Nsight Compute's profiles held the GPU alone (no
schedule can beat N / that time: the bound), what else the GPU did (shared by correctness tests and the
sanitizer's reruns, idle), a floor that adds the sharers' kernel time (which a
timed test cannot overlap and stay fair, from nvidia-smi's samples), the
same floor with every compute-sanitizer rerun counted whole (the driver
cannot pause such a process, so no timed test runs beside one), the time
outside both (before the first run reached the GPU, and the command's own
outside its engine) and the share of the floors in the rest, the longest
wait to time a test and to profile one, with the share that overlapped each
most (a hang shows there, or a program that ran on under a tool), how many
processes the graded runs and the explanations started (each creates a CUDA
context, which the driver does one at a time), and every student whose
score differs between the two.
"""
import argparse
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import threading
import time

COURSE = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(pathlib.Path(__file__).parent))
from make_class import lesson_dir  # noqa: E402


def sample_gpu_busy(samples, stop):
    """nvidia-smi's utilization.gpu every 250 ms, as (Unix time, percent), until stop is set."""
    try:
        smi = subprocess.Popen(["nvidia-smi", "--query-gpu=utilization.gpu", "--format=csv,noheader,nounits",
                                "-lms", "250"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    except OSError:
        return
    for line in smi.stdout:
        if stop.is_set():
            break
        first = line.strip().split(",")[0].strip()
        if first.isdigit():
            samples.append((time.time(), float(first)))
    smi.terminate()
    smi.wait()


def cpu_busy_and_total(cpu_line):
    """/proc/stat's "cpu" line (every core summed): (busy, total) in jiffies.
    Idle time is idle + iowait; guest time is already counted in user."""
    user, nice, system, idle, iowait, irq, softirq, steal = (int(v) for v in cpu_line.split()[1:9])
    total = user + nice + system + idle + iowait + irq + softirq + steal
    return total - idle - iowait, total


def read_cpu_times():
    """(busy, total) jiffies of every core so far; None where /proc/stat cannot be read."""
    try:
        return cpu_busy_and_total(pathlib.Path("/proc/stat").read_text().split("\n", 1)[0])
    except (OSError, ValueError):
        return None


def sample_cpu_busy(samples, stop):
    """The share of every core's time spent busy, every 250 ms, as (Unix time, percent), until stop is set:
    where it stays near 100% the batch waits for the CPU (builds, test programs, compute-sanitizer), not the GPU."""
    last = read_cpu_times()
    while last is not None and not stop.wait(0.25):
        now = read_cpu_times()
        if now is None:
            return
        busy, total = now[0] - last[0], now[1] - last[1]
        if total > 0:
            samples.append((time.time(), 100.0 * busy / total))
        last = now


def mean_between(samples, start, end):
    """The mean of the (time, value) samples taken at start <= time < end; None where there are none."""
    values = [v for t, v in samples if start <= t < end]
    return sum(values) / len(values) if values else None


def spans_of(summary, kinds):
    """The timeline's spans of these kinds, every submission's, merged where they overlap: [(start, end)]."""
    merged = []
    for a, b in sorted((a, b) for t in summary.get("timeline", []) for kind, a, b in t["spans"] if kind in kinds):
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    return [tuple(m) for m in merged]


def inside(t, spans):
    return any(a <= t <= b for a, b in spans)


def seconds_outside(spans, cut):
    """How much of `spans` lies outside every span of `cut` (both merged: spans_of)."""
    total = 0.0
    for a, b in spans:
        total += b - a - sum(max(0.0, min(b, d) - max(a, c)) for c, d in cut)
    return total


ALONE = ("alone", "explain_alone")
# A run's share of the GPU while compute-sanitizer reruns its failed tests.
SANITIZER = ("explain_shared",)


def busy_seconds(busy, excluded):
    """nvidia-smi's busy share (the time a kernel was running) summed over the
    samples taken outside every span of `excluded`."""
    total, previous = 0.0, None
    for t, u in busy:
        if previous is not None and t > 0 and not inside(t, excluded):
            total += u / 100.0 * (t - previous)
        previous = t
    return total


def sharers_kernel_seconds(summary, busy):
    """About how long the sharers' kernels ran (correctness tests, the sanitizer's
    reruns): nvidia-smi's busy share summed over the samples taken while no run
    held the GPU alone. A timed test cannot run at the same time as another
    process's kernel and still be fair, so these seconds add to the timed
    tests' in any fair schedule."""
    return busy_seconds(busy, spans_of(summary, ALONE))


def reruns_whole_and_kernel_seconds(summary, busy):
    """The seconds that runs explaining failures under compute-sanitizer held
    their share of the GPU outside the timed tests (their reruns and the
    moments between them), plus the sharers' kernel seconds outside those.
    The driver will not pause a process under compute-sanitizer
    (gpu_pause.hpp), and such a process may start a kernel at any moment, so
    the grader can run no timed test beside one: every second of a rerun adds
    to the timed tests', whether the GPU was busy or not."""
    alone, reruns = spans_of(summary, ALONE), spans_of(summary, SANITIZER)
    return seconds_outside(reruns, alone) + busy_seconds(busy, alone + reruns)


# A run's spans on the GPU: sharing it, alone, or an explanation's of either.
ON_THE_GPU = ("shared", "alone", "explain_shared", "explain_alone")


def outside_the_floors(summary, batch_s):
    """The parts of the batch's time that neither floor counts, and that no
    schedule of the GPU's work can overlap: the seconds before the first
    run went on the GPU (the first submissions' builds, and the engine's
    start), and `grader batch`'s own seconds outside its engine (its start-up
    before, the gradebook and the class report after). The engine's clock,
    the timeline's, starts after the one and ends before the other."""
    gpu = spans_of(summary, ON_THE_GPU)
    before = gpu[0][0] if gpu else 0.0
    return {"before_first_gpu_work": before,
            "outside_engine": max(0.0, batch_s - summary.get("seconds", {}).get("wall", batch_s))}


def explaining_seconds(summary):
    """Where the explanations' time went, summed over submissions: Nsight
    Compute's profiles holding the GPU alone and waiting for it (other runs'
    correctness tests wait behind a profile that waits), and
    compute-sanitizer's reruns sharing it."""
    total = {"explain_alone": 0.0, "explain_waiting_alone": 0.0, "explain_shared": 0.0}
    for t in summary.get("timeline", []):
        for kind, a, b in t["spans"]:
            if kind in total:
                total[kind] += b - a
    return {"profiles_alone": total["explain_alone"], "profiles_waiting": total["explain_waiting_alone"],
            "reruns": total["explain_shared"]}


def longest_wait(summary, kind):
    """The longest span of `kind` (a run waiting for the GPU alone), and the
    other run's share that overlapped it the most: its graded run (correctness
    tests, a hang among them) or an explanation's (a compute-sanitizer rerun,
    or a profiled program still ending). None where no run waited."""
    waits = [(b - a, t["student"], a, b) for t in summary.get("timeline", [])
             for k, a, b in t["spans"] if k == kind]
    if not waits:
        return None
    waited, student, a, b = max(waits)
    shares = [(min(b, d) - max(a, c), t["student"], k, c, d) for t in summary.get("timeline", [])
              if t["student"] != student for k, c, d in t["spans"] if k in ("shared", "explain_shared")]
    overlap, holder, k, c, d = max(shares, default=(0.0, None, None, 0.0, 0.0))
    wait = {"student": student, "start": a, "end": b, "seconds": waited}
    if holder is None or overlap <= 0:
        return {"wait": wait, "held_by": None}
    return {"wait": wait, "held_by": {"student": holder, "what": "explanation" if k == "explain_shared" else "graded run",
                                      "start": c, "end": d}}


def longest_timed_wait(summary):
    """What held the batch's timed tests up the most (longest_wait)."""
    return longest_wait(summary, "waiting_alone")


def longest_profile_wait(summary):
    """What held the explanations' profiles (Nsight Compute, the GPU alone) up the most."""
    return longest_wait(summary, "explain_waiting_alone")


def cuda_processes(logs_dir):
    """How many processes the batch started, counted from each submission's
    timings (logs/<student>.timings.txt, one "start-up" line per process):
    the graded runs' (the student's program, the judge) and the
    explanations' (compute-sanitizer, Nsight Compute), and how many of each
    opened one hardware queue ("start-up (one hardware queue)"). Each one's
    CUDA context is created and torn down by the driver one at a time,
    whatever else runs, about three times faster with one queue: what many
    processes cost a batch, which no GPU figure shows."""
    counts = {"graded": 0, "explaining": 0, "graded_one_queue": 0, "explaining_one_queue": 0}
    for table in pathlib.Path(logs_dir).glob("*.timings.txt"):
        for line in table.read_text().splitlines():
            step = line.split("|")[-1].strip()
            for ending, one_queue in ((": start-up", False), (": start-up (one hardware queue)", True)):
                if step.endswith(ending):
                    kind = "graded" if step[:-len(ending)] in ("student", "judge") else "explaining"
                    counts[kind] += 1
                    if one_queue:
                        counts[kind + "_one_queue"] += 1
    return counts


def run(argv, **kw):
    return subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("lesson")
    ap.add_argument("--count", type=int, default=20)
    ap.add_argument("--build-dir", type=pathlib.Path, default=COURSE / "build")
    ap.add_argument("-o", "--output", type=pathlib.Path)
    ap.add_argument("--seed", type=int, default=4242)
    ap.add_argument("--timeout", type=int, default=15, help="seconds a test may run, both ways (grader verify's 15)")
    ap.add_argument("--per-gpu", type=int, help="grader batch --per-gpu")
    ap.add_argument("--pause", action="store_true",
                    help="grader batch --pause: timed tests pause the sharers' GPU work instead of waiting for them")
    ap.add_argument("--jobs", type=int, help="grader batch --jobs (builders)")
    ap.add_argument("--skip-loop", action="store_true", help="only the batch (its figures, no comparison)")
    args = ap.parse_args()
    lesson = lesson_dir(args.lesson)
    lesson_id = "lesson" + lesson[:2]
    out = args.output or pathlib.Path(tempfile.mkdtemp(prefix=f"bench-batch-{lesson_id}-"))
    out.mkdir(parents=True, exist_ok=True)
    grader = str(args.build_dir / "bin" / "grader")
    manifest = json.loads((args.build_dir / "course_manifest.json").read_text())
    info = next(l for l in manifest["lessons"] if l["id"] == lesson_id)
    tests_target = info["variants"]["exercise"]["tests_target"]

    klass = out / "class"
    subprocess.run([sys.executable, str(COURSE / "grader/batch/make_class.py"), lesson, str(klass),
                    "--copies", str(args.count // 14 + 2), "--count", str(args.count),
                    "--expect", str(out / "expect.json")], check=True)
    students = sorted(p.name for p in klass.iterdir())

    # The course's own targets first, so neither way pays for them.
    subprocess.run(["cmake", "--build", str(args.build_dir), "--target", tests_target,
                    info["variants"]["solution"]["tests_target"], "grader"], check=True, stdout=subprocess.DEVNULL)

    t0 = time.monotonic()
    busy, stop_sampling = [], threading.Event()
    sampler = threading.Thread(target=sample_gpu_busy, args=(busy, stop_sampling), daemon=True)
    sampler.start()
    cpu = []
    cpu_sampler = threading.Thread(target=sample_cpu_busy, args=(cpu, stop_sampling), daemon=True)
    cpu_sampler.start()
    batch = run([grader, "--build-dir", str(args.build_dir), "batch", lesson_id, str(klass), "-o", str(out / "batch"),
                 "--seed", str(args.seed), "--force", "--no-build", "--timeout", str(args.timeout)]
                + (["--per-gpu", str(args.per_gpu)] if args.per_gpu else [])
                + (["--pause"] if args.pause else [])
                + (["--jobs", str(args.jobs)] if args.jobs else []))
    batch_s = time.monotonic() - t0
    stop_sampling.set()
    (out / "batch.log").write_text(batch.stdout)
    summary = json.loads((out / "batch" / "logs" / "batch.json").read_text())
    # On the timeline's clock: seconds since the batch's engine started.
    zero = summary.get("timeline_started_unix", busy[0][0] if busy else 0.0)
    busy = [(t - zero, u) for t, u in busy]
    (out / "gpu-busy.csv").write_text("".join(f"{t:.2f},{u:.0f}\n" for t, u in busy))
    cpu_sampler.join()
    cpu = [(t - zero, u) for t, u in cpu]
    (out / "cpu-busy.csv").write_text("".join(f"{t:.2f},{u:.0f}\n" for t, u in cpu))
    try:
        from plot_timeline import draw
        draw(summary, out / "timeline.png", busy or None)
    except ImportError as e:
        print(f"no timeline plot ({e}): install matplotlib (python3-matplotlib)")
    mean_busy = sum(u for _, u in busy) / len(busy) if busy else None
    sharers_busy = sharers_kernel_seconds(summary, busy) if busy else None
    reruns_whole = reruns_whole_and_kernel_seconds(summary, busy) if busy else None
    result = {"lesson": lesson_id, "submissions": len(students), "batch": {"wall_s": batch_s, **summary["seconds"],
              "builders": summary["builders"], "graders_per_gpu": summary["graders_per_gpu"], "gpus": summary["gpus"],
              "sharers_paused": summary.get("sharers_paused_by_timed_tests", False)}}

    batch_scores = {}
    for s in students:
        report = out / "batch" / "students" / s / "report.json"
        outcome = json.loads((out / "batch" / "students" / s / "outcome.json").read_text())
        graded = outcome["state"] == "graded" and report.is_file()
        batch_scores[s] = json.loads(report.read_text()) if graded else {"state": outcome["state"]}

    if not args.skip_loop:
        exercise = COURSE / "exercises" / lesson
        saved = out / "exercise-saved"
        shutil.copytree(exercise, saved)
        loop_build = loop_grade = 0.0
        loop_scores = {}
        (out / "loop").mkdir()
        t0 = time.monotonic()
        try:
            for s in students:
                for f in (klass / s).iterdir():
                    shutil.copy(f, exercise / f.name)
                b0 = time.monotonic()
                built = run(["cmake", "--build", str(args.build_dir), "--target", tests_target])
                loop_build += time.monotonic() - b0
                if built.returncode != 0:
                    loop_scores[s] = {"state": "build_failed"}
                else:
                    g0 = time.monotonic()
                    run([grader, "--build-dir", str(args.build_dir), "run", lesson_id, "--no-build", "--sandbox",
                         "--seed", str(args.seed), "--timeout", str(args.timeout), "--format", "json",
                         "-o", str(out / "loop" / f"{s}.json")])
                    loop_grade += time.monotonic() - g0
                    loop_scores[s] = json.loads((out / "loop" / f"{s}.json").read_text())
                for f in exercise.iterdir():
                    shutil.copy(saved / f.name, f) if (saved / f.name).exists() else f.unlink()
        finally:
            shutil.rmtree(exercise)
            # Copied with a new mtime, so that the build below sees the
            # skeleton come back (copy2 would keep the old one, older than
            # the last student's objects, and the skeleton's targets would
            # stay that student's code).
            shutil.copytree(saved, exercise, copy_function=shutil.copy)
            run(["cmake", "--build", str(args.build_dir), "--target", tests_target])
        loop_s = time.monotonic() - t0
        result["loop"] = {"wall_s": loop_s, "build_s": loop_build, "grade_s": loop_grade}

        differ, unguarded = [], []
        for s in students:
            a, b = batch_scores[s], loop_scores[s]
            if s == "snoop" and b.get("state") == "build_failed":
                # Its build stops with #error where it can read the reference
                # solution: the loop builds in the course's own tree, unguarded.
                unguarded.append(s)
                continue
            if "state" in a or "state" in b:
                if a.get("state") != b.get("state"):
                    differ.append(f"{s}: batch {a.get('state', 'graded')}, loop {b.get('state', 'graded')}")
                continue
            lost = lambda r: {t["id"] for t in r["tests"] if t["status"] != "passed"}
            if a["score"] != b["score"]:
                differ.append(f"{s}: batch {a['score']}/{a['max_score']} (lost {sorted(lost(a) - lost(b))}), "
                              f"loop {b['score']}/{b['max_score']} (lost {sorted(lost(b) - lost(a))})")
        result["scores_differ"] = differ
        result["loop_unguarded"] = unguarded

    n = len(students)
    sec = summary["seconds"]
    per_min = lambda s: 60.0 * n / s if s > 0 else float("inf")
    result["batch"]["per_min"] = per_min(batch_s)
    scores_s = sec["scores_final"]  # the engine's: the end of the last judging
    result["batch"]["scores_final_s"] = scores_s
    result["batch"]["scores_final_per_min"] = per_min(scores_s)
    result["batch"]["gpu_busy_mean_percent"] = mean_busy
    cpu_busy = {"mean": mean_between(cpu, float("-inf"), float("inf")),
                "until_scores_final": mean_between(cpu, 0.0, scores_s),
                "after_scores_final": mean_between(cpu, scores_s, float("inf"))}
    result["batch"]["cpu_busy_percent"] = cpu_busy
    result["bound_per_min"] = per_min(summary["seconds"]["gpu_alone"])
    if sharers_busy is not None:
        floor_s = sec["gpu_alone"] + sharers_busy
        result["batch"]["sharers_kernel_s"] = sharers_busy
        result["floor_per_min"] = per_min(floor_s)
        result["batch"]["sanitizer_reruns_whole_s"] = reruns_whole
        floor_whole_s = sec["gpu_alone"] + reruns_whole
        result["floor_reruns_whole_per_min"] = per_min(floor_whole_s)
    lines = [f"{lesson_id}: {n} submissions",
             f"  batch: {batch_s:.1f} s = {per_min(batch_s):.1f}/min ({summary['builders']} builders, "
             f"{summary['graders_per_gpu']} graders per GPU); builds {summary['seconds']['build_summed']:.0f} s and "
             f"grading {summary['seconds']['grade_summed']:.0f} s summed; timed tests and profiles held the GPU alone "
             f"{summary['seconds']['gpu_alone']:.1f} s: bound {per_min(summary['seconds']['gpu_alone']):.1f}/min, "
             f"batch at {100 * summary['seconds']['gpu_alone'] / batch_s:.0f}% of it",
             f"  scores final at {scores_s:.1f} s of the batch's engine = {per_min(scores_s):.1f}/min (the "
             f"explanations after that change no score)",
             f"  GPU: alone {sec['gpu_alone']:.1f} s, shared {sec['gpu_shared']:.1f} s (of which a timed run waited "
             f"{sec['gpu_held_up']:.1f} s), idle {max(0.0, batch_s - sec['gpu_alone'] - sec['gpu_shared']):.1f} s; "
             f"explaining failures {sec['evidence_summed']:.0f} s summed; "
             + (f"sharers paused while timed tests ran: {sec.get('paused', 0.0):.1f} s summed over them"
                if summary.get("sharers_paused_by_timed_tests") else "sharers never paused (no --pause, or no driver 570+)")
             + (f"; nvidia-smi: GPU busy {mean_busy:.0f}% of the time on average" if mean_busy is not None else "")]
    if cpu_busy["mean"] is not None:
        percent = lambda v: "-" if v is None else f"{v:.0f}%"
        lines.append(f"  CPU (/proc/stat, {os.cpu_count()} cores): busy {percent(cpu_busy['mean'])} of the time on "
                     f"average, {percent(cpu_busy['until_scores_final'])} until the scores were final, "
                     f"{percent(cpu_busy['after_scores_final'])} after")
    for key, what, held_up in (("longest_timed_wait", "time a test", longest_timed_wait(summary)),
                               ("longest_profile_wait", "profile a test", longest_profile_wait(summary))):
        result["batch"][key] = held_up
        if held_up:
            w, h = held_up["wait"], held_up["held_by"]
            lines.append(f"  longest wait to {what}: {w['student']}, {w['seconds']:.1f} s ({w['start']:.1f} to "
                         f"{w['end']:.1f} s)" + (f"; the share beside it the longest: {h['student']}'s {h['what']}, "
                                                 f"{h['start']:.1f} to {h['end']:.1f} s" if h else ""))
    processes = cuda_processes(out / "batch" / "logs")
    result["batch"]["cuda_processes"] = processes
    lines.append(f"  processes started: {processes['graded']} by graded runs (the students' programs, each "
                 f"restarted after a crash or a hang, and the judges; {processes['graded_one_queue']} of them with "
                 f"one hardware queue) and {processes['explaining']} by explanations (compute-sanitizer, Nsight "
                 f"Compute; {processes['explaining_one_queue']} with one queue); the driver creates and tears down "
                 f"their CUDA contexts one at a time, about three times faster with one queue "
                 f"(logs/<student>.timings.txt: each process's first GPU test waits for it)")
    explaining = explaining_seconds(summary)
    result["batch"]["explaining"] = explaining
    lines.append(f"  explaining, summed over submissions: profiles held the GPU alone {explaining['profiles_alone']:.1f} s "
                 f"and waited {explaining['profiles_waiting']:.1f} s for it (new correctness tests wait behind them); "
                 f"compute-sanitizer's reruns shared it {explaining['reruns']:.1f} s")
    if sharers_busy is not None:
        lines.append(f"  floor: the {sec['gpu_alone']:.1f} s the GPU was held alone (timed tests, profiles) + about {sharers_busy:.1f} s of the sharers' "
                     f"kernels (nvidia-smi), which no fair schedule overlaps with them: "
                     f"{result['floor_per_min']:.1f}/min; batch at {100 * floor_s / batch_s:.0f}% of it")
        lines.append(f"  floor with compute-sanitizer's reruns whole (the driver cannot pause them, so no timed test runs "
                     f"beside one): {sec['gpu_alone']:.1f} s alone + {reruns_whole:.1f} s of reruns and other kernels: "
                     f"{result['floor_reruns_whole_per_min']:.1f}/min; batch at "
                     f"{100 * floor_whole_s / batch_s:.0f}% of it")
        outside = outside_the_floors(summary, batch_s)
        result["batch"]["outside_the_floors"] = outside
        on_gpu_s = max(1e-9, batch_s - outside["before_first_gpu_work"] - outside["outside_engine"])
        lines.append(f"  outside both floors: the first {outside['before_first_gpu_work']:.1f} s of the engine, before "
                     f"any run was on the GPU (the first builds), and {outside['outside_engine']:.1f} s of `grader "
                     f"batch` outside its engine (its start-up, the gradebook and the class report); the {on_gpu_s:.1f} s "
                     f"between them are at {100 * floor_s / on_gpu_s:.0f}% of the floor and "
                     f"{100 * floor_whole_s / on_gpu_s:.0f}% of the floor with reruns whole")
    if "loop" in result:
        lp = result["loop"]
        result["speedup"] = lp["wall_s"] / batch_s
        lines.append(f"  loop:  {lp['wall_s']:.1f} s = {per_min(lp['wall_s']):.1f}/min (build {lp['build_s']:.1f} s, "
                     f"grading {lp['grade_s']:.1f} s); batch {result['speedup']:.2f}x the loop's throughput")
        compared = n - len(result["loop_unguarded"])
        lines.append(f"  scores: {compared - len(result['scores_differ'])} of {compared} equal" +
                     "".join(f"\n    differs: {d}" for d in result["scores_differ"]) +
                     "".join(f"\n    not compared: {s} (in the loop, with no sandbox, its build could read the "
                             f"reference solution and stopped at its #error; in the batch it could not)" for s in result["loop_unguarded"]))
    (out / "bench.json").write_text(json.dumps(result, indent=2) + "\n")
    print("\n".join(lines))
    print(f"  (files: {out})")


if __name__ == "__main__":
    main()
