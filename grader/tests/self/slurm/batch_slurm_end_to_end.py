#!/usr/bin/env python3
"""`grader batch --engine slurm` end to end, against a real Slurm: a one-node
cluster on this machine (grader/tests/self/slurm/local_cluster.sh), no mock.

    batch_slurm_end_to_end.py GRADER BUILD_DIR cluster
        Exit 77 (skipped) where the cluster cannot run: the Debian packages
        slurmctld, slurmd, slurm-client and munge missing, or not root.
        1. A class whose task Slurm kills: a student's start-up code sleeps
           200 s and the job's time limit is one minute. Submitted with
           --no-wait first, so its two runs (60-90 s each) overlap with 2.
        2. A lesson04 class (solution, skeleton, compile error, a missing
           file) on Slurm, two submissions per task, and the same class with
           the embedded engine: the two gradebooks must be equal. Without a
           GPU both skip the GPU tests, and only the build failure has a
           score (the others are "not graded", alike in both).
        3. Rerunning the command would submit only what has no final result.
        4. `grader batch collect` on job 1: the killed task runs once more, is
           killed again, and its submission is "not graded: infrastructure
           (... TIMEOUT ...)" with an empty score; the other one is graded.
        5. A node that cannot grade (the job's PATH there has no bubblewrap):
           each task refuses before grading anyone, the batch says once what
           the node lacks and the fix and exits 4, and every student is "not
           graded", naming it.

    batch_slurm_end_to_end.py GRADER BUILD_DIR dry-run
        --dry-run prints the job script and submits nothing (no Slurm needed),
        and a build without code for the partition's GPUs (--gpu-arch), or
        without the GPU recorder the lesson's timed tests need, is refused
        before anything is written.
"""
import csv
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

# The batch tests' support, beside the embedded engine's tests.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "batch"))
from batch_test_support import COURSE as course, Checks, bubblewrap_options, make_class as make_any_class  # noqa: E402

grader, build, mode = sys.argv[1], sys.argv[2], sys.argv[3]
local_cluster = course / "grader/tests/self/slurm/local_cluster.sh"
work = pathlib.Path(tempfile.mkdtemp(prefix="batch-slurm-"))
check = Checks()
SKIP = 77


