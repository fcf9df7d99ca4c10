#include "evidence/gpu_timeline.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "course/testing/gpu_overlap.hpp"

namespace grader {

namespace {

using course::testing::gpu_activity;
using course::testing::gpu_lane;
using course::testing::gpu_repetition;

// What a record's file is called, after the test's evidence file.
const std::string record_ending = std::string(".evidence") + course::testing::gpu_record_suffix;

char symbol(gpu_lane lane) {
    switch (lane) {
        case gpu_lane::copy_in: return '>';
        case gpu_lane::kernel: return '#';
        case gpu_lane::copy_out: return '<';
        case gpu_lane::other: return '=';
    }
    return '?';
}

const char* plot_kind(gpu_lane lane) {
    switch (lane) {
        case gpu_lane::copy_in: return "h2d";
        case gpu_lane::kernel: return "kernel";
        case gpu_lane::copy_out: return "d2h";
        case gpu_lane::other: return "other";
    }
    return "other";
}

// The call's streams in the order they first ran something: stream id -> row.
std::map<std::uint32_t, int> stream_rows(const gpu_repetition& call) {
    std::map<std::uint32_t, int> rows;
    for (const gpu_activity& w : call.work)  // by start time
        rows.emplace(w.stream, static_cast<int>(rows.size()));
    return rows;
}

std::uint64_t first_start(const gpu_repetition& call) {
    std::uint64_t first = UINT64_MAX;
    for (const gpu_activity& w : call.work) first = std::min(first, w.start);
    return call.work.empty() ? 0 : first;
}

// One row of the sketch: in each column, the symbol of the work that ran
// for at least a third of the column's time (the longest, when several did).
std::string sketch_row(const std::vector<const gpu_activity*>& work, std::uint64_t origin, double column_ns,
                       int width) {
    std::string row(static_cast<std::size_t>(width), ' ');
    for (int c = 0; c < width; ++c) {
        const double from = origin + c * column_ns, to = from + column_ns;
        std::map<gpu_lane, double> time;
        for (const gpu_activity* w : work) {
            const double overlap = std::min<double>(to, w->end) - std::max<double>(from, w->start);
            if (overlap > 0) time[course::testing::lane_of(*w)] += overlap;
        }
        double most = column_ns / 3;
        for (const auto& [lane, t] : time)
            if (t >= most) {
                most = t;
                row[static_cast<std::size_t>(c)] = symbol(lane);
            }
    }
    return row;
}

std::string ms(std::uint64_t ns) { return fmt::format("{:.2f} ms", static_cast<double>(ns) / 1e6); }

}  // namespace

std::vector<gpu_timeline> read_gpu_timelines(const std::filesystem::path& evidence_dir,
                                             std::vector<std::string>& problems) {
    std::vector<std::filesystem::path> files;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(evidence_dir, ec)) {
        const std::string name = entry.path().filename().string();
        if (name.size() > record_ending.size() && name.ends_with(record_ending)) files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    std::vector<gpu_timeline> timelines;
    for (const auto& file : files) {
        const std::string name = file.filename().string();
        const std::string test = name.substr(0, name.size() - record_ending.size());
        std::string why_not;
        const auto record = course::testing::read_gpu_record(file.string(), why_not);
        if (!record) {
            problems.push_back(fmt::format("{}: its GPU record cannot be read: {}", test, why_not));
            continue;
        }
        if (record->repetitions.empty()) {
            problems.push_back(fmt::format("{}: its GPU record holds no timed call", test));
            continue;
        }
        std::vector<const gpu_repetition*> calls;
        for (const auto& r : record->repetitions) calls.push_back(&r);
        std::stable_sort(calls.begin(), calls.end(), [](auto* a, auto* b) { return a->span() < b->span(); });
        const gpu_repetition& median = *calls[calls.size() / 2];
        timelines.push_back({test, median.index + 1, static_cast<int>(calls.size()), median});
    }
    return timelines;
}

std::string timeline_sketch(const gpu_timeline& t, int width) {
    const gpu_repetition& call = t.median;
    std::string out = fmt::format("{}, call {} of {} (the median): {} on the GPU\n", t.test, t.call, t.calls,
                                  ms(call.span()));
    if (call.work.empty()) return out + "  the GPU ran nothing during this call\n";

    constexpr int max_streams = 16;
    const std::uint64_t origin = first_start(call);
    const double column_ns = std::max(1.0, static_cast<double>(call.span()) / width);
    const auto rows = stream_rows(call);
    std::vector<std::vector<const gpu_activity*>> by_row(rows.size());
    std::map<gpu_lane, std::vector<const gpu_activity*>> by_lane;
    for (const gpu_activity& w : call.work) {
        by_row[static_cast<std::size_t>(rows.at(w.stream))].push_back(&w);
        by_lane[course::testing::lane_of(w)].push_back(&w);
    }

    const std::string end_label = ms(call.span());
    out += fmt::format("  {:<11} 0 ms{:>{}}\n", "", end_label, width - 2);
    for (std::size_t r = 0; r < by_row.size() && r < max_streams; ++r)
        out += fmt::format("  {:<11}|{}|\n", fmt::format("stream {}", r),
                           sketch_row(by_row[r], origin, column_ns, width));
    if (by_row.size() > max_streams) out += fmt::format("  ... and {} more streams\n", by_row.size() - max_streams);
    const std::pair<gpu_lane, const char*> lanes[] = {
        {gpu_lane::copy_in, "copies in"}, {gpu_lane::kernel, "kernels"}, {gpu_lane::copy_out, "copies out"}};
    for (const auto& [lane, label] : lanes)
        out += fmt::format("  {:<11}|{}|\n", label, sketch_row(by_lane[lane], origin, column_ns, width));

    const auto o = course::testing::analyse_overlap(call);
    out += "  > copy in (host to device)   # kernel   < copy out (device to host)   = other GPU work\n";
    out += fmt::format("  busy: copies in {}, kernels {}, copies out {} ({} one after another); overlap {:.2f}x\n",
                       ms(o.copy_in), ms(o.kernels), ms(o.copy_out), ms(o.copy_in + o.kernels + o.copy_out),
                       o.factor());
    return out;
}

nlohmann::json timeline_plot_document(const std::vector<gpu_timeline>& timelines, const std::string& lesson_id,
                                      const std::string& lesson_title, const std::string& device) {
    nlohmann::json runs = nlohmann::json::array();
    std::uint64_t bytes_in = 0;
    for (const gpu_timeline& t : timelines) {
        const gpu_repetition& call = t.median;
        const std::uint64_t origin = first_start(call);
        const auto rows = stream_rows(call);
        nlohmann::json entries = nlohmann::json::array();
        for (const gpu_activity& w : call.work)
            entries.push_back({{"stream", rows.at(w.stream)},
                               {"kind", plot_kind(course::testing::lane_of(w))},
                               {"start_ms", static_cast<double>(w.start - origin) / 1e6},
                               {"end_ms", static_cast<double>(w.end - origin) / 1e6}});
        const auto o = course::testing::analyse_overlap(call);
        bytes_in = std::max(bytes_in, o.bytes_in);
        runs.push_back({{"name", fmt::format("{}, call {} of {}", t.test, t.call, t.calls)},
                        {"streams", rows.size()},
                        {"total_ms", static_cast<double>(call.span()) / 1e6},
                        {"overlap", o.factor()},
                        {"entries", entries}});
    }
    return {{"schema", "course-timeline/1"},
            {"lesson", {{"id", lesson_id}, {"title", lesson_title}}},
            {"context", {{"device", device}}},
            {"timelines",
             {{"your code",
               {{"bytes_each_way", bytes_in}, {"clock", "CUPTI's activity record"}, {"runs", runs}}}}}};
}

}  // namespace grader
