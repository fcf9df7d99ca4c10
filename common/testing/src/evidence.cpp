#include "course/testing/evidence.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <thread>

#include <unistd.h>

namespace course::testing {

namespace {

// Evidence file: one record per observation, in the order the test made
// them: u32 name length, the name, u64 value length, the value's bytes.
// Native byte order: the recorder and the judge run on the same machine.
// The judge reads at most this much of one test's evidence; more is refused.
constexpr std::uint64_t max_evidence_bytes = std::uint64_t{2} << 30;
constexpr std::uint32_t max_name_bytes = 256;

// Said by the judge where the student's program claimed a pass that its own
// recorded results do not support. grader verify's cheat bank looks for it.
constexpr const char* forged = "the pass was reported by the code under test, not shown by its results";

struct record {
    std::string what;
    std::string bytes;
};

struct evidence_state {
    evidence_mode mode = evidence_mode::off;
    std::string dir;
    std::string claims_dir;  // the judge: the grader's word on each test
    long long wait_ms = 0;
    pid_t parent = 0;  // the grader (or the tool it runs this program under), as it was at the start
    std::string test;
    bool judged = true;      // the judge: this test was claimed as a pass
    bool claim_pending = false;  // the judge: the claim is yet to be read (take_claim)
    bool skip_noted = false;     // the judge: "nothing to judge" already said
    // The judge: the student's program has claimed something other than a
    // pass in this run. From then on the judge waits for each claim first:
    // working ahead of a program that fails (a skeleton) is work thrown away.
    bool a_claim_was_no_pass = false;
    bool left_to_judge = false;  // recording: the test did not decide its verdict
    std::FILE* events = nullptr;  // the harness's event line to the grader
    // Recording: the open file of the test in progress.
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> out{nullptr, &std::fclose};
    // Judging: the test's recorded observations, and how many were used.
    std::vector<record> recorded;
    std::string unreadable;  // why the file could not be used, if it could not
    std::size_t used = 0;
    bool ran_out = false;
};

evidence_state& state() {
    static evidence_state s;
    return s;
}

template <class T>
bool read_exact(std::istream& in, T& value) {
    return static_cast<bool>(in.read(reinterpret_cast<char*>(&value), sizeof value));
}

// Reads a test's evidence as untrusted input: bounded names and sizes, and
// nothing past the end of the file.
std::string read_records(const std::string& path, std::vector<record>& records) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return "no evidence was recorded for this test";
    in.seekg(0, std::ios::end);
    const auto size = static_cast<std::uint64_t>(in.tellg());
    in.seekg(0);
    if (size > max_evidence_bytes) return "the recorded evidence is larger than any test produces";
    std::uint64_t left = size;
    while (left > 0) {
        std::uint32_t name_size = 0;
        std::uint64_t value_size = 0;
        record r;
        if (left < sizeof name_size || !read_exact(in, name_size) || name_size > max_name_bytes ||
            left - sizeof name_size < name_size)
            return "the recorded evidence is damaged";
        left -= sizeof name_size;
        r.what.resize(name_size);
        in.read(r.what.data(), name_size);
        left -= name_size;
        if (left < sizeof value_size || !read_exact(in, value_size) || left - sizeof value_size < value_size)
            return "the recorded evidence is damaged";
        left -= sizeof value_size;
        r.bytes.resize(value_size);
        in.read(r.bytes.data(), static_cast<std::streamsize>(value_size));
        left -= value_size;
        if (!in) return "the recorded evidence is damaged";
        records.push_back(std::move(r));
    }
    return {};
}

void write_record(std::FILE* out, std::string_view what, std::string_view bytes) {
    const auto name_size = static_cast<std::uint32_t>(what.size());
    const auto value_size = static_cast<std::uint64_t>(bytes.size());
    std::fwrite(&name_size, sizeof name_size, 1, out);
    std::fwrite(what.data(), 1, what.size(), out);
    std::fwrite(&value_size, sizeof value_size, 1, out);
    std::fwrite(bytes.data(), 1, bytes.size(), out);
}

}  // namespace

evidence_mode current_evidence_mode() { return state().mode; }

void start_evidence(evidence_mode mode, const std::string& dir, const std::string& claims_dir, long long wait_ms) {
    state().mode = dir.empty() ? evidence_mode::off : mode;
    state().dir = dir;
    state().claims_dir = claims_dir;
    state().wait_ms = wait_ms;
    state().parent = getppid();
}

