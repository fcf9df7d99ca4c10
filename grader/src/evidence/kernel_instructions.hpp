#pragma once
// What a test program's kernels can do, read from their machine code
// (`cuobjdump -sass`): whether any of them has an instruction that may touch
// shared memory, and whether any has a barrier or a warp-synchronous one.
// racecheck looks at shared memory only, and synccheck at those instructions
// only, so in a program whose kernels have none of them they have nothing
// to find: the explanation of its failures does not run them
// (sanitizer_evidence.hpp). That is half the reruns of a failure memcheck
// cannot see, a wrong formula say: on an H200, lesson01's racecheck and
// synccheck reruns took 0.5 to 1.5 s each, four of them per such failure.
//
// Read from the test program, which holds every kernel linked into it, the
// student's and the harness's, not from the source: what runs is what was
// compiled. Kernels a program compiles or loads while it runs (NVRTC, the
// driver's module loading: lessons 3 and 6) are not in it, so where the
// student's library names such a function the question stays open.
#include <atomic>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace grader {

struct kernel_instructions {
    int kernels = 0;               // how many were read
    bool shared_memory = false;    // LDS, STS, ATOMS, LDGSTS, TMA..., or a generic LD, ST, ATOM, RED
    bool synchronization = false;  // BAR, WARPSYNC, SHFL, VOTE, MATCH, REDUX, mbarriers...
};

// Reads `cuobjdump -sass` output line by line: every kernel ("Function :
// name") and the instructions in it.
class sass_reader {
public:
    void read_line(std::string_view line);
    const kernel_instructions& seen() const { return seen_; }
    // Both kinds seen: nothing later in the listing changes the answer.
    bool settled() const { return seen_.shared_memory && seen_.synchronization; }

private:
    kernel_instructions seen_;
    bool in_kernel_ = false;
};
kernel_instructions read_kernel_instructions(const std::string& sass);

// Whether `library` (the student's compiled code) names a function that
// compiles or loads kernels at run time, or one that finds such functions
// by name (cuGetProcAddress).
bool loads_kernels_at_run_time(const std::filesystem::path& library);

// The instructions of `program`'s kernels, by `cuobjdump` (its output goes
// to `scratch`, removed after: for lesson06 it is megabytes). It is stopped
// once both kinds are seen, or once `give_up` is set (the answer is no
// longer wanted): cuobjdump took 1.2 s on lesson01's test program and 3.4 s
// on lesson07's on an H100 machine, and printed lesson07's listing only at
// its end. nullopt where it cannot be told: no cuobjdump, no library to
// look into, a library that loads kernels at run time, cuobjdump failing or
// given up on, or no kernel read.
std::optional<kernel_instructions> kernel_instructions_of(const std::optional<std::filesystem::path>& cuobjdump,
                                                          const std::filesystem::path& program,
                                                          const std::filesystem::path& library,
                                                          const std::filesystem::path& scratch,
                                                          const std::atomic<bool>* give_up = nullptr);

}  // namespace grader
