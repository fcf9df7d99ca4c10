// grader watch [LESSON]: the student's loop in one terminal. Every save of
// the exercise rebuilds and regrades it and redraws the report; keys ask for
// the next hint (h), the next lesson (n), a regrade (r) or the end (q).
#include <fmt/format.h>
#include <unistd.h>

#include <iostream>
#include <memory>
#include <random>
#include <thread>

#include "checkout/build.hpp"
#include "checkout/context.hpp"
#include "checkout/progress.hpp"
#include "cli/attempt.hpp"
#include "cli/commands.hpp"
#include "cli/file_watch.hpp"
#include "cli/terminal.hpp"
#include "cli/watch_keys.hpp"
#include "report/formats.hpp"
#include "run/grade.hpp"

namespace grader {

namespace {
constexpr std::chrono::milliseconds poll_interval{400};

// Where to start: the first lesson not yet done, so that `grader watch`
// alone picks up where the student left off.
std::size_t first_unfinished(const manifest& m) {
    progress_store progress(m.build_dir / "grader-progress.json");
    if (!progress.warning().empty()) std::cerr << "grader: " << progress.warning() << "\n";
    for (std::size_t i = 0; i < m.lessons.size(); ++i) {
        const lesson_progress* p = progress.get(m.lessons[i].id);
        if (!p || p->best < p->max) return i;
    }
    return 0;
}

std::string relative_to_course(const manifest& m, const fs::path& file) {
    const fs::path rel = file.lexically_relative(m.source_dir);
    return rel.empty() || *rel.begin() == ".." ? file.string() : rel.string();
}

class watcher {
public:
    watcher(const common_args& common, const watch_args& args, manifest m, std::size_t lesson)
        : common_(common), args_(args), m_(std::move(m)), index_(lesson), color_(wants_color(STDOUT_FILENO)) {}

    int run();

private:
    const lesson_info& lesson() const { return m_.lessons[index_]; }
    std::vector<fs::path> exercise_files() const;
    void start_lesson();
    void grade(const std::vector<fs::path>& changed = {});
    void show_report(const lesson_report& report);
    void legend();
    bool handle(watch_command command);  // false: quit

