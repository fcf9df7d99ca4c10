#include "course/testing/gpu_record.hpp"

#include <cxxabi.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <sstream>

namespace course::testing {

namespace {

using nlohmann::json;

// Far above what any timed test records (a few hundred lines), far below
// what would make the judge slow: a larger record is not the recorder's.
constexpr std::size_t max_record_bytes = std::size_t{64} << 20;
constexpr std::size_t max_lines = 1'000'000;
constexpr std::size_t max_name_bytes = 4096;
constexpr int max_repetitions = 10'000;
constexpr std::size_t max_argument_bytes = 32 * 1024;  // CUDA's limit on a kernel's parameters
constexpr std::size_t max_copied_bytes = 64 * 1024;    // the recorder keeps HtoD copies up to this size

struct mark_pair {
    std::optional<std::uint64_t> begin, end;
};

template <class T>
bool read_number(const json& line, const char* key, T& out) {
    const auto it = line.find(key);
    if (it == line.end() || !it->is_number_unsigned()) return false;
    const auto value = it->get<std::uint64_t>();
    if (value > static_cast<std::uint64_t>(std::numeric_limits<T>::max())) return false;
    out = static_cast<T>(value);
    return true;
}

bool read_text(const json& line, const char* key, std::string& out) {
    const auto it = line.find(key);
    if (it == line.end() || !it->is_string()) return false;
    out = it->get<std::string>();
    return out.size() <= max_name_bytes;
}

// The fields every piece of GPU work has.
// Hex digits to bytes; false on anything else, or on more than `most` bytes.
bool read_hex(const json& line, const char* key, std::vector<std::uint8_t>& out, std::size_t most) {
    const auto it = line.find(key);
    if (it == line.end() || !it->is_string()) return false;
    const std::string& text = it->get_ref<const std::string&>();
    if (text.size() % 2 != 0 || text.size() / 2 > most) return false;
    auto digit = [](char c) -> int {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        return -1;
    };
    out.resize(text.size() / 2);
    for (std::size_t i = 0; i < out.size(); ++i) {
        const int high = digit(text[2 * i]), low = digit(text[2 * i + 1]);
        if (high < 0 || low < 0) return false;
        out[i] = static_cast<std::uint8_t>(high * 16 + low);
    }
    return true;
}

// [value, base, size]
bool read_address(const json& value, recorded_address& out) {
    if (!value.is_array() || value.size() != 3) return false;
    for (const auto& n : value)
        if (!n.is_number_unsigned()) return false;
    out = {value[0].get<std::uint64_t>(), value[1].get<std::uint64_t>(), value[2].get<std::uint64_t>()};
    return true;
}

bool read_triple(const json& line, const char* key, std::uint32_t (&out)[3]) {
    const auto it = line.find(key);
    if (it == line.end() || !it->is_array() || it->size() != 3) return false;
    for (std::size_t i = 0; i < 3; ++i) {
        if (!(*it)[i].is_number_unsigned() || (*it)[i].get<std::uint64_t>() > 0xFFFFFFFFu || (*it)[i] == 0)
            return false;
        out[i] = (*it)[i].get<std::uint32_t>();
    }
    return true;
}

// An optional number: absent is fine, present must be one.
template <class T>
bool read_optional(const json& line, const char* key, std::optional<T>& out) {
    if (!line.contains(key)) return true;
    T value{};
    if (!read_number(line, key, value)) return false;
    out = value;
    return true;
}

// A "kept" line: memory as the call found it.
bool read_kept(const json& line, kept_memory& kept) {
    const auto at = line.find("at");
    recorded_address where;
    if (at == line.end() || !read_address(*at, where) || where.value != where.base || where.size == 0) return false;
    kept.base = where.base;
    kept.size = where.size;
    if (!line.contains("data")) return true;
    return read_hex(line, "data", kept.data, kept_memory_bytes) && kept.data.size() == kept.size;
}

// "stream": [handle, flags]; absent in a line that has none (a host wait
// on an event or the device), which then reads as the legacy default stream.
bool read_stream(const json& line, recorded_stream& out) {
    const auto it = line.find("stream");
    if (it == line.end()) return true;
    if (!it->is_array() || it->size() != 2 || !(*it)[0].is_number_unsigned() || !(*it)[1].is_number_unsigned() ||
        (*it)[1].get<std::uint64_t>() > 0xFFFFFFFFu)
        return false;
    out = {(*it)[0].get<std::uint64_t>(), (*it)[1].get<std::uint32_t>()};
    return true;
}

// The ops that order work between streams (recorded_op's last three kinds).
bool read_order_op(const std::string& kind, const json& line, recorded_op& op) {
    if (kind == "event_record" || kind == "stream_wait") {
        op.what = kind == "event_record" ? recorded_op::kind::event_record : recorded_op::kind::stream_wait;
        return line.contains("stream") && read_number(line, "event", op.event) && op.event != 0;
    }
    op.what = recorded_op::kind::host_wait;
    std::string on;
    if (!read_text(line, "on", on)) return false;
    if (on == "stream") {
        op.waits_for = recorded_op::wait_on::stream;
        return line.contains("stream");
    }
    if (on == "event") {
        op.waits_for = recorded_op::wait_on::event;
        return read_number(line, "event", op.event);
    }
    op.waits_for = recorded_op::wait_on::device;
    return on == "device";
}

// One "op" line; `why` is set (and true returned) for an unreplayable one.
bool read_op(const json& line, recorded_op& op, std::string& why) {
    std::string kind;
    if (!read_text(line, "op", kind)) return false;
    if (kind == "unreplayable") return read_text(line, "why", why) && !why.empty();
    if (!read_stream(line, op.stream)) return false;
    if (kind == "event_record" || kind == "stream_wait" || kind == "host_wait") return read_order_op(kind, line, op);
    if (kind == "launch") {
        op.what = recorded_op::kind::launch;
        const auto pointers = line.find("pointers");
        if (!read_text(line, "kernel", op.kernel) || !read_triple(line, "grid", op.grid) ||
            !read_triple(line, "block", op.block) || !read_number(line, "shared", op.shared_bytes) ||
            !read_hex(line, "args", op.args, max_argument_bytes) || pointers == line.end() || !pointers->is_array() ||
            !read_optional(line, "max_dynamic_shared", op.max_dynamic_shared_bytes) ||
            !read_optional(line, "carveout", op.shared_carveout_percent))
            return false;
        for (const auto& p : *pointers) {
            recorded_address where;
            if (!p.is_array() || p.size() != 4 || !p[0].is_number_unsigned() ||
                !read_address(json::array({p[1], p[2], p[3]}), where))
                return false;
            const auto at = p[0].get<std::uint64_t>();
            if (at % 8 != 0 || at + 8 > op.args.size()) return false;
            op.pointers.emplace_back(static_cast<std::size_t>(at), where);
        }
        return true;
    }
    if (kind == "memset") {
        op.what = recorded_op::kind::memset;
        const auto to = line.find("to");
        return to != line.end() && read_address(*to, op.to) && read_number(line, "byte", op.byte) &&
               read_number(line, "bytes", op.bytes);
    }
    if (kind == "copy") {
        op.what = recorded_op::kind::copy;
        const auto to = line.find("to"), from = line.find("from");
        if (to == line.end() || from == line.end() || !read_address(*to, op.to) || !read_address(*from, op.from) ||
            !read_number(line, "bytes", op.bytes) || !read_text(line, "direction", op.direction))
            return false;
        if (op.direction == "HtoD")
            return !line.contains("data") ||
                   (read_hex(line, "data", op.data, max_copied_bytes) && op.data.size() == op.bytes);
        return op.direction == "DtoH" || op.direction == "DtoD" || op.direction == "HtoH";
    }
    return false;
}

bool read_work(const json& line, gpu_activity& a) {
    return read_number(line, "start", a.start) && read_number(line, "end", a.end) &&
           read_number(line, "stream", a.stream) && read_number(line, "context", a.context) &&
           read_number(line, "corr", a.correlation);
}

}  // namespace

int gpu_repetition::kernels() const {
    return static_cast<int>(std::count_if(work.begin(), work.end(),
                                          [](const gpu_activity& a) { return a.what == gpu_activity::kind::kernel; }));
}

std::uint64_t gpu_repetition::span() const {
    if (work.empty()) return 0;
    std::uint64_t first = work.front().start, last = work.front().end;
    for (const auto& a : work) {
        first = std::min(first, a.start);
        last = std::max(last, a.end);
    }
    return last > first ? last - first : 0;
}

std::optional<gpu_record> parse_gpu_record(std::string_view text, std::string& why_not) {
    auto refuse = [&](std::string why) -> std::optional<gpu_record> {
        why_not = std::move(why);
        return std::nullopt;
    };
    if (text.size() > max_record_bytes) return refuse("the record is larger than any recorder writes");

    gpu_record record;
    std::map<std::uint32_t, gpu_api_call> calls;  // by correlation id
    std::map<int, mark_pair> marks;
    std::vector<gpu_activity> work;
    // Each repetition's ops, what could not be written down, and the memory kept, as read.
    struct call_account {
        std::vector<recorded_op> ops;
        std::vector<std::string> unreplayable;
        std::vector<kept_memory> kept;
    };
    std::vector<call_account> ops;
    bool header = false;
    std::size_t lines = 0;
    std::istringstream in{std::string(text)};
    for (std::string text_line; std::getline(in, text_line);) {
        if (text_line.empty()) continue;
        if (++lines > max_lines) return refuse("the record has more lines than any recorder writes");
        const json line = json::parse(text_line, nullptr, false);
        if (!line.is_object()) return refuse("line " + std::to_string(lines) + " is not a record");
        if (!header) {
            if (line.value("record", "") != "course-gpu-record" || line.value("version", 0) != 1 ||
                !read_text(line, "nonce", record.nonce))
                return refuse("it does not start as a recorder's record does");
            header = true;
            continue;
        }
        if (line.contains("op")) {
            int rep = -1;
            recorded_op op;
            kept_memory kept;
            std::string why;
            const bool is_kept = line.value("op", "") == "kept";
            if (!read_number(line, "rep", rep) || rep < 0 || rep >= max_repetitions ||
                !(is_kept ? read_kept(line, kept) : read_op(line, op, why)))
                return refuse("line " + std::to_string(lines) + " is a damaged account of a call");
            if (ops.size() <= static_cast<std::size_t>(rep)) ops.resize(static_cast<std::size_t>(rep) + 1);
            auto& account = ops[static_cast<std::size_t>(rep)];
            if (is_kept) account.kept.push_back(std::move(kept));
            else if (!why.empty()) account.unreplayable.push_back(std::move(why));
            else account.ops.push_back(std::move(op));
        } else if (line.contains("calls_followed")) {
            record.calls_followed = line.value("calls_followed", false);
            if (!read_number(line, "cupti_error", record.cupti_error))
                return refuse("line " + std::to_string(lines) + " is damaged");
        } else if (line.contains("mark")) {
            std::string what;
            std::uint64_t t = 0;
            const auto rep = line.find("rep");
            if (!read_text(line, "mark", what) || !read_number(line, "t", t) || rep == line.end() ||
                !rep->is_number_unsigned() || rep->get<std::uint64_t>() >= max_repetitions ||
                (what != "begin" && what != "end"))
                return refuse("line " + std::to_string(lines) + " is a damaged mark");
            auto& pair = marks[rep->get<int>()];
            auto& slot = what == "begin" ? pair.begin : pair.end;
            if (slot) return refuse("repetition " + std::to_string(rep->get<int>()) + " is marked twice");
            slot = t;
        } else if (line.contains("api")) {
            gpu_api_call call;
            if (!read_text(line, "api", call.name) || !read_number(line, "corr", call.correlation) ||
                !read_number(line, "start", call.start) || !read_number(line, "end", call.end) ||
                call.end < call.start)
                return refuse("line " + std::to_string(lines) + " is a damaged API call");
            calls[call.correlation] = std::move(call);
        } else if (line.contains("kernel") || line.contains("copy") || line.contains("memset")) {
            gpu_activity a;
            const bool kernel = line.contains("kernel"), copy = line.contains("copy");
            a.what = kernel ? gpu_activity::kind::kernel : copy ? gpu_activity::kind::copy : gpu_activity::kind::memset;
            bool ok = read_text(line, kernel ? "kernel" : copy ? "copy" : "memset", a.name) && read_work(line, a);
            if (ok && !kernel) ok = read_number(line, "bytes", a.bytes);
            if (ok && copy) ok = read_text(line, "from", a.from) && read_text(line, "to", a.to);
            if (!ok || a.end < a.start) return refuse("line " + std::to_string(lines) + " is damaged GPU work");
            work.push_back(std::move(a));
        } else if (line.contains("dropped")) {
            if (!read_number(line, "dropped", record.dropped))
                return refuse("line " + std::to_string(lines) + " is damaged");
        } else if (line.contains("complete")) {
            record.complete = line.value("complete", false);
        } else {
            return refuse("line " + std::to_string(lines) + " is of no kind a recorder writes");
        }
    }
    if (!header) return refuse("it is empty");

    // Repetitions must be 0, 1, 2, ... each with both marks in order.
    int expected = 0;
    for (const auto& [index, pair] : marks) {
        if (index != expected++ || !pair.begin || !pair.end || *pair.end < *pair.begin)
            return refuse("the marks of repetition " + std::to_string(index) + " are missing or out of order");
        if (!record.repetitions.empty() && *pair.begin < record.repetitions.back().end)
            return refuse("repetition " + std::to_string(index) + " begins before the one before it ends");
        gpu_repetition repetition;
        repetition.index = index;
        repetition.begin = *pair.begin;
        repetition.end = *pair.end;
        record.repetitions.push_back(std::move(repetition));
    }
    if (ops.size() > record.repetitions.size()) return refuse("it accounts for a call that was never marked");
    for (std::size_t r = 0; r < ops.size(); ++r) {
        record.repetitions[r].ops = std::move(ops[r].ops);
        record.repetitions[r].unreplayable = std::move(ops[r].unreplayable);
        record.repetitions[r].kept = std::move(ops[r].kept);
    }
    // Each piece of work goes to the repetition during which its API call was made.
    for (auto& a : work) {
        const auto call = calls.find(a.correlation);
        const gpu_repetition* owner = nullptr;
        if (call != calls.end())
            for (const auto& r : record.repetitions)
                if (call->second.start >= r.begin && call->second.start <= r.end) owner = &r;
        if (owner) {
            a.repetition = owner->index;
            record.repetitions[static_cast<std::size_t>(owner->index)].work.push_back(std::move(a));
        } else {
            record.outside.push_back(std::move(a));
        }
    }
    // And each API call to the repetition during which it was made.
    for (const auto& [corr, call] : calls)
        for (auto& r : record.repetitions)
            if (call.start >= r.begin && call.start <= r.end) {
                r.calls.push_back(call);
                break;
            }
    auto by_start = [](const auto& x, const auto& y) { return x.start < y.start; };
    for (auto& r : record.repetitions) {
        std::sort(r.work.begin(), r.work.end(), by_start);
        std::sort(r.calls.begin(), r.calls.end(), by_start);
    }
    std::sort(record.outside.begin(), record.outside.end(), by_start);
    return record;
}

std::optional<gpu_record> read_gpu_record(const std::string& path, std::string& why_not) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        why_not = "no record was written";
        return std::nullopt;
    }
    in.seekg(0, std::ios::end);
    const auto size = static_cast<std::size_t>(in.tellg());
    if (size > max_record_bytes) {
        why_not = "the record is larger than any recorder writes";
        return std::nullopt;
    }
    in.seekg(0);
    std::string text(size, '\0');
    in.read(text.data(), static_cast<std::streamsize>(size));
    return parse_gpu_record(text, why_not);
}

std::string readable_kernel_name(const std::string& mangled) {
    int status = 0;
    const std::unique_ptr<char, void (*)(void*)> plain(abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status),
                                                       std::free);
    std::string name = status == 0 && plain ? plain.get() : mangled;
    // "void lesson01::vecadd_kernel<float>(course::device_span<...>, ...)" -> "lesson01::vecadd_kernel<float>(...)"
    if (name.rfind("void ", 0) == 0) name.erase(0, 5);
    if (const auto paren = name.find('('); paren != std::string::npos) name = name.substr(0, paren) + "(...)";
    return name;
}

}  // namespace course::testing
