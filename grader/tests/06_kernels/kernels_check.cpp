#include "kernels_check.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <type_traits>

#include "course/compare.hpp"
#include "course/cuda_error.hpp"
#include "course/random.hpp"
#include "course/stream.hpp"
#include "course/testing/evidence.hpp"
#include "course/testing/graded.hpp"

namespace lesson06::testing {

namespace {

std::uint64_t seed_for(const std::string& name) {
    return course::derive_seed(course::testing::seed(), name.c_str());
}

template <class T>
input<T> on_device(const std::string& name, std::vector<T> host) {
    input<T> x{name, std::move(host), {}};
    x.device = course::testing::guard_paged_array<T>::from_host(x.host, course::testing::guard_side::after, name);
    return x;
}

std::string number(double x) {
    if (std::isnan(x)) return "NaN";
    return fmt::format("{:.9g}", x);
}

}  // namespace

template <class T>
input<T> uniform_input(std::size_t n, const std::string& name, double lo, double hi) {
    const std::vector<float> coarse = course::random_floats(n, seed_for(name), static_cast<float>(lo),
                                                            static_cast<float>(hi));
    std::vector<T> host(coarse.begin(), coarse.end());
    if constexpr (std::is_same_v<T, double>) {
        // Fill in the bits float does not have: a second draw, 2^-24 times smaller.
        const std::vector<float> fine = course::random_floats(n, seed_for(name + "/fine"), 0.0f, 1.0f);
        for (std::size_t i = 0; i < n; ++i) host[i] += (hi - lo) * 0x1p-24 * fine[i];
    }
    return on_device(name, std::move(host));
}

template <class T>
input<T> integer_input(std::size_t n, const std::string& name, int lo, int hi) {
    const std::vector<float> draw = course::random_floats(n, seed_for(name), 0.0f, 1.0f);
    std::vector<T> host(n);
    const int span = hi - lo + 1;
    for (std::size_t i = 0; i < n; ++i) {
        int k = static_cast<int>(draw[i] * static_cast<float>(span));
        if (k >= span) k = span - 1;
        host[i] = static_cast<T>(lo + k);
    }
    return on_device(name, std::move(host));
}

input<std::int32_t> int32_input(std::size_t n, const std::string& name, std::int32_t lo, std::int32_t hi) {
    std::mt19937_64 draw(seed_for(name));  // its sequence is fixed by the standard
    const auto span = static_cast<std::uint64_t>(std::int64_t{hi} - std::int64_t{lo} + 1);
    std::vector<std::int32_t> host(n);
    for (auto& v : host) v = static_cast<std::int32_t>(std::int64_t{lo} + static_cast<std::int64_t>(draw() % span));
    return on_device(name, std::move(host));
}

template <class T>
void expect_elements(const std::vector<T>& actual, const expectation& expected,
                     const std::string& what, const std::function<std::string(std::size_t)>& explain,
                     std::size_t threads_per_block) {
    // The result is evidence: its size is not to be taken on trust either.
    if (actual.size() != expected.value.size()) {
        ADD_FAILURE() << fmt::format("{}: {} elements read back, {} expected", what,
                                     course::with_commas(actual.size()),
                                     course::with_commas(expected.value.size()));
        return;
    }
    const std::size_t n = actual.size();
    std::size_t wrong = 0, nan = 0, first = n, last = 0, first_nan = n;
    std::vector<std::size_t> examples;
    for (std::size_t i = 0; i < n; ++i) {
        const double a = static_cast<double>(actual[i]);
        const double e = expected.value[i];
        const bool ok = std::isnan(e) ? std::isnan(a)
                                      : (std::isfinite(a) && std::fabs(a - e) <= expected.allowed[i]) ||
                                            (std::isinf(e) && a == e);
        if (ok) continue;
        if (wrong++ == 0) first = i;
        last = i;
        if (std::isnan(a)) {
            if (nan++ == 0) first_nan = i;
        }
        if (examples.size() < 3) examples.push_back(i);
    }
    if (wrong == 0) return;

    std::string message = fmt::format("{}: {} of {} elements wrong", what, course::with_commas(wrong),
                                      course::with_commas(n));
    for (const std::size_t i : examples) {
        const double a = static_cast<double>(actual[i]);
        message += fmt::format("\n  element {}: expected {}, got {}{}", course::with_commas(i),
                               number(expected.value[i]), number(a),
                               std::isnan(a) ? " (never written)" : "");
    }

    // The pattern of the wrong elements, and what leaves it.
    constexpr std::size_t width = 16 / sizeof(T);
    const std::size_t whole = n / width * width;
    // Everything from `first` on never written, everything before it right.
    const bool end_unwritten = nan == wrong && wrong == n - first;
    if (nan == n) {
        message += "\nno element was written: is the kernel launched (at least one block), does "
                   "its loop run, and does it store into the output?";
        if (n < width)  // fewer elements than a pack: a loop over whole packs does nothing
            message += fmt::format(" With n = {}, below one 16-byte pack of {}, a loop over whole "
                                   "packs with no code for the tail writes nothing too.",
                                   n, width);
    } else if (end_unwritten && first == whole) {
        message += fmt::format(
            "\nonly the last {} element(s) are missing: the tail. {} is not a multiple of {}, the "
            "elements in a 16-byte pack; after the loop over whole packs, the last n % {} elements "
            "must be done one by one.",
            n - whole, course::with_commas(n), width, width);
        if (threads_per_block > 0 && n / threads_per_block * threads_per_block == whole)
            message += " (A grid rounded down, which leaves out the last, partial block, gives the "
                       "same pattern here.)";
    } else if (end_unwritten && first == threads_per_block) {
        message += fmt::format(
            "\nelements {} to {} were never written; the first {}, one block's worth, are right: "
            "only one block ran, or every block wrote the first block's elements (the index ignores "
            "blockIdx.x). Launch enough blocks for n, blocks = (n + threads - 1) / threads, with "
            "i = blockIdx.x * blockDim.x + threadIdx.x.",
            course::with_commas(first), course::with_commas(n - 1), threads_per_block);
    } else if (end_unwritten) {
        message += fmt::format(
            "\nelements {} to {} were never written; the ones before are right: the threads stopped "
            "short of n. Either the grid is too small for n and nothing covers the rest (a grid-stride "
            "loop runs until i >= n, stepping by gridDim.x * blockDim.x), or a loop ends early.",
            course::with_commas(first), course::with_commas(n - 1));
    } else if (nan == wrong) {
        message += fmt::format("\n{} elements were never written, scattered from element {} to {}",
                               course::with_commas(nan), course::with_commas(first),
                               course::with_commas(last));
    } else if (explain) {
        if (const std::string why = explain(first); !why.empty()) message += "\n" + why;
    }
    ADD_FAILURE() << message;
}

template <class T>
void expect_guard_untouched(const course::testing::guarded_output<T>& output, const std::string& what) {
    const std::vector<std::size_t> written = output.guard_writes();
    if (written.empty()) return;
    ADD_FAILURE() << fmt::format(
        "{}: wrote past the end: {} element(s) after the last one were changed (the first at index {}, "
        "{} past the end).\nThreads whose index is not below the output's size must not store: the "
        "last block usually has threads with no element, so guard every store with the size.",
        what, written.size(), course::with_commas(output.size() + written.front()), written.front() + 1);
}

template <class T>
void output<T>::expect_untouched_outside(const std::string& what) const {
    expect_guard_untouched(storage_, what);
    // The elements before the view's start: the evidence is the first one
    // written (offset_ when none was), not the elements themselves.
    std::vector<T> before(offset_);
    if (offset_ > 0)
        CUDA_CHECK(cudaMemcpy(before.data(), start_, offset_ * sizeof(T), cudaMemcpyDeviceToHost));
    std::size_t i = 0;
    while (i < offset_ && std::isnan(static_cast<double>(before[i]))) ++i;
    i = course::testing::observe("first write before the start", i);
    if (i < offset_)
        ADD_FAILURE() << fmt::format(
            "{}: wrote before the start: the output view starts {} elements into its "
            "allocation and element {} before it was changed. Index the view from 0.",
            what, offset_, offset_ - i);
}

template <class T>
void expect_unchanged(const input<T>& x) {
    const std::vector<T> now = x.device.to_host();
    std::size_t first = 0;
    while (first < now.size() && std::memcmp(&now[first], &x.host[first], sizeof(T)) == 0) ++first;
    first = course::testing::observe("first changed input element", first);  // evidence
    if (first >= x.host.size()) return;
    ADD_FAILURE() << fmt::format(
        "input {} was modified (first at element {}): inputs are read-only, write only the output",
        x.name, course::with_commas(first));
}

void expect_close(double actual, double expected, double allowed, const std::string& what,
                  const std::string& advice) {
    const bool ok = std::isinf(expected) ? actual == expected
                                         : std::isfinite(actual) && std::fabs(actual - expected) <= allowed;
    if (ok) return;
    std::string message = fmt::format("{}: expected {}, got {}", what, number(expected), number(actual));
    if (std::isnan(actual))
        message += " (never written, or computed from unwritten memory)";
    else if (std::isfinite(expected) && std::isfinite(actual))
        message += fmt::format(" (off by {:.3g}; {:.3g} allowed)", std::fabs(actual - expected), allowed);
    if (!advice.empty()) message += "\n" + advice;
    ADD_FAILURE() << message;
}

std::size_t kernels_launched(const std::function<void(cudaStream_t)>& work) {
    struct destroy_graph {
        void operator()(cudaGraph_t graph) const noexcept { cudaGraphDestroy(graph); }
    };
    using graph_handle = std::unique_ptr<std::remove_pointer_t<cudaGraph_t>, destroy_graph>;

    const course::stream stream;
    // Relaxed: the capture records the work queued on `stream` and refuses
    // nothing else the call might do on the way (asking about the device, say).
    CUDA_CHECK(cudaStreamBeginCapture(stream.get(), cudaStreamCaptureModeRelaxed));
    try {
        work(stream.get());
    } catch (...) {
        cudaGraph_t abandoned = nullptr;
        cudaStreamEndCapture(stream.get(), &abandoned);  // end the capture; its graph is not wanted
        graph_handle drop(abandoned);
        throw;
    }
    cudaGraph_t raw = nullptr;
    CUDA_CHECK(cudaStreamEndCapture(stream.get(), &raw));
    const graph_handle graph(raw);

    std::size_t count = 0;
    CUDA_CHECK(cudaGraphGetNodes(graph.get(), nullptr, &count));
    std::vector<cudaGraphNode_t> nodes(count);
    if (count > 0) CUDA_CHECK(cudaGraphGetNodes(graph.get(), nodes.data(), &count));
    std::size_t kernels = 0;
    for (cudaGraphNode_t node : nodes) {
        cudaGraphNodeType type{};
        CUDA_CHECK(cudaGraphNodeGetType(node, &type));
        if (type == cudaGraphNodeTypeKernel) ++kernels;
    }
    return course::testing::observe("kernels launched", kernels);
}

// The two element types of the lesson.
template input<float> uniform_input<float>(std::size_t, const std::string&, double, double);
template input<double> uniform_input<double>(std::size_t, const std::string&, double, double);
template input<float> integer_input<float>(std::size_t, const std::string&, int, int);
template input<double> integer_input<double>(std::size_t, const std::string&, int, int);
template void expect_elements<float>(const std::vector<float>&, const expectation&, const std::string&,
                                     const std::function<std::string(std::size_t)>&, std::size_t);
template void expect_elements<double>(const std::vector<double>&, const expectation&, const std::string&,
                                      const std::function<std::string(std::size_t)>&, std::size_t);
template void expect_guard_untouched<float>(const course::testing::guarded_output<float>&, const std::string&);
template void expect_guard_untouched<double>(const course::testing::guarded_output<double>&, const std::string&);
template void expect_unchanged<float>(const input<float>&);
template class output<float>;
template class output<double>;
// And int32, for the vectorized affine's third type.
template void expect_elements<std::int32_t>(const std::vector<std::int32_t>&, const expectation&, const std::string&,
                                            const std::function<std::string(std::size_t)>&, std::size_t);
template void expect_unchanged<std::int32_t>(const input<std::int32_t>&);
template class output<std::int32_t>;
template void expect_unchanged<double>(const input<double>&);

void expect_invalid_argument(const std::function<void()>& call, const std::string& what) {
    enum class outcome : int { returned, invalid_argument, not_implemented, other_exception };
    outcome how = outcome::returned;
    std::string message;  // what() of anything else thrown
    try {
        call();
        CUDA_CHECK(cudaDeviceSynchronize());
    } catch (const std::invalid_argument&) {
        how = outcome::invalid_argument;
    } catch (const course::not_implemented& e) {
        how = outcome::not_implemented;
        message = e.what();
    } catch (const std::exception& e) {
        how = outcome::other_exception;
        message = e.what();
    }
    // What the call did is evidence: the verdict follows the recorded
    // outcome, not the one this process saw.
    how = course::testing::observe("outcome", how);
    message = course::testing::observe("exception message", std::move(message));
    switch (how) {
        case outcome::invalid_argument: return;  // right
        case outcome::returned:
            ADD_FAILURE() << what << " returned normally; it should throw std::invalid_argument before "
                                     "launching anything";
            return;
        case outcome::not_implemented: ADD_FAILURE() << message; return;
        default:
            ADD_FAILURE() << what << " threw \"" << message << "\" instead of std::invalid_argument";
    }
}

}  // namespace lesson06::testing
