"""bench_batch.py's two floors, on a timeline and nvidia-smi samples made up
so that each number can be worked out by hand."""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3] / "batch"))
from batch_test_support import Checks  # noqa: E402
from bench_batch import (cpu_busy_and_total, cuda_processes, explaining_seconds, longest_profile_wait,  # noqa: E402
                         longest_timed_wait, mean_between, outside_the_floors, reruns_whole_and_kernel_seconds,
                         sharers_kernel_seconds, spans_of)

summary = {"timeline": [
    # A timed run: its timed test 10-12 s, a profile 20-21 s.
    {"student": "timed", "spans": [["shared", 0.0, 10.0], ["alone", 10.0, 12.0], ["explain_alone", 20.0, 21.0]]},
    # Two runs under compute-sanitizer: 5-9 s and 8-10 s overlap (5-10 s once),
    # 11-14 s overlaps the timed test (12-14 s count).
    {"student": "rerun_a", "spans": [["explain_shared", 5.0, 9.0], ["explain_shared", 11.0, 14.0]]},
    {"student": "rerun_b", "spans": [["explain_shared", 8.0, 10.0], ["explain_queued", 14.0, 18.0]]},
]}
# One sample a second; a kernel ran for the whole second before t=7 (a
# rerun's), t=11 (the timed test's), t=16 (nobody's span) and 40% of the one
# before t=13 (a rerun's).
busy = [(float(t), {7: 100.0, 11: 100.0, 13: 40.0, 16: 100.0}.get(t, 0.0)) for t in range(26)]

check = Checks()
check(spans_of(summary, ("explain_shared",)) == [(5.0, 10.0), (11.0, 14.0)],
      f"overlapping reruns merge: {spans_of(summary, ('explain_shared',))}")
kernels = sharers_kernel_seconds(summary, busy)
check(abs(kernels - 2.4) < 1e-9, f"sharers' kernels outside the timed spans: 1 + 0.4 + 1 = 2.4 s, got {kernels}")
whole = reruns_whole_and_kernel_seconds(summary, busy)
# Reruns 5-10 and 12-14 (7 s), plus the kernel before t=16, outside every span.
check(abs(whole - 8.0) < 1e-9, f"reruns whole outside the timed spans (7 s) + other kernels (1 s) = 8 s, got {whole}")
check(reruns_whole_and_kernel_seconds({"timeline": []}, busy) == sharers_kernel_seconds({"timeline": []}, busy),
      "with no reruns both floors count the same kernels")
# Outside both floors: the timeline above has a run on the GPU from 0 s and
# says no engine time; below, a batch whose first run went on the GPU 3 s
# in, and whose command took 2 s more than its engine's 40 s.
outside = outside_the_floors(summary, 40.0)
check(outside == {"before_first_gpu_work": 0.0, "outside_engine": 0.0},
      f"no engine wall said: none of the command's time is counted outside it: {outside}")
late = {"seconds": {"wall": 40.0}, "timeline": [
    {"student": "built_late", "spans": [["build", 0.0, 3.0], ["queued", 3.0, 3.5], ["shared", 3.5, 9.0]]},
    {"student": "first_on", "spans": [["build", 0.0, 2.9], ["judge", 2.9, 9.0], ["shared", 3.0, 9.0]]}]}
outside = outside_the_floors(late, 42.0)
check(outside == {"before_first_gpu_work": 3.0, "outside_engine": 2.0},
      f"builds and queues are not on the GPU; the command's 42 s less the engine's 40 s: {outside}")
check(outside_the_floors({"timeline": []}, 5.0)["before_first_gpu_work"] == 0.0, "no run on the GPU: nothing before it")
# The explanations' time, summed: the profile 20-21 s alone; reruns 4 + 3 + 2 s.
check(explaining_seconds(summary) == {"profiles_alone": 1.0, "profiles_waiting": 0.0, "reruns": 9.0},
      f"explaining: {explaining_seconds(summary)}")
# /proc/stat's cpu line: user nice system idle iowait irq softirq steal guest guest_nice.
# Busy: 10 + 2 + 5 + 1 + 1 + 1 = 20; idle 70 + iowait 10; guest (already in user) not added.
check(cpu_busy_and_total("cpu  10 2 5 70 10 1 1 1 4 0") == (20, 100),
      f"cpu line: {cpu_busy_and_total('cpu  10 2 5 70 10 1 1 1 4 0')}")
