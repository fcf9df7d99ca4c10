// main() of every graded-test program. Besides running GoogleTest as usual it
//  - prints the graded tests as JSON for `--graded-list` (the grader's
//    source of points and titles; no GPU needed),
//  - takes `--seed=N` (or COURSE_SEED) and prints the seed it used,
//  - when the grader passes a file descriptor in COURSE_EVENTS_FD, writes one
//    JSON line as each test starts and ends, flushed at once, so that a test
//    which crashes or hangs the process is still known by name,
//  - after each GPU test, checks that the CUDA context still works; after a
//    sticky error (illegal address, ...) no later test could pass, so it
//    reports the culprit and exits for the grader to start a fresh process,
//  - when the grader asks for evidence (COURSE_EVIDENCE, evidence.hpp),
//    records what each test observed of the code under test, or, in the
//    judge (the tests built against the reference solution), hands each
//    test the student's recorded observations and fails a test whose
//    recorded evidence it could not use in full.
// None of this is trusted by the grader when the program links student code:
// the events say which test was running when a process died, and the
// student's own failure messages; a pass counts only once the judge agrees
// (grader/TRUST.md).
#include <cuda_runtime_api.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "course/device_info.hpp"
#include "course/testing/evidence.hpp"
#include "course/testing/explained.hpp"
#include "course/testing/graded.hpp"
#include "course/testing/harness.hpp"
#include "course/testing/performance.hpp"

namespace {

using nlohmann::json;
using course::testing::graded_tests;
using course::testing::test_kind;

json graded_list() {
    json tests = json::array();
    for (const auto& t : graded_tests()) {
        tests.push_back({{"id", t.id()},
                         {"title", t.title},
                         {"points", t.points},
                         {"kind", t.kind == test_kind::performance ? "performance" : "correctness"},
                         {"gpu", t.needs_gpu},
                         {"alone", t.alone},
                         {"kernel_speed", t.kernel_speed},
                         {"timed_by_judge", t.timed_by_judge},
                         {"record_alone", t.record_alone},
                         {"across_streams", t.across_streams}});
    }
    return {{"tests", tests}};
}

std::string test_id(const ::testing::TestInfo& info) {
    return std::string(info.test_suite_name()) + "." + info.name();
}

// The CUDA context is unusable when an error persists past being read once.
cudaError_t sticky_error_after_test() {
    if (!course::has_device()) return cudaSuccess;
    cudaDeviceSynchronize();
    cudaGetLastError();
    return cudaDeviceSynchronize();
}

// "this test left the GPU in an unusable state (cudaErrorMisalignedAddress:
// misaligned address): a kernel accessed memory at an address not aligned ..."
std::string describe_sticky_error(cudaError_t status) {
    const std::string name = cudaGetErrorName(status);
    return "this test left the GPU in an unusable state (" + name + ": " + cudaGetErrorString(status) +
           "): " + course::testing::sticky_error_meaning(name) +
           ". The remaining tests run in a fresh process.";
}

class event_stream : public ::testing::EmptyTestEventListener {
public:
    explicit event_stream(std::FILE* out) : out_(out) {}

    void OnTestStart(const ::testing::TestInfo& info) override {
        course::testing::begin_test_evidence(test_id(info));
        (void)course::testing::take_failures_explained_beyond_the_tools();
        emit({{"event", "start"}, {"test", test_id(info)}});
    }

    void OnTestEnd(const ::testing::TestInfo& info) override {
        const ::testing::TestResult& result = *info.result();
        json messages = json::array();
        int failures = 0;
        for (int i = 0; i < result.total_part_count(); ++i) {
            const auto& part = result.GetTestPartResult(i);
            if (part.failed() || part.skipped()) messages.push_back(part.message());
            if (part.failed()) ++failures;
        }
        const int explained = course::testing::take_failures_explained_beyond_the_tools();
        std::string status = result.Skipped() ? "skipped" : result.Failed() ? "failed" : "passed";
        // The student's program did not decide this one: the judge will.
        if (status == "passed" && course::testing::test_left_verdict_to_judge()) status = "deferred";
        // The judge: a pass whose recorded evidence was not all used is no pass.
        if (const std::string unused = course::testing::end_test_evidence(); !unused.empty() && status == "passed") {
            status = "failed";
            messages.push_back(unused);
        }

        const auto* graded = course::testing::find_graded(test_id(info));
        cudaError_t sticky = cudaSuccess;
        if (graded && graded->needs_gpu && !result.Skipped()) sticky = sticky_error_after_test();
        if (sticky != cudaSuccess) {
            status = "failed";
            messages.push_back(describe_sticky_error(sticky));
        }
        json end = {{"event", "end"},
                    {"test", test_id(info)},
                    {"status", status},
                    {"messages", messages},
                    {"ms", result.elapsed_time()}};
        if (std::string figure = course::testing::take_reported_figure(); !figure.empty()) end["figure"] = figure;
        // Every failure explained by a cause no compute-sanitizer tool looks
        // at (explained.hpp), and nothing else wrong: no skip, no failure added above.
        if (status == "failed" && failures > 0 && explained >= failures &&
            static_cast<int>(messages.size()) == failures)
            end["explained_beyond_the_tools"] = true;
        emit(end);
        if (sticky != cudaSuccess) std::_Exit(course::testing::sticky_error_exit_code);
    }