namespace {
// Waits until `file` exists, the wait limit passes or the parent is gone;
// its first word. The grader ends a wait that runs too long itself (its
// limits on each test): a word may come late for good reasons (in a batch,
// a timed test waits for the GPU alone behind other runs), so the limit the
// grader gives is long, and a program whose grader died stops waiting at once.
// `without_pause`: looks again at once (a clock the grader starts as it
// writes the word is running), minding the limit and the parent only now
// and then, and returns the word's whole first line ("go 2000").
std::string wait_for_word(const std::filesystem::path& file, long long wait_ms, bool without_pause = false) {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::milliseconds(wait_ms);
    const pid_t parent = state().parent;
    std::error_code ec;
    for (long looks = 0; !std::filesystem::exists(file, ec); ++looks) {
        if ((!without_pause || looks % 4096 == 0) &&
            (std::chrono::steady_clock::now() >= give_up || getppid() != parent))
            break;
        if (without_pause)
            std::this_thread::yield();
        else
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    std::string word;
    if (without_pause)
        std::getline(std::ifstream(file), word);
    else
        std::ifstream(file) >> word;
    return word;
}

// The judge: reads the grader's word on the test in progress, once. The
// grader writes the claim (atomically) once the student's program has ended
// the test and closed its evidence.
void take_claim(evidence_state& s) {
    if (!s.claim_pending) return;
    s.claim_pending = false;
    const std::filesystem::path claim = std::filesystem::path(s.claims_dir) / (evidence_file_name(s.test) + claim_suffix);
    s.judged = wait_for_word(claim, s.wait_ms) == "passed";
    if (!s.judged) s.a_claim_was_no_pass = true;
    if (s.judged) s.unreadable = read_records(s.dir + "/" + evidence_file_name(s.test), s.recorded);
}

}  // namespace

void set_events_to_grader(std::FILE* events) { state().events = events; }

bool grader_listens() {
    const evidence_state& s = state();
    return s.mode == evidence_mode::record && !s.claims_dir.empty() && s.events;
}

void say_to_grader(const std::string& line) {
    evidence_state& s = state();
    if (!grader_listens()) return;
    std::fwrite(line.data(), 1, line.size(), s.events);
    std::fputc('\n', s.events);
    std::fflush(s.events);
}

std::string say_and_wait_for_graders_word(const std::string& line, std::string_view suffix) {
    evidence_state& s = state();
    if (!grader_listens()) return {};
    const std::filesystem::path file = std::filesystem::path(s.claims_dir) / (evidence_file_name(s.test) + std::string(suffix));
    say_to_grader(line);
    // The grader's clock runs from the word: the time the program takes to
    // see it counts against the program.
    return wait_for_word(file, s.wait_ms, /*without_pause=*/true);
}

bool wait_for_gpu_alone() {
    evidence_state& s = state();
    if (s.mode != evidence_mode::record || s.claims_dir.empty()) return true;
    return wait_for_word(std::filesystem::path(s.claims_dir) / (evidence_file_name(s.test) + gpu_alone_suffix),
                         s.wait_ms) != gpu_alone_stop;
}

bool wait_for_judge_alone() {
    evidence_state& s = state();
    if (s.mode != evidence_mode::judge || s.claims_dir.empty()) return true;
    return wait_for_word(std::filesystem::path(s.claims_dir) / (evidence_file_name(s.test) + judge_alone_suffix),
                         s.wait_ms) == gpu_alone_go;
}

bool phase2_may_start() {
    evidence_state& s = state();
    if (s.mode != evidence_mode::record || s.claims_dir.empty()) return true;
    return wait_for_word(std::filesystem::path(s.claims_dir) / phase2_file, s.wait_ms) == "go";
}

bool judge_this_test(claim_wait when) {
    evidence_state& s = state();
    if (s.mode != evidence_mode::judge || s.claims_dir.empty()) return true;
    s.claim_pending = true;
    if (when == claim_wait::at_first_result && !s.a_claim_was_no_pass) return true;
    take_claim(s);
    return s.judged;
}

void begin_test_evidence(const std::string& test_id) {
    evidence_state& s = state();
    s.test = test_id;
    s.recorded.clear();
    s.unreadable.clear();
    s.used = 0;
    s.ran_out = false;
    s.judged = true;
    s.claim_pending = false;
    s.skip_noted = false;
    s.left_to_judge = false;
    const std::string path = s.dir + "/" + evidence_file_name(test_id);
    if (s.mode == evidence_mode::record) s.out.reset(std::fopen(path.c_str(), "wb"));
    // Without claims, the judge reads the evidence now; with them, once the claim is in.
    if (s.mode == evidence_mode::judge && s.claims_dir.empty()) s.unreadable = read_records(path, s.recorded);
}

std::string end_test_evidence() {
    evidence_state& s = state();
    s.out.reset();
    // A test that checked no result still ends only once its claim is in.
    if (s.mode == evidence_mode::judge) take_claim(s);
    if (s.mode != evidence_mode::judge || !s.judged) return {};
    std::string problem;
    if (!s.unreadable.empty()) problem = s.unreadable;
    else if (s.used == 0) problem = "the test checked no recorded result";
    else if (s.used < s.recorded.size())
        problem = std::to_string(s.recorded.size() - s.used) + " recorded results were never checked";
    s.recorded.clear();
    if (problem.empty() || s.ran_out) return {};  // ran out: observe_bytes already said so
    return problem + ": " + forged;
}

bool verdict_left_to_judge() {
    evidence_state& s = state();
    if (s.mode != evidence_mode::record) return false;
    s.left_to_judge = true;
    return true;
}

bool test_left_verdict_to_judge() { return state().left_to_judge; }

std::string grader_file_for_this_test(std::string_view suffix) {
    const evidence_state& s = state();
    if (s.mode != evidence_mode::judge || s.claims_dir.empty()) return {};
    return (std::filesystem::path(s.claims_dir) / (evidence_file_name(s.test) + std::string(suffix))).string();
}

std::string evidence_file_for_this_test(std::string_view suffix) {
    const evidence_state& s = state();
    if (s.mode == evidence_mode::off) return {};
    return (std::filesystem::path(s.dir) / (evidence_file_name(s.test) + std::string(suffix))).string();
}

void report_wrong_length(std::string_view what, std::size_t recorded, std::size_t expected) {
    ADD_FAILURE() << "the recorded '" << what << "' has " << recorded << " elements where the test read "
                  << expected << ": " << forged;
}

void record_bytes(std::string_view what, std::string_view bytes) {
    evidence_state& s = state();
    if (s.mode != evidence_mode::record || !s.out) return;
    write_record(s.out.get(), what, bytes);
    std::fflush(s.out.get());  // a crash later in the test keeps what was seen
}

std::optional<std::string> recorded_value(std::string_view what, std::size_t element_size, bool exactly_one) {
    evidence_state& s = state();
    if (s.mode != evidence_mode::judge) return std::nullopt;
    // The student's value replaces the reference's, once the grader says the
    // student's program claimed a pass. The test's own work until here ran
    // while the student's program ran the same test.
    take_claim(s);
    if (!s.judged) {
        // Nothing to judge: the grader keeps the student's own failure. The
        // test goes on with the reference's values, and its verdict is unused.
        if (!s.skip_noted) GTEST_MESSAGE_(nothing_to_judge, ::testing::TestPartResult::kSkip);
        s.skip_noted = true;
        return std::nullopt;
    }
    if (!s.unreadable.empty() || s.used >= s.recorded.size()) {
        if (!s.ran_out)
            ADD_FAILURE() << (s.unreadable.empty() ? "no recorded result for '" + std::string(what) + "'"
                                                   : s.unreadable)
                          << ": " << forged;
        s.ran_out = true;
        return std::nullopt;
    }
    record& r = s.recorded[s.used++];
    const bool size_fits = exactly_one ? r.bytes.size() == element_size : r.bytes.size() % element_size == 0;
    if (r.what != what || !size_fits) {
        ADD_FAILURE() << "the recorded results do not follow the test's steps (expected '" << what << "', found '"
                      << r.what << "'): " << forged;
        s.ran_out = true;
        s.used = s.recorded.size();
        return std::nullopt;
    }
    return std::move(r.bytes);
}

std::string observe_bytes(std::string_view what, std::string bytes, std::size_t element_size, bool exactly_one) {
    if (state().mode == evidence_mode::record) record_bytes(what, bytes);
    if (state().mode != evidence_mode::judge) return bytes;
    std::optional<std::string> recorded = recorded_value(what, element_size, exactly_one);
    return recorded ? std::move(*recorded) : std::move(bytes);
}

}  // namespace course::testing
