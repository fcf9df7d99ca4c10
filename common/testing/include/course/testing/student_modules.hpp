#pragma once
// The student's device code, loaded into the judge's own process: what the
// judge replays a timed call from (call_replay.hpp). The grader hands over
// the fat binary nvcc made of each of the library's sources (grader/src/
// evidence/device_code.hpp), in a folder the student's program cannot
// write, named in COURSE_STUDENT_DEVICE_CODE. The kernels launched here are
// the ones nvcc compiled from the submission's sources, never machine code
// a source placed in its object by other means; nothing of the student's
// host code runs in this process.
//
// The driver API is reached through the runtime (driver_entry_point.hpp):
// test programs do not link libcuda, so they start on machines without a
// driver.
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace course::testing {

struct student_kernel {
    CUfunction function = nullptr;
    // The bytes its parameters take (the end of the last), where the driver
    // could say; nullopt where it could not.
    std::optional<std::size_t> argument_bytes;
};

class student_modules {
public:
    // The fat binaries the grader handed over; nullptr and `why_not` where
    // there are none (outside the grader, a grader without libelf, a
    // library with no device code).
    static std::unique_ptr<student_modules> from_grader(std::string& why_not);

    // Each image: one object's fat binaries, as nvcc embedded them.
    explicit student_modules(std::vector<std::string> images);
    ~student_modules();
    student_modules(const student_modules&) = delete;
    student_modules& operator=(const student_modules&) = delete;

    // Loads every image anew, so that each module's __device__ variables
    // hold their initial values again; false and `why_not` where there are
    // images and none of them loads on this GPU. Kernels found before are
    // then gone (given ones stay).
    bool reload(std::string& why_not);

    // A kernel the course hands the student's code rather than the
    // student's library holding it (lesson03's SAXPY, compiled from the
    // lesson's own source while the program runs): the judge's own copy,
    // which kernel() returns for that name where no module of the student's
    // has it. The judge keeps it loaded.
    void give(const std::string& mangled, CUfunction function);

    // The kernel of that (mangled) name in the modules loaded, or given,
    // ready to run (loaded onto the GPU now, not at its first launch);
    // nullopt where none has it.
    std::optional<student_kernel> kernel(const std::string& mangled) const;

    // Whether the library's own .nv_fatbin sections (the folder's
    // library/, which the replay never runs) hold a kernel of that name:
    // said of a kernel that was not compiled from the sources, to tell
    // machine code placed in the library from a kernel loaded at run time.
    bool library_holds(const std::string& mangled) const;

    // Sets a function attribute the student's program had set on its own
    // copy of the kernel (cudaFuncSetAttribute: the dynamic shared memory it
    // may ask for, the preferred carve-out), so that its launch is the same.
    CUresult set_attribute(const student_kernel& kernel, CUfunction_attribute attribute, int value) const;

    // Launches `kernel` with `arguments` laid out as the kernel takes them.
    CUresult launch(const student_kernel& kernel, const std::uint32_t grid[3], const std::uint32_t block[3],
                    std::uint32_t shared_bytes, std::vector<std::uint8_t>& arguments, cudaStream_t stream) const;

private:
    struct driver;
    void unload();
    std::vector<std::string> images_;
    std::filesystem::path folder_;  // where the grader put them; empty when made from images
    std::vector<CUmodule> loaded_;
    std::vector<std::pair<std::string, CUfunction>> given_;
    const driver& driver_;
};

}  // namespace course::testing
