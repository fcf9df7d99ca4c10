#include "cli/bench_results.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <regex>
#include <stdexcept>

#include <fmt/format.h>

namespace grader {

namespace {

std::vector<std::string> split(const std::string& text, char sep) {
    std::vector<std::string> parts;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= text.size(); ++i) {
        if (i == text.size() || text[i] == sep) {
            parts.push_back(text.substr(start, i - start));
            start = i + 1;
        }
    }
    return parts;
}

// Google Benchmark's additions to a name, which say how it ran, not what.
bool is_run_option(const std::string& segment) {
    static const char* const whole[] = {"manual_time", "real_time", "process_time"};
    for (const char* w : whole)
        if (segment == w) return true;
    static const char* const keyed[] = {"repeats:", "min_time:", "min_warmup_time:", "iterations:"};
    for (const char* k : keyed)
        if (segment.rfind(k, 0) == 0) return true;
    return false;
}

std::optional<double> param(const benchmark_name& b, const char* key) {
    if (auto it = b.params.find(key); it != b.params.end()) return it->second;
    return std::nullopt;
}

double median_of(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

double to_microseconds(double value, const std::string& unit) {
    if (unit == "ns") return value / 1e3;
    if (unit == "ms") return value * 1e3;
    if (unit == "s") return value * 1e6;
    return value;  // "us"
}

// Keys every Google Benchmark run has; anything else numeric is a user counter.
bool is_standard_key(const std::string& key) {
    static const std::set<std::string> standard = {
        "name", "family_index", "per_family_instance_index", "run_name", "run_type", "repetitions",
        "repetition_index", "threads", "iterations", "real_time", "cpu_time", "time_unit", "aggregate_name",
        "aggregate_unit", "error_occurred", "error_message", "label", "skipped"};
    return standard.count(key) > 0;
}

}  // namespace

benchmark_name parse_benchmark_name(const std::string& name) {
    benchmark_name result;
    std::vector<std::string> family;
    int unnamed = 0;
    for (const std::string& segment : split(name, '/')) {
        if (segment.empty() || is_run_option(segment)) continue;
        const auto colon = segment.find(':');
        if (colon != std::string::npos) {
            try {
                result.params[segment.substr(0, colon)] = std::stod(segment.substr(colon + 1));
                continue;
            } catch (const std::exception&) {
                // not a number: part of the family's name
            }
        } else if (!family.empty() && std::regex_match(segment, std::regex(R"(-?[0-9]+(\.[0-9]+)?)"))) {
            result.params[fmt::format("arg{}", unnamed++)] = std::stod(segment);  // an Arg without a name
            continue;
        }
        family.push_back(segment);
    }
    if (!family.empty() && family.front().rfind("BM_", 0) == 0) family.front().erase(0, 3);
    result.family = fmt::format("{}", fmt::join(family, "/"));
    return result;
}

double parse_size(const std::string& text) {
    static const std::regex power(R"(\s*([0-9]+)\s*\^\s*([0-9]+)\s*)");
    static const std::regex plain(R"(\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*(Ki|Mi|Gi|K|k|M|G)?\s*)");
    std::smatch m;
    if (std::regex_match(text, m, power)) return std::pow(std::stod(m[1]), std::stod(m[2]));
    if (std::regex_match(text, m, plain)) {
        double value = std::stod(m[1]);
        const std::string suffix = m[2];
        if (suffix == "Ki") value *= 1024.0;
        if (suffix == "Mi") value *= 1024.0 * 1024.0;
        if (suffix == "Gi") value *= 1024.0 * 1024.0 * 1024.0;
        if (suffix == "K" || suffix == "k") value *= 1e3;
        if (suffix == "M") value *= 1e6;
        if (suffix == "G") value *= 1e9;
        return std::round(value);
    }
    const std::string not_a_size = fmt::format("'{}' is not a size: write it as 100000, 1e5, 2^20, 64Ki or 1M", text);
    throw std::invalid_argument(not_a_size);
}

std::optional<double> size_of(const benchmark_name& b) {
    for (const char* key : {"n", "bytes", "size"})
        if (auto v = param(b, key)) return v;
    if (auto rows = param(b, "rows"), cols = param(b, "cols"); rows && cols) return *rows * *cols;
    return std::nullopt;
}

std::optional<double> block_size_of(const benchmark_name& b) {
    for (const char* key : {"threads", "block", "block_size"})
        if (auto v = param(b, key)) return v;
    if (auto bx = param(b, "bx"), by = param(b, "by"); bx && by) return *bx * *by;
    return std::nullopt;
}

std::vector<std::string> select_benchmarks(const std::vector<std::string>& names, const std::set<double>& sizes,
                                           const std::set<double>& block_sizes) {
    std::vector<std::string> chosen;
    for (const auto& name : names) {
        const benchmark_name b = parse_benchmark_name(name);
        const auto size = size_of(b);
        const auto block = block_size_of(b);
        if (!sizes.empty() && size && !sizes.count(*size)) continue;
        if (!block_sizes.empty() && block && !block_sizes.count(*block)) continue;
        chosen.push_back(name);
    }
    return chosen;
}

bool is_baseline(const std::string& name, const std::vector<std::string>& baselines) {
    return std::any_of(baselines.begin(), baselines.end(), [&](const std::string& prefix) {
        return name == prefix || name.rfind(prefix + "/", 0) == 0;
    });
}

bool is_withheld(const std::string& name, const lesson_info& lesson) { return is_baseline(name, lesson.withheld); }

bench_program bench_program_for(const lesson_info& lesson, const std::string& impl, bool student_edition) {
    auto has_program = [&](const char* variant) {
        const variant_info* v = lesson.variant(variant);
        return v && !v->bench_target.empty();
    };
    if (impl == "solution" && student_edition)
        return {"", fmt::format("--impl solution: the student edition has no reference solution (it is the "
                                "instructor's); `grader bench {} --impl exercise,baseline` times yours beside the "
                                "baselines",
                                lesson.id)};
    const char* variant = impl == "exercise"                              ? "exercise"
                          : impl == "solution" || has_program("solution") ? "solution"
                                                                          : "exercise";
    if (!has_program(variant))
        return {"", fmt::format("{} has no {} benchmark program in this build: the lesson declares no BENCH, or the "
                                "build was configured with -DCOURSE_BUILD_BENCHMARKS=OFF",
                                lesson.id, variant)};
    return {variant, ""};
}

std::string filter_for(const std::vector<std::string>& names) {
    static const std::regex special(R"([.^$|()\[\]{}*+?\\])");
    std::vector<std::string> escaped;
    for (const auto& name : names) escaped.push_back(std::regex_replace(name, special, R"(\$&)"));
    return fmt::format("^({})$", fmt::join(escaped, "|"));
}

nlohmann::json read_google_benchmark_json(const std::string& text) {
    // Only in a value's place (after a colon, before a comma or brace), so a
    // name that holds "nan" in its quotes is left alone.
    static const std::regex not_a_number(R"((:\s*)-?(?:nan|NaN|NAN|inf|Inf|INF|infinity|Infinity)(\s*[,}\]]))");
    return nlohmann::json::parse(std::regex_replace(text, not_a_number, "$1null$2"));
}

parsed_run parse_google_benchmark(const nlohmann::json& output, const std::string& impl) {
    parsed_run run;
    run.context = output.value("context", nlohmann::json::object());

    // Repetitions of one benchmark share its run_name; keep the order of first appearance.
    std::vector<std::string> order;
    std::map<std::string, std::vector<nlohmann::json>> repetitions;
    std::set<std::string> failed;
    for (const auto& b : output.value("benchmarks", nlohmann::json::array())) {
        if (b.value("run_type", "iteration") != "iteration") continue;  // we compute our own aggregates
        const std::string name = b.value("run_name", b.value("name", ""));
        if (b.value("error_occurred", false)) {
            if (failed.insert(name).second)
                run.errors.push_back({{"impl", impl}, {"name", name}, {"message", b.value("error_message", "")}});
            continue;
        }
        if (!repetitions.count(name)) order.push_back(name);
        repetitions[name].push_back(b);
    }

    for (const auto& name : order) {
        const auto& reps = repetitions[name];
        std::vector<double> times;
        std::map<std::string, std::vector<double>> counters;
        for (const auto& r : reps) {
            times.push_back(to_microseconds(r.value("real_time", 0.0), r.value("time_unit", "ns")));
            for (const auto& [key, value] : r.items())
                if (value.is_number() && !is_standard_key(key)) counters[key].push_back(value.get<double>());
        }
        const double mean = std::accumulate(times.begin(), times.end(), 0.0) / static_cast<double>(times.size());
        double variance = 0;
        for (double t : times) variance += (t - mean) * (t - mean);
        const double stddev = times.size() > 1 ? std::sqrt(variance / static_cast<double>(times.size() - 1)) : 0.0;

        const benchmark_name parsed = parse_benchmark_name(name);
        nlohmann::json result = {
            {"impl", impl},
            {"name", name},
            {"family", parsed.family},
            {"params", parsed.params},
            {"repetitions", times.size()},
            {"time_us",
             {{"median", median_of(times)},
              {"mean", mean},
              {"min", *std::min_element(times.begin(), times.end())},
              {"max", *std::max_element(times.begin(), times.end())},
              {"stddev", stddev},
              {"samples", times}}},
            {"counters", nlohmann::json::object()}};
        for (const auto& [key, values] : counters) result["counters"][key] = median_of(values);
        if (auto size = size_of(parsed)) result["size"] = *size;
        if (auto block = block_size_of(parsed)) result["block_size"] = *block;
        run.results.push_back(std::move(result));
    }
    return run;
}

}  // namespace grader
