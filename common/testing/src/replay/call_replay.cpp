#include "course/testing/call_replay.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "course/error.hpp"

namespace course::testing {

std::uint64_t replay_scratch::operator()(std::uint64_t base, std::uint64_t size) {
    const auto key = std::make_pair(base, size);
    if (const auto it = made_.find(key); it != made_.end()) return reinterpret_cast<std::uint64_t>(it->second.data());
    if (size > budget_ - used_)
        throw replay_refused(fmt::format("it used {} MiB of device memory besides the test's arrays, more than the "
                                         "{} MiB the replay sets aside",
                                         (used_ + size) >> 20, budget_ >> 20));
    used_ += size;
    auto [it, made] = made_.emplace(key, device_array<std::uint8_t>(size));
    return reinterpret_cast<std::uint64_t>(it->second.data());
}

void replay_scratch::fill_with_pattern(cudaStream_t stream) {
    // 0xA5 in every byte: as floats, -2.9e-16, found in no right answer.
    for (auto& [key, memory] : made_) CUDA_CHECK(cudaMemsetAsync(memory.data(), 0xA5, memory.size(), stream));
}

call_replay::~call_replay() = default;

namespace {

void* judge_pointer(const recorded_address& a, std::uint64_t bytes, const replay_addresses& addresses,
                    replay_scratch& scratch, const char* what) {
    const auto moved = addresses.translate_range(a, bytes, std::ref(scratch));
    if (!moved)
        throw replay_refused(fmt::format("{} {} bytes lies outside the test's arrays and the device memory the call "
                                         "allocated",
                                         what, bytes));
    return reinterpret_cast<void*>(*moved);
}

// Why a launch of `mangled`, which no source of the student's compiled to,
// is not replayed: what the judge could see of where it came from.
std::string not_from_sources(const std::string& mangled, bool in_library) {
    const std::string name = readable_kernel_name(mangled);
    std::string where = in_library ? "it is in your library as machine code made elsewhere (placed in a section "
                                     "named like nvcc's), which the judge does not take for yours"
                                   : "a library's kernel, or one compiled while the program ran";
    if (mangled.rfind("course_textbook_", 0) == 0)
        where += "; it is one of the course's own yardsticks, the textbook kernel your kernel is timed against";
    return fmt::format("it launched {}, which was not compiled from your source files ({})", name, where);
}

// Sets on the judge's copy of a kernel the attributes the student's program
// had set on its own (the record's), before the launch that needs them: a
// refusal is the replay's, never a wrong answer.
void set_recorded_attributes(const student_modules& modules, const student_kernel& kernel, const recorded_op& op) {
    auto set = [&](CUfunction_attribute attribute, std::uint32_t value, const char* what) {
        if (const CUresult r = modules.set_attribute(kernel, attribute, static_cast<int>(value)); r != CUDA_SUCCESS)
            throw replay_refused(fmt::format("the judge could not set {} of {} to {}, as your program had (CUDA "
                                             "driver error {})",
                                             what, readable_kernel_name(op.kernel), value, static_cast<int>(r)));
    };
    if (op.max_dynamic_shared_bytes)
        set(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, *op.max_dynamic_shared_bytes,
            "the dynamic shared memory it may use");
    if (op.shared_carveout_percent)
        set(CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, *op.shared_carveout_percent,
            "the shared memory carve-out");
}

}  // namespace

void call_replay::prepare(const gpu_repetition& call) {
    steps_.clear();
    kept_.clear();
    bytes_not_kept_ = 0;
    host_memory_.clear();
    if (!call.unreplayable.empty()) throw replay_refused(call.unreplayable.front());
    // Memory the call found as it was: the judge's scratch for it starts the
    // same. The test's own arrays are not scratch: they get new inputs.
    for (const kept_memory& found : call.kept) {
        bool scratch = false;
        const auto moved = addresses_.translate_range(
            {found.base, found.base, found.size}, found.size, [&](std::uint64_t base, std::uint64_t size) {
                scratch = true;
                return scratch_(base, size);
            });
        if (!moved || !scratch) continue;
        if (!found.kept()) {
            bytes_not_kept_ += found.size;
            continue;
        }
        host_memory_.emplace_back(found.size);
        std::copy(found.data.begin(), found.data.end(), host_memory_.back().data());
        kept_.push_back({reinterpret_cast<void*>(*moved), host_memory_.size() - 1});
    }
    for (const recorded_op& op : call.ops) {
        step s;
        s.what = op.what;
        switch (op.what) {
            case recorded_op::kind::launch: {
                const auto kernel = modules_.kernel(op.kernel);
                if (!kernel) throw foreign_kernel_refused(not_from_sources(op.kernel, modules_.library_holds(op.kernel)));
                if (kernel->argument_bytes && *kernel->argument_bytes != op.args.size())
                    throw replay_refused(fmt::format("the record gives {} {} bytes of arguments, and it takes {}",
                                                     readable_kernel_name(op.kernel), op.args.size(),
                                                     *kernel->argument_bytes));
                s.kernel = op.kernel;
                s.function = *kernel;
                set_recorded_attributes(modules_, *kernel, op);
                std::copy(op.grid, op.grid + 3, s.grid);
                std::copy(op.block, op.block + 3, s.block);
                s.shared_bytes = op.shared_bytes;
                s.args = translated_arguments(op, addresses_, std::ref(scratch_));
                break;
            }
            case recorded_op::kind::memset:
                s.to = judge_pointer(op.to, op.bytes, addresses_, scratch_, "a memset of");
                s.bytes = op.bytes;
                s.byte = op.byte;
                break;
            case recorded_op::kind::copy:
                s.bytes = op.bytes;
                if (op.direction == "DtoD") {
                    s.to = judge_pointer(op.to, op.bytes, addresses_, scratch_, "a copy of");
                    s.from = judge_pointer(op.from, op.bytes, addresses_, scratch_, "a copy of");
                    s.direction = cudaMemcpyDeviceToDevice;
                } else if (op.direction == "HtoD") {
                    if (op.data.size() != op.bytes)
                        throw replay_refused("a copy from the host was recorded without its bytes");
                    s.to = judge_pointer(op.to, op.bytes, addresses_, scratch_, "a copy of");
                    host_memory_.emplace_back(op.bytes);
                    std::copy(op.data.begin(), op.data.end(), host_memory_.back().data());
                    s.from = host_memory_.back().data();
                    s.direction = cudaMemcpyHostToDevice;
                } else if (op.direction == "DtoH") {
                    // It lands in memory read by nobody: the student's host
                    // code, which would read it, is not replayed.
                    s.from = judge_pointer(op.from, op.bytes, addresses_, scratch_, "a copy of");
                    host_memory_.emplace_back(op.bytes);
                    s.to = host_memory_.back().data();
                    s.direction = cudaMemcpyDeviceToHost;
                } else {
                    continue;  // host to host: nothing on the GPU
                }
                break;
        }
        steps_.push_back(std::move(s));
    }
}

void call_replay::start_as_recorded(cudaStream_t stream) {
    for (const kept_copy& k : kept_) {
        const auto& bytes = host_memory_[k.host_index];
        CUDA_CHECK(cudaMemcpyAsync(k.to, bytes.data(), bytes.size(), cudaMemcpyHostToDevice, stream));
    }
}

void call_replay::queue(cudaStream_t stream) {
    for (step& s : steps_) {
        switch (s.what) {
            case recorded_op::kind::launch:
                if (const CUresult r =
                        modules_.launch(s.function, s.grid, s.block, s.shared_bytes, s.args, stream);
                    r != CUDA_SUCCESS)
                    throw replay_refused(fmt::format(
                        "launching {} as the call did ({} x {} x {} blocks of {} x {} x {} threads) failed (CUDA "
                        "driver error {})",
                        readable_kernel_name(s.kernel), s.grid[0], s.grid[1], s.grid[2], s.block[0], s.block[1], s.block[2],
                        static_cast<int>(r)));
                break;
            case recorded_op::kind::memset: CUDA_CHECK(cudaMemsetAsync(s.to, s.byte, s.bytes, stream)); break;
            case recorded_op::kind::copy: CUDA_CHECK(cudaMemcpyAsync(s.to, s.from, s.bytes, s.direction, stream)); break;
        }
    }
}

}  // namespace course::testing
