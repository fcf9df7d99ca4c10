// What a graded run and a batch need (run/grading_needs.hpp): each need,
// missing, is reported with its fix. A need is made missing the way it goes
// missing on a machine: bubblewrap and the CUDA tools through PATH and the
// course's variables (the real lookups), libelf, libseccomp and the
// counters' permission through the lookups a test replaces (they are facts
// of how the grader was built, or of the driver), the recorder and the
// launcher through the build's manifest.
#include <gtest/gtest.h>

#include <stdlib.h>

#include <fstream>
#include <optional>
#include <string>

#include "course/temp_dir.hpp"
#include "run/grading_needs.hpp"

namespace grader {
namespace {

namespace fs = std::filesystem;

// Sets an environment variable for the test's length, then puts it back.
class scoped_env {
public:
    scoped_env(const char* name, const std::string& value) : name_(name) {
        if (const char* was = std::getenv(name)) before_ = was;
        setenv(name, value.c_str(), 1);
    }
    ~scoped_env() {
        if (before_) setenv(name_, before_->c_str(), 1);
        else unsetenv(name_);
    }
    scoped_env(const scoped_env&) = delete;
    scoped_env& operator=(const scoped_env&) = delete;

private:
    const char* name_;
    std::optional<std::string> before_;
};

// Each test starts from a machine and a build with everything: every lookup
// answers yes, and the
// manifest's recorder and launcher are files.
struct GradingNeeds : ::testing::Test {
    course::temp_dir dir{"grading-needs"};
    manifest m;
    grading_lookups lookups;