cpu = [(0.5, 100.0), (1.0, 50.0), (2.0, 20.0), (3.0, 40.0)]
check(mean_between(cpu, 0.0, 2.0) == 75.0 and mean_between(cpu, 2.0, float("inf")) == 30.0,
      "the CPU's busy share until and after a moment")
check(mean_between(cpu, 5.0, 6.0) is None, "no samples: no mean")
# What held timed tests up: the longest wait, and the share that overlapped it most.
check(longest_timed_wait(summary) is None, "no timed test waited: nothing to name")
waits = {"timeline": [
    {"student": "quick", "spans": [["waiting_alone", 1.0, 2.0], ["alone", 2.0, 2.5]]},
    {"student": "slow", "spans": [["shared", 0.0, 3.0], ["waiting_alone", 3.0, 9.0], ["alone", 9.0, 9.5]]},
    # Overlaps slow's wait 4 s (3-7), the rerun below 5 s (4-9): the rerun is named.
    {"student": "hang", "spans": [["shared", 0.5, 7.0]]},
    {"student": "explained", "spans": [["explain_shared", 4.0, 12.0]]},
]}
held = longest_timed_wait(waits)
check(held == {"wait": {"student": "slow", "start": 3.0, "end": 9.0, "seconds": 6.0},
               "held_by": {"student": "explained", "what": "explanation", "start": 4.0, "end": 12.0}},
      f"the longest wait and what overlapped it most: {held}")
# slow's own share does not count, and quick shared nothing.
check(longest_timed_wait({"timeline": waits["timeline"][:2]})["held_by"] is None, "a wait beside nobody names nobody")
# Profiles wait for the GPU alone too: behind another explanation here (a
# program that ran on under Nsight Compute, 81-141 s), not behind a timed wait.
profiles = {"timeline": [
    {"student": "first", "spans": [["explain_waiting_alone", 77.0, 77.1], ["explain_alone", 77.1, 81.1],
                                   ["explain_shared", 81.1, 141.1]]},
    {"student": "next", "spans": [["explain_waiting_alone", 77.1, 143.0], ["explain_alone", 143.0, 145.0]]},
    {"student": "timed", "spans": [["waiting_alone", 1.0, 2.0], ["shared", 140.0, 150.0]]},
]}
held = longest_profile_wait(profiles)
check(held == {"wait": {"student": "next", "start": 77.1, "end": 143.0, "seconds": 143.0 - 77.1},
               "held_by": {"student": "first", "what": "explanation", "start": 81.1, "end": 141.1}},
      f"the longest wait to profile and what overlapped it most: {held}")
check(longest_timed_wait(profiles)["wait"]["student"] == "timed", "a profile's wait is not a timed test's")
check(longest_profile_wait(waits) is None, "no profile waited: nothing to name")
# Processes counted from each submission's timings: one "start-up" line each.
import tempfile  # noqa: E402
with tempfile.TemporaryDirectory() as logs:
    (pathlib.Path(logs) / "a.timings.txt").write_text(
        "where the time went: 3.00 s from the batch's start to the report\n"
        "    1.000     0.010  |#   |  student: start-up\n"
        "    1.010     0.500  |#   |  student: VecAdd.Tiny (its process's first GPU test: CUDA starts)\n"
        "    1.000     0.010  |#   |  judge: start-up\n"
        "    2.000     0.010  |  # |  student: start-up (one hardware queue)\n"
        "    2.500     0.080  |   #|  sanitizer1: start-up (one hardware queue)\n")
    (pathlib.Path(logs) / "b.timings.txt").write_text("    0.100     0.010  |#   |  profile1: start-up\n")
    (pathlib.Path(logs) / "batch.json").write_text("{}")
    check(cuda_processes(logs) == {"graded": 3, "explaining": 2, "graded_one_queue": 1, "explaining_one_queue": 1},
          f"processes: {cuda_processes(logs)}")
sys.exit(check.finish("bench_batch floors"))