def run(*args, env=None):
    result = subprocess.run([str(a) for a in args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env=env)
    shown = [pathlib.Path(args[0]).name] + [str(a) for a in args[1:]]
    print(f"$ {' '.join(shown)}\n{result.stdout}(exit code {result.returncode})\n", flush=True)
    return result


def batch(klass, out, *extra, env=None):
    return run(grader, "--build-dir", build, "batch", "4", klass, "-o", out, "--seed", "3", "--no-build", *extra,
               env=env)


def gradebook(out):
    text = (out / "gradebook.csv").read_text()
    print(f"{out / 'gradebook.csv'}:\n{text}", flush=True)
    return {row["student"]: row for row in csv.DictReader(text.splitlines())}


def make_class(folder, count):
    make_any_class(4, folder, "--count", count)


def lesson04_class():
    """A solution, a skeleton, a compile error and a student who handed in one file."""
    klass = work / "class"
    make_class(klass, 3)
    (klass / "dora" / "src").mkdir(parents=True)
    shutil.copy(course / "solutions/04_memory_pools/memory_pool.cu", klass / "dora/src/memory_pool.cu")
    return klass


def slow_class():
    """The solution, and the solution whose start-up code sleeps far past the job's time limit."""
    klass = work / "slow"
    make_class(klass, 1)  # solution
    shutil.copytree(klass / "solution", klass / "sleeper")
    with open(klass / "sleeper/memory_pool.cu", "a") as f:
        f.write("\n#include <chrono>\n#include <thread>\n"
                "namespace {\nstruct slow_start {\n"
                "    slow_start() { std::this_thread::sleep_for(std::chrono::seconds(200)); }\n"
                "} slow_start_instance;\n}  // namespace\n")
    return klass


def build_runs_on(archs, cc):
    """Whether a build for CMake's `archs` ("90", "75-real;86-virtual") has code a GPU of compute capability
    `cc` (80 for 8.0) can run, by CUDA's rules: machine code for sm_Xy runs on X.z for z >= y ("a" variants on
    their own GPU only); PTX runs at or above its architecture. ("90" is both.)"""
    for entry in archs.split(";"):
        number, _, kind = entry.partition("-")
        if not number[:2].isdigit():
            return True  # "native", "all": not for this test to judge
        digits = number.rstrip("a")
        arch, specific = int(digits), number.endswith("a")
        if kind != "real" and not specific and arch <= cc:
            return True
        if kind != "virtual" and (arch == cc if specific else arch // 10 == cc // 10 and arch <= cc):
            return True
    return False


def path_without(program, folder):
    """PATH with `program` gone: each of its folders that holds it is replaced
    by a folder of links to everything else in it."""
    folder.mkdir()
    dirs = []
    for i, d in enumerate(os.environ["PATH"].split(":")):
        if d and os.path.isfile(os.path.join(d, program)):
            mirror = folder / str(i)
            mirror.mkdir()
            for entry in os.listdir(d):
                if entry != program:
                    (mirror / entry).symlink_to(os.path.join(d, entry))
            d = str(mirror)
        dirs.append(d)
    return ":".join(dirs)


def dry_run():
    klass = lesson04_class()
    out = work / "out"
    result = batch(klass, out, "--engine", "slurm", "--dry-run", "--chunk-size", "2", "--throttle", "2",
                   "--partition", "gpu", "--account", "cs101", "--sbatch-option=--constraint=h100")
    check(result.returncode == 0, f"--dry-run exit code {result.returncode}")
    for line in ["#!/bin/bash", "#SBATCH --array=0-1%2\n", "#SBATCH --gres=gpu:1\n", "#SBATCH --requeue\n",
                 "#SBATCH --partition=gpu\n", "#SBATCH --account=cs101\n", "#SBATCH --constraint=h100\n",
                 # two graders (4 CPUs), each a test program and a judge within --memory 16G, and 4G more
                 "#SBATCH --mem=68G\n",
                 f"#SBATCH --output={out}/slurm/logs/%A_%a.out\n",
                 f"exec {pathlib.Path(grader).resolve()} --build-dir {pathlib.Path(build).resolve()} batch lesson04 "
                 f"{klass} -o {out} ", f"--only-students {out}/slurm/students.json",
                 '--chunk "$SLURM_ARRAY_TASK_ID"/2 --scratch "${TMPDIR:-/tmp}" --no-build --no-report --seed 3',
                 "nothing submitted"]:
        check(line in result.stdout, f"the dry run does not print {line!r}")
    students = json.loads((out / "slurm/students.json").read_text())
    check(students == ["compile_error", "dora", "skeleton", "solution"], f"students.json: {students}")
    check(not (out / "logs/slurm-job.json").exists(), "a dry run recorded a job")

    # With no measured times, the limit is every test running to its limit, and the dry run says so.
    check("as no time was measured" in result.stdout, "the dry run does not say where its time limit came from")
    # With `grader verify`'s measured times, the limit comes from them: two submissions a task, each
    # its 300 s build limit and 3 x 20 s x (60 s / 15 s a test), plus 600 s of setup: 28 minutes.
    measured = pathlib.Path(build) / "measured-grading" / "lesson04.json"
    kept = measured.read_text() if measured.exists() else None
    try:
        measured.parent.mkdir(parents=True, exist_ok=True)
        measured.write_text(json.dumps({"lesson": "lesson04", "gpu": "NVIDIA H200 (sm_90)",
                                        "date": "2026-11-29T00:00:00Z", "timeout_s": 15, "runs": 12,
                                        "slowest_s": 20.0, "slowest": "mutant pool_never_trims"}))
        timed = batch(klass, work / "timed-out", "--engine", "slurm", "--dry-run", "--chunk-size", "2")
        check(timed.returncode == 0, f"--dry-run with measured times exit code {timed.returncode}")
        check("#SBATCH --time=0:28:00\n" in timed.stdout and "slowest graded run" in timed.stdout,
              "the time limit does not come from the measured times")
    finally:
        if kept is None:
            measured.unlink(missing_ok=True)
        else:
            measured.write_text(kept)

    # Memory asked for by the instructor is theirs: no second --mem.
    asked = batch(klass, work / "mem-out", "--engine", "slurm", "--dry-run", "--sbatch-option=--mem=20G")
    check(asked.returncode == 0, f"--dry-run with --mem exit code {asked.returncode}")
    check("#SBATCH --mem=20G\n" in asked.stdout and "--mem=68G" not in asked.stdout,
          "the instructor's --mem is not the only one")

    # The partition's GPUs, declared: a build without code for them is
    # refused before anything is written; one with code goes on.
    manifest = json.loads((pathlib.Path(build) / "course_manifest.json").read_text())
    archs = manifest["cuda_architectures"].replace(",", ";")
    t4 = batch(klass, work / "t4-out", "--engine", "slurm", "--dry-run", "--gpu-arch", "sm_75")
    if not build_runs_on(archs, 75):
        check(t4.returncode == 4, f"--gpu-arch sm_75 against a build for {archs}: exit code {t4.returncode}")
        for part in ["GPU declared with --gpu-arch sm_75 is sm_75", "Nothing was submitted",
                     "./setup.sh --preset portable", "-DCMAKE_CUDA_ARCHITECTURES="]:
            check(part in t4.stdout, f"the refusal does not say {part!r}")
        check(not (work / "t4-out/slurm/grade.sbatch").exists(), "a refused job wrote its script")
    # Or named by sinfo: a partition of A100s, as its gres.conf types them.
    fake = work / "fake-slurm"
    fake.mkdir()
    (fake / "sinfo").write_text("#!/bin/sh\necho 'gpu:nvidia_a100-sxm4-80gb:4(S:0-1)'\n")
    (fake / "sinfo").chmod(0o755)
    a100 = batch(klass, work / "a100-out", "--engine", "slurm", "--dry-run", "--partition", "a100",
                 env=dict(os.environ, PATH=f"{fake}:{os.environ['PATH']}"))
    if not build_runs_on(archs, 80):
        check(a100.returncode == 4 and "(gpu:nvidia_a100-sxm4-80gb, sinfo's GPU type in partition a100) is sm_80"
              in a100.stdout and "--gpu-arch sm_90" in a100.stdout, "sinfo's A100s against a build without sm_80")
        check(not (work / "a100-out/slurm/grade.sbatch").exists(), "a refused job wrote its script")
    # What the build lacks, every node lacks: a build whose GPU recorder was
    # never built (lesson04 has timed tests) is refused before anything is written.
    lacking = work / "build-without-recorder"
    lacking.mkdir()
    (lacking / "course_manifest.json").write_text(
        json.dumps(dict(manifest, gpu_recorder=str(lacking / "libcourse_gpu_recorder.so"))))
    no_recorder = run(grader, "--build-dir", lacking, "batch", "4", klass, "-o", work / "no-recorder-out",
                      "--seed", "3", "--no-build", "--engine", "slurm", "--dry-run")
    check(no_recorder.returncode == 4, f"a build without the GPU recorder: exit code {no_recorder.returncode}")
    for part in ["- the GPU recorder (CUPTI): the GPU recorder", "is not built", "fix: cmake --build",
                 "Nothing was submitted"]:
        check(part in no_recorder.stdout, f"the refusal without the recorder does not say {part!r}")
    check(not (work / "no-recorder-out/slurm/grade.sbatch").exists(), "a refused job wrote its script")
    ok = batch(klass, work / "ok-out", "--engine", "slurm", "--dry-run", "--gpu-arch", "9.0")
    check(ok.returncode == 0 and "nothing submitted" in ok.stdout, "--gpu-arch 9.0 against an sm_90 build")
    check("WARNING: which GPUs" not in ok.stdout, "a warning of unknown GPUs where they were declared")


def cluster():
    cluster_dir = work / "cluster"
    started = run("/bin/bash", local_cluster, "start", cluster_dir)
    if started.returncode == SKIP:
        return SKIP
    if started.returncode != 0:
        check(False, "the local cluster did not start")
        return 1
    env = dict(os.environ, SLURM_CONF=str(cluster_dir / "slurm.conf"))
    # Every task asks for one CPU and no GPU: the test node has no GPU, and two CPUs on CI.
    slurm = ["--engine", "slurm", "--gpus-per-task", "0", "--cpus-per-task", "1", *bubblewrap_options()]
    try:
        # 1. The killed task's job first, so that its two runs overlap with the rest.
        slow = slow_class()
        slow_out = work / "slow-out"
        submitted = batch(slow, slow_out, *slurm, "--chunk-size", "1", "--time-limit", "1", "--timeout", "300",
                          "--no-wait", env=env)
        check(submitted.returncode == 0 and "submitted job" in submitted.stdout, "the slow class was not submitted")
        check(f"grader batch collect {slow_out}" in submitted.stdout, "--no-wait does not say how to collect")

        # 2. Slurm and the embedded engine grade the class the same.
        klass = lesson04_class()
        on_slurm = batch(klass, work / "slurm-out", *slurm, "--chunk-size", "2", env=env)
        check(on_slurm.returncode in (0, 2), f"grader batch --engine slurm exit code {on_slurm.returncode}")
        here = batch(klass, work / "local-out", "--engine", "local", *bubblewrap_options())
        check(here.returncode in (0, 2), f"grader batch --engine local exit code {here.returncode}")
        # Without a GPU every task has submissions it could not grade, and
        # says so as the embedded engine does, with exit code 2: FAILED to Slurm.
        no_gpu = "no GPU here" in here.stdout
        check("task " in on_slurm.stdout and ("COMPLETED" in on_slurm.stdout or no_gpu), "no task COMPLETED")
        slurm_rows, local_rows = gradebook(work / "slurm-out"), gradebook(work / "local-out")
        check(sorted(slurm_rows) == ["compile_error", "dora", "skeleton", "solution"], f"rows {sorted(slurm_rows)}")
        check(slurm_rows == local_rows, f"the gradebooks differ:\n{slurm_rows}\n{local_rows}")
        if no_gpu:  # the GPU tests could not run: no score, only why
            check(slurm_rows["solution"]["score"] == "" and
                  slurm_rows["solution"]["note"].startswith("not graded: its GPU tests could not run here"),
                  f"the solution on Slurm without a GPU: {slurm_rows['solution']}")
        else:
            check(slurm_rows["solution"]["score"] not in ("", "0"), "the solution scored nothing on Slurm")
        record = json.loads((work / "slurm-out/logs/slurm-job.json").read_text())
        check([sorted(c) for c in record["chunks"]] == [["compile_error", "dora"], ["skeleton", "solution"]],
              f"chunks {record['chunks']}")

        # 3. Only what has no final result would go to Slurm again: without a
        # GPU only the build failure is final (the others owe their GPU tests).
        # (Grades made without the sandbox, where bubblewrap cannot run, are not final either.)
        again = batch(klass, work / "slurm-out", *slurm, "--chunk-size", "2", "--dry-run", env=env)
        unsandboxed = "--no-sandbox" in slurm
        check(("1 already graded" in again.stdout) != unsandboxed, "a rerun's word on what is already graded")
        left = json.loads((work / "slurm-out/slurm/students.json").read_text())
        expected_left = ["dora", "skeleton", "solution"]
        if unsandboxed:
            expected_left.insert(0, "compile_error")
        check(left == expected_left, f"a rerun would submit {left}")

        # 4. The killed task: run again once, killed again, not graded (never a zero).
        collected = run(grader, "--build-dir", build, "batch", "collect", slow_out, env=env)
        check(collected.returncode == 2, f"collect exit code {collected.returncode} (2: some not graded)")
        check("running it again" in collected.stdout, "the killed task was not run again")
        rows = gradebook(slow_out)
        sleeper = rows.get("sleeper", {})
        check(sleeper.get("score") == "", f"the sleeper has a score: {sleeper}")
        note = sleeper.get("note", "")
        check(note.startswith("not graded: infrastructure") and "TIMEOUT" in note and "both runs" in note,
              f"the sleeper's note: {note!r}")
        check(rows.get("solution", {}).get("score") == slurm_rows["solution"]["score"],
              f"the task beside the killed one: {rows.get('solution')}")
        jobs = json.loads((slow_out / "logs/slurm-job.json").read_text())["jobs"]
        check(len(jobs) == 2 and jobs[1]["tasks"] == [0], f"jobs {jobs}")
        # 5. A node without bubblewrap: every task refuses, the batch says why once.
        if unsandboxed:
            print("step 5 skipped: bubblewrap cannot run here, so no node can be shown to lack it")
        else:
            no_bwrap = path_without("bwrap", work / "path-without-bwrap")
            refused = batch(klass, work / "refused-out", *slurm, "--chunk-size", "2",
                            f"--sbatch-option=--export=ALL,PATH={no_bwrap}", env=env)
            check(refused.returncode == 4, f"every task refused: exit code {refused.returncode} (4)")
            for part in ["2 task(s) refused to grade", "bubblewrap (bwrap) is not installed: none on PATH",
                         "apt-get install bubblewrap", "nothing was graded: no node of the job could grade"]:
                check(part in refused.stdout, f"the batch whose nodes lack bubblewrap does not say {part!r}")
            check(refused.stdout.count("apt-get install bubblewrap") == 1, "the refusal is not said exactly once")
            refused_rows = gradebook(work / "refused-out")
            check(sorted(refused_rows) == ["compile_error", "dora", "skeleton", "solution"],
                  f"rows {sorted(refused_rows)}")
            for student, row in refused_rows.items():
                check(row["score"] == "" and "refused to grade on" in row["note"] and
                      "it lacks bubblewrap (the sandbox)" in row["note"], f"{student} on a node without bubblewrap: {row}")

        print("Slurm's view of every job at the end:")
        run("squeue", "--states=all", "--array", "-o", "%.10i %.9P %.14j %.11T %.10M %.12R", env=env)
    finally:
        run("/bin/bash", local_cluster, "stop", cluster_dir)
    return 0


try:
    code = dry_run() if mode == "dry-run" else cluster()
finally:
    shutil.rmtree(work, ignore_errors=True)
if code == SKIP:
    print("skipped: this machine cannot run the local Slurm cluster (see above)")
    sys.exit(SKIP)
sys.exit(check.finish(f"grader batch --engine slurm ({mode})"))