    void SetUp() override {
        for (const char* name : {"libcourse_gpu_recorder.so", "course-threads-only", "bwrap", "compute-sanitizer", "ncu"})
            std::ofstream(dir.path() / name) << "#!/bin/sh\n";
        m.gpu_recorder = dir.path() / "libcourse_gpu_recorder.so";
        m.threads_only_launcher = dir.path() / "course-threads-only";
        m.cuda_compiler_version = "13.0.88";
        const fs::path root = dir.path();
        lookups.bubblewrap = [root] { return bubblewrap_search{root / "bwrap", ""}; };
        lookups.compute_sanitizer = [root] { return std::optional<fs::path>(root / "compute-sanitizer"); };
        lookups.ncu = [root] { return std::optional<fs::path>(root / "ncu"); };
        lookups.reads_device_code = [] { return true; };
        lookups.refuses_processes = [] { return true; };
        lookups.counters_for_admins_only = [] { return std::optional<bool>(false); };
    }
    std::vector<grading_check> checks() const { return grading_checks(observe_grading_needs(&m, lookups)); }
};

const grading_check& check_of(const std::vector<grading_check>& checks, grading_need need) {
    for (const auto& c : checks)
        if (c.need == need) return c;
    throw std::logic_error(std::string("no check of ") + to_string(need));
}

// The check of `need` failed, saying `what` and with a fix that holds `fix`;
// every other check passed.
void only_missing(const std::vector<grading_check>& checks, grading_need need, const std::string& what,
                  const std::string& fix) {
    EXPECT_EQ(checks.size(), 6u) << "one check per need";
    for (const auto& c : checks) {
        if (c.need != need) {
            EXPECT_TRUE(c.ok) << to_string(c.need) << ": " << c.what;
            continue;
        }
        EXPECT_FALSE(c.ok) << c.what;
        EXPECT_NE(c.what.find(what), std::string::npos) << c.what;
        EXPECT_NE(c.fix.find(fix), std::string::npos) << c.fix;
    }
}

TEST_F(GradingNeeds, EveryNeedIsMet) {
    for (const auto& c : checks()) EXPECT_TRUE(c.ok) << to_string(c.need) << ": " << c.what << " / " << c.fix;
}

TEST_F(GradingNeeds, NoBubblewrapOnPathIsMissingWithTheFix) {
    const course::temp_dir empty("grading-needs-path");
    const scoped_env path("PATH", empty.path().string());
    const scoped_env chosen("COURSE_BWRAP", "");
    lookups.bubblewrap = grading_lookups::of_this_machine().bubblewrap;  // the real search, on an empty PATH
    only_missing(checks(), grading_need::sandbox, "bubblewrap (bwrap) is not installed", "apt-get install bubblewrap");
}

TEST_F(GradingNeeds, ABubblewrapThatCannotRunASandboxIsMissing) {
    const fs::path failing = dir.path() / "bwrap-that-fails";
    std::ofstream(failing) << "#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n";
    fs::permissions(failing, fs::perms::owner_all);
    const course::temp_dir empty("grading-needs-path");
    const scoped_env path("PATH", empty.path().string());
    const scoped_env chosen("COURSE_BWRAP", failing.string());
    lookups.bubblewrap = grading_lookups::of_this_machine().bubblewrap;
    only_missing(checks(), grading_need::sandbox, "setting up uid map: Permission denied",
                 "kernel.unprivileged_userns_clone=1");
}

TEST_F(GradingNeeds, CudaToolsAreFoundThroughTheirVariables) {
    const scoped_env sanitizer("COURSE_COMPUTE_SANITIZER", (dir.path() / "compute-sanitizer").string());
    const scoped_env ncu("COURSE_NCU", (dir.path() / "ncu").string());
    const grading_lookups real = grading_lookups::of_this_machine();
    EXPECT_EQ(real.compute_sanitizer(), dir.path() / "compute-sanitizer");
    EXPECT_EQ(real.ncu(), dir.path() / "ncu");
}

TEST_F(GradingNeeds, NoComputeSanitizerIsMissingWithItsPackage) {
    lookups.compute_sanitizer = [] { return std::optional<fs::path>(); };
    only_missing(checks(), grading_need::compute_sanitizer, "compute-sanitizer not found",
                 "cuda-compute-sanitizer-13-0");
}

TEST_F(GradingNeeds, NoNcuIsMissingWithItsPackage) {
    lookups.ncu = [] { return std::optional<fs::path>(); };
    only_missing(checks(), grading_need::ncu, "ncu (Nsight Compute) not found", "cuda-nsight-compute-13-0");
}

TEST_F(GradingNeeds, CountersForAdministratorsOnlyLeaveNcuUnableToProfile) {
    lookups.counters_for_admins_only = [] { return std::optional<bool>(true); };
    only_missing(checks(), grading_need::ncu, "only administrators read the GPU's counters",
                 "NVreg_RestrictProfilingToAdminUsers=0");
}

TEST_F(GradingNeeds, OnWslTheCountersAreAllowedInWindows) {
    lookups.ncu = [] { return std::optional<fs::path>(); };
    grading_facts facts = observe_grading_needs(&m, lookups);
    facts.wsl = true;
    const grading_check& ncu = check_of(grading_checks(facts), grading_need::ncu);
    EXPECT_NE(ncu.fix.find("Manage GPU Performance Counters"), std::string::npos) << ncu.fix;
}

TEST_F(GradingNeeds, AGraderBuiltWithoutLibelfIsMissingIt) {
    lookups.reads_device_code = [] { return false; };
    only_missing(checks(), grading_need::libelf, "built without libelf", "apt-get install libelf-dev");
}

TEST_F(GradingNeeds, ABuildWithoutCuptiHasNoRecorder) {
    m.gpu_recorder.clear();  // what the manifest says where CMake found no CUPTI
    only_missing(checks(), grading_need::gpu_recorder, "no GPU recorder", "cuda-cupti-dev-13-0");
    m.gpu_recorder = dir.path() / "not-built.so";
    only_missing(checks(), grading_need::gpu_recorder, "is not built", "--target grader");
}

TEST_F(GradingNeeds, ABuildWithoutLibseccompHasNoLauncher) {
    m.threads_only_launcher.clear();
    only_missing(checks(), grading_need::threads_only, "no course-threads-only", "apt-get install libseccomp-dev");
    m.threads_only_launcher = dir.path() / "course-threads-only";
    lookups.refuses_processes = [] { return false; };  // the launcher, but a grader that cannot answer it
    only_missing(checks(), grading_need::threads_only, "no course-threads-only", "libseccomp-dev");
}

TEST_F(GradingNeeds, WithoutABuildItsNeedsAreUnknownAndSaySo) {
    const auto without = grading_checks(observe_grading_needs(nullptr, lookups));
    EXPECT_FALSE(check_of(without, grading_need::gpu_recorder).ok);
    EXPECT_NE(check_of(without, grading_need::threads_only).fix.find("./setup.sh"), std::string::npos);
}

listed_test test_of(bool gpu, bool alone, bool kernel_speed, bool timed_by_judge) {
    listed_test t;
    t.id = "Suite.Test";
    t.gpu = gpu;
    t.alone = alone;
    t.kernel_speed = kernel_speed;
    t.timed_by_judge = timed_by_judge;
    return t;
}

TEST_F(GradingNeeds, ABatchNeedsWhatItsTestsNeed) {
    lookups = {[] { return bubblewrap_search{std::nullopt, "bubblewrap (bwrap) is not installed: none on PATH"}; },
               [] { return std::optional<fs::path>(); }, [] { return std::optional<fs::path>(); },
               [] { return false; }, [] { return false; }, [] { return std::optional<bool>(); }};
    m.gpu_recorder.clear();
    const grading_facts nothing = observe_grading_needs(&m, lookups);
    const auto needs = [&](const std::vector<listed_test>& tests, bool gpus_here, bool no_sandbox) {
        std::vector<grading_need> out;
        for (const auto& c : missing_for_batch(nothing, tests, gpus_here, no_sandbox)) out.push_back(c.need);
        return out;
    };
    using n = grading_need;
    // Host tests only: the launcher alone (the sandbox is batch_sandbox's, checked first).
    EXPECT_EQ(needs({test_of(false, false, false, false)}, true, false), std::vector<n>{n::threads_only});
    EXPECT_EQ(needs({test_of(false, false, false, false)}, true, true), std::vector<n>{});
    // A GPU test: compute-sanitizer explains it, where a GPU runs it.
    EXPECT_EQ(needs({test_of(true, false, false, false)}, true, true), std::vector<n>{n::compute_sanitizer});
    EXPECT_EQ(needs({test_of(true, false, false, false)}, false, true), std::vector<n>{});
    // A speed test the judge times by replay: libelf and the recorder; ncu explains it.
    EXPECT_EQ(needs({test_of(true, true, true, true)}, true, true),
              (std::vector<n>{n::compute_sanitizer, n::ncu, n::libelf, n::gpu_recorder}));
    EXPECT_EQ(needs({test_of(true, true, true, true)}, false, true), (std::vector<n>{n::libelf, n::gpu_recorder}));
    // Timed from the record (lesson05's overlap, replayed where the device code
    // can be read and from the record where not): the recorder, not libelf.
    EXPECT_EQ(needs({test_of(true, true, false, false)}, false, true), std::vector<n>{n::gpu_recorder});
}

TEST_F(GradingNeeds, TheRefusalNamesEachMissingNeedAndItsFix) {
    const std::string text = grading_refusal({{grading_need::libelf, false, "built without libelf", "apt-get install libelf-dev"},
                                              {grading_need::ncu, false, "ncu not found", "install it"}});
    EXPECT_NE(text.find("nothing was graded"), std::string::npos) << text;
    EXPECT_NE(text.find("- libelf: built without libelf.\n    fix: apt-get install libelf-dev"), std::string::npos)
        << text;
    EXPECT_NE(text.find("- ncu (Nsight Compute): ncu not found."), std::string::npos) << text;
    EXPECT_NE(text.find("grader doctor --grading"), std::string::npos) << text;
    EXPECT_EQ(grading_refusal({}), "");
}

}  // namespace
}  // namespace grader
