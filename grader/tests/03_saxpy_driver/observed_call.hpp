#pragma once
// How a call of the code under test ended, as evidence
// (course/testing/evidence.hpp): the lesson03 tests check the student's
// exception, which the grader's judge replays in place of the reference's.
#include <exception>
#include <stdexcept>
#include <string>
#include <string_view>

#include "course/cuda_error.hpp"
#include "course/testing/evidence.hpp"

namespace lesson03_tests {

struct observed_call {
    enum kind_t : int { returned, cuda_error, invalid_argument, other_exception } kind = returned;
    std::string what;  // the exception's what()
    // A course::cuda_error's library ("nvrtc", "driver", ...), its status and the status's name.
    std::string api, code_name;
    int code = 0;
};

// Runs `call` and records how it ended: normally, or with which exception.
// A course::not_implemented goes on: the test ends there, and the grader
// reports the unfinished part.
template <class Call>
observed_call observe_call(std::string_view name, Call&& call) {
    using course::testing::observe;
    observed_call c;
    try {
        call();
    } catch (const course::not_implemented&) {
        throw;
    } catch (const course::cuda_error& e) {
        c = {observed_call::cuda_error, e.what(), e.api(), e.code_name(), e.code()};
    } catch (const std::invalid_argument& e) {
        c = {observed_call::invalid_argument, e.what()};
    } catch (const std::exception& e) {
        c = {observed_call::other_exception, e.what()};
    }
    const std::string prefix(name);
    c.kind = observe(prefix + ": how it ended", c.kind);
    c.what = observe(prefix + ": message", std::move(c.what));
    c.api = observe(prefix + ": API", std::move(c.api));
    c.code_name = observe(prefix + ": status name", std::move(c.code_name));
    c.code = observe(prefix + ": status", c.code);
    return c;
}

}  // namespace lesson03_tests