    const common_args& common_;
    const watch_args& args_;
    const manifest m_;
    std::size_t index_;
    bool color_;
    bool single_keys_ = false;
    std::unique_ptr<change_detector> detector_;
};

std::vector<fs::path> watcher::exercise_files() const {
    std::vector<fs::path> files;
    const variant_info* exercise = lesson().variant("exercise");
    if (exercise)
        for (const auto& source : lesson().sources) files.push_back(exercise->source_dir / source);
    return files;
}

void watcher::start_lesson() {
    if (!args_.manual) detector_ = std::make_unique<change_detector>(exercise_files());
    grade();
}

// One round: clear the screen, build, grade, show the report and the keys.
void watcher::grade(const std::vector<fs::path>& changed) {
    std::cout << std::flush;
    clear_screen_if_terminal(STDOUT_FILENO);
    for (const auto& file : changed) std::cout << relative_to_course(m_, file) << " changed.\n";
    try {
        const variant_info* exercise = lesson().variant("exercise");
        if (!exercise) throw user_error(usage_error, fmt::format("{} has no exercise to grade", lesson().id));
        std::cout << fmt::format("building {} (exercise)...\n", lesson().id) << std::flush;
        const build_result built = build_targets(m_, targets_for_grading(lesson(), "exercise"));
        if (!built.ok) {
            // The student fixes it and saves again: the digest is all they need.
            std::cout << compile_failure_text(lesson(), built);
        } else {
            grade_options options;
            options.seed = args_.seed.value_or(std::random_device{}() % 100000);
            options.per_test_limit = std::chrono::seconds(args_.timeout_s);
            show_report(grade_variant(m_, lesson(), "exercise", options));
        }
    } catch (const std::exception& e) {  // e.g. the test program is missing: say so, keep watching
        std::cout << "grader: " << e.what() << "\n";
    }
    legend();
}

void watcher::show_report(const lesson_report& report) {
    std::string text = format_text(report, {color_, true, false, terminal_width(STDOUT_FILENO)});
    while (text.size() > 1 && text.ends_with("\n\n")) text.pop_back();  // the legend brings its own blank line
    std::cout << "\n" << text;
    remember_score(m_, report, std::cerr);
    if (!report.graded() || report.score() != report.max_score()) return;
    const std::string done = fmt::format("  {} is done: full marks.", lesson().id);
    std::cout << (color_ ? "\x1b[1;32m" + done + "\x1b[0m" : done);
    if (index_ + 1 < m_.lessons.size())
        std::cout << fmt::format(" Press n to go on to {} ({}).\n", m_.lessons[index_ + 1].id, m_.lessons[index_ + 1].title);
    else
        std::cout << " That was the last lesson: the course is done.\n";
}

void watcher::legend() {
    std::string keys;
    if (single_keys_)
        keys = args_.manual ? "Enter or r regrade · h hint · n next lesson · q quit"
                            : "h hint · n next lesson · r regrade · q quit";
    else
        keys = "type h (hint), n (next lesson), q (quit) or nothing (regrade), then Enter";
    std::string watching = "--manual, no file watching";
    if (!args_.manual) {
        std::vector<std::string> names;
        for (const auto& file : exercise_files()) names.push_back(relative_to_course(m_, file));
        watching = fmt::format("watching {}", fmt::join(names, ", "));
    }
    const std::string line = fmt::format("\n  {} · {}\n", watching, keys);
    std::cout << (color_ ? "\x1b[2m" + line + "\x1b[0m" : line) << std::flush;
}

bool watcher::handle(watch_command command) {
    switch (command) {
        case watch_command::quit:
            return false;
        case watch_command::regrade:
            if (detector_) detector_->rebase();  // this regrade covers any edit saved so far
            grade();
            return true;
        case watch_command::next:
            if (index_ + 1 == m_.lessons.size()) {
                std::cout << fmt::format("{} is the last lesson.\n", lesson().id) << std::flush;
                return true;
            }
            ++index_;
            start_lesson();
            return true;
        case watch_command::hint:
            // The same hint, in the same order, as `grader hint` gives, and
            // recorded as seen the same way.
            std::cout << "\n";
            cmd_hint(common_, lesson().id, false, single_keys_ ? "press h again" : "type h and Enter again");
            std::cout << std::flush;
            return true;
    }
    return true;
}

int watcher::run() {
    raw_keys keys(STDIN_FILENO);  // gives the terminal back however we leave
    single_keys_ = keys.active();
    watch_input input(single_keys_);
    bool input_open = true;
    start_lesson();
    for (;;) {
        if (input_open) {
            const auto bytes = read_input(STDIN_FILENO, args_.manual ? std::chrono::milliseconds(-1) : poll_interval);
            if (!bytes) {
                input_open = false;
                if (args_.manual) break;  // nothing can ask for a regrade any more
                std::cout << "(input ended: keys are off; still watching, Ctrl-C stops)\n" << std::flush;
            } else {
                int not_understood = 0;
                bool regraded = false;
                for (const watch_command command : input.feed(*bytes, not_understood)) {
                    if (command == watch_command::regrade && regraded) continue;  // "rrr" is one regrade
                    regraded = regraded || command == watch_command::regrade || command == watch_command::next;
                    if (!handle(command)) {
                        std::cout << fmt::format("stopped watching {}.\n", lesson().id);
                        return all_passed;
                    }
                }
            }
        } else {
            std::this_thread::sleep_for(poll_interval);
        }
        if (detector_) {
            if (const auto changed = detector_->poll(change_detector::clock::now()); !changed.empty()) grade(changed);
        }
    }
    std::cout << fmt::format("stopped watching {}.\n", lesson().id);
    return all_passed;
}
}  // namespace

int cmd_watch(const common_args& common, const watch_args& args) {
    manifest m = open_build(common.build_dir);
    if (m.lessons.empty()) throw user_error(build_error, "this build has no lessons to watch");
    std::size_t index = 0;
    if (args.lesson.empty()) {
        index = first_unfinished(m);
    } else {
        const lesson_info& chosen = find_lesson(m, args.lesson);
        index = static_cast<std::size_t>(&chosen - m.lessons.data());
    }
    return watcher(common, args, std::move(m), index).run();
}

}  // namespace grader
