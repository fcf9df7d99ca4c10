// A stand-in for a lesson's graded-test program, built on the real harness,
// whose tests misbehave on request (environment variables set by
// test_runner.cpp): crash, hang, throw. No GPU needed.
#include <unistd.h>

#include <csignal>
#include <cstdlib>

#include "course/error.hpp"
#include "course/testing/graded.hpp"

namespace {
bool asked(const char* what) { return std::getenv(what) != nullptr; }
}  // namespace

GRADED_HOST_TEST(Fake, Passes, 1, "a test that passes") {}

GRADED_HOST_TEST(Fake, Fails, 2, "a test that fails") {
    SCOPED_TRACE("n = 129");
    ADD_FAILURE() << "element 128: expected 1, got NaN (never written)";
}

GRADED_HOST_TEST(Fake, Crashes, 1, "a test that may crash") {
    if (asked("FAKE_CRASH")) std::raise(SIGSEGV);
}

GRADED_HOST_TEST(Fake, Hangs, 1, "a test that may hang") {
    while (asked("FAKE_HANG")) sleep(1);
}

GRADED_HOST_TEST(Fake, Unfinished, 1, "a test of unfinished work") {
    if (asked("FAKE_TODO")) course::todo("fake::function");
}

GRADED_HOST_TEST(Fake, Last, 1, "the last test") {}

// Listed with its points, but GoogleTest skips DISABLED_ tests silently: the
// grader must notice that it never reported.
GRADED_HOST_TEST(Fake, DISABLED_Never, 1, "a test that never reports") {}

COURSE_GRADED_TEST_(FakeHost, Speed, 3, "a performance test", performance, false,
                    ::course::testing::host_test) {}
