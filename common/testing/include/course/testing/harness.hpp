#pragma once
// The graded-test harness's side of its conversation with the grader (see
// harness.cpp): flags it understands and the exit code that asks for a fresh
// process.
#include <string>
#include <string_view>

namespace course::testing {

// Printed by `<tests> --graded-list`: the graded tests as JSON, no GPU needed.
inline constexpr const char* list_flag = "--graded-list";
// `--course-then=<gtest filter>`: after the tests of --gtest_filter, run these
// in the same process, once the grader allows it (evidence.hpp:
// phase2_may_start).
inline constexpr const char* phase2_flag = "--course-then";
// Exit code after a test left the CUDA context unusable (a sticky error such
// as an illegal address): the grader starts a fresh process for the rest.
inline constexpr int sticky_error_exit_code = 86;
// What a sticky CUDA error says about the kernel that caused it, by the
// error's name (cudaGetErrorName): each name has its own cause, and a name
// not listed here gets no cause at all rather than a guessed one.
inline std::string sticky_error_meaning(std::string_view error_name) {
    if (error_name == "cudaErrorMisalignedAddress")
        return "a kernel accessed memory at an address not aligned for the access's size (a float4 "
               "load or store needs an address that is a multiple of 16 bytes)";
    if (error_name == "cudaErrorIllegalAddress")
        return "a kernel accessed memory it does not own (an index past the end of an array, or a "
               "host or freed pointer)";
    if (error_name == "cudaErrorAssert") return "an assert() in a kernel failed";
    if (error_name == "cudaErrorLaunchTimeout") return "a kernel ran too long and was stopped";
    if (error_name == "cudaErrorIllegalInstruction" || error_name == "cudaErrorInvalidPc")
        return "a kernel executed an invalid instruction";
    return "a kernel failed";
}

// Environment variable naming the file descriptor for result events.
inline constexpr const char* events_fd_variable = "COURSE_EVENTS_FD";
// Environment variable naming the library of the code under test, for checks
// that read what was compiled (lesson07's symbol check): the grader sets it
// for the student's program and the judge alike.
inline constexpr const char* implementation_library_variable = "COURSE_IMPLEMENTATION_LIBRARY";
// Environment variable naming a file that holds `nm -A -P` of that library,
// which the grader writes: a graded run's test program may start no process
// (grader/threads_only), so it cannot run nm itself.
inline constexpr const char* implementation_symbols_variable = "COURSE_IMPLEMENTATION_SYMBOLS";
// Environment variable naming the folder of the device code the grader
// handed over: N.fatbin, what nvcc made of each of the library's sources,
// or unreadable.txt saying why there is none; the judge replays each timed
// call from those (student_modules.hpp). Its library/ folder holds the
// library's own .nv_fatbin sections, read only to name a kernel that is in
// the library but not compiled from its sources.
inline constexpr const char* student_device_code_variable = "COURSE_STUDENT_DEVICE_CODE";
inline constexpr const char* unreadable_device_code_file = "unreadable.txt";
inline constexpr const char* library_sections_folder = "library";

}  // namespace course::testing
