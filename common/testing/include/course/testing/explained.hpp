#pragma once
// A failure that a test explained from what it saw, by a cause that no
// compute-sanitizer tool looks at: the stream a call's work was queued on
// (stream_order.cpp names it only once replaying the mistake gave the very
// output seen), or rounding in every element (lesson07's TF32). memcheck,
// racecheck, synccheck and initcheck check memory accesses, races, barriers
// and initialisation, so a rerun under them can add nothing to such a
// failure; and a stream test under a tool costs seconds a rerun.
//
// Of a speed test, it is a failure that is not the speed of the student's
// kernels: work no kernel of theirs did (the GPU's record shows no kernel
// ran, the call launched a kernel the student's library does not hold, the
// library linked a GEMM: lesson07), or what the timed calls computed or when
// (their output was wrong, a replay of them computed something else, a
// kernel of theirs ran outside them). Nsight Compute's profile measures how
// fast the student's kernels ran, so it has nothing to add there either.
//
// The test says so just before it adds the failure. Where it said so of
// every failure of the test, the test's end event says so too
// (harness.cpp), and the grader neither reruns that test under a tool nor
// profiles it. The word may come from the student's program (where it
// failed the test itself): it spares only the explanation of that
// program's own failure, never changes a verdict.
namespace course::testing {

void next_failure_explained_beyond_the_tools();

// How many of the running test's failures were said so; the count starts
// again (harness.cpp, at each test's start and end).
int take_failures_explained_beyond_the_tools();

}  // namespace course::testing