    // The end of a run of the tests (a phase): a test it did not start will
    // not start in this phase.
    void OnTestProgramEnd(const ::testing::UnitTest&) override { emit({{"event", "done"}}); }

private:
    void emit(const json& event) {
        if (!out_) return;  // evidence without events: a test program run by hand
        const std::string line = event.dump() + "\n";
        std::fwrite(line.data(), 1, line.size(), out_);
        std::fflush(out_);
    }
    std::FILE* out_;
};

// "--flag=value" -> "value"; empty when absent.
std::string flag_value(int argc, char** argv, const char* flag) {
    const std::string prefix = std::string(flag) + "=";
    for (int i = 1; i < argc; ++i)
        if (std::strncmp(argv[i], prefix.c_str(), prefix.size()) == 0) return argv[i] + prefix.size();
    return {};
}

bool has_flag(int argc, char** argv, const char* flag) {
    for (int i = 1; i < argc; ++i)
        if (std::strcmp(argv[i], flag) == 0) return true;
    return false;
}

}  // namespace

int main(int argc, char** argv) {
    if (has_flag(argc, argv, course::testing::list_flag)) {
        std::printf("%s\n", graded_list().dump(2).c_str());
        return 0;
    }
    if (const char* env = std::getenv("COURSE_SEED")) course::testing::set_run_seed(std::strtoull(env, nullptr, 10));
    for (int i = 1; i < argc; ++i) {
        if (std::strncmp(argv[i], "--seed=", 7) == 0)
            course::testing::set_run_seed(std::strtoull(argv[i] + 7, nullptr, 10));
    }
    ::testing::InitGoogleTest(&argc, argv);  // leaves our own flags in argv, ignored
    if (!has_flag(argc, argv, "--gtest_list_tests"))
        std::printf("seed %llu (rerun with --seed=%llu)\n",
                    static_cast<unsigned long long>(course::testing::run_seed()),
                    static_cast<unsigned long long>(course::testing::run_seed()));

    std::FILE* events = nullptr;
    if (const char* fd = std::getenv(course::testing::events_fd_variable)) events = fdopen(std::atoi(fd), "w");
    const char* mode = std::getenv(course::testing::evidence_mode_variable);
    const char* dir = std::getenv(course::testing::evidence_dir_variable);
    if (mode && dir) {
        const std::string m = mode;
        const char* claims = std::getenv(course::testing::evidence_claims_variable);
        const char* wait_ms = std::getenv(course::testing::evidence_wait_variable);
        course::testing::start_evidence(m == "judge"    ? course::testing::evidence_mode::judge
                                        : m == "record" ? course::testing::evidence_mode::record
                                                        : course::testing::evidence_mode::off,
                                        dir, claims ? claims : "", wait_ms ? std::atoll(wait_ms) : 0);
    }
    course::testing::set_events_to_grader(events);  // what a test says to the grader as it runs (graders_clock.hpp)
    if (events || course::testing::current_evidence_mode() != course::testing::evidence_mode::off)
        ::testing::UnitTest::GetInstance()->listeners().Append(new event_stream(events));
    const int first = RUN_ALL_TESTS();
    // A second phase in the same process (the performance tests, once the
    // correctness tests are judged): saves a process and a CUDA context.
    const std::string then = flag_value(argc, argv, course::testing::phase2_flag);
    if (then.empty() || !course::testing::phase2_may_start()) return first;
    GTEST_FLAG_SET(filter, then);
    const int second = RUN_ALL_TESTS();
    return first != 0 ? first : second;
}
