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

// The recorder keeps the bytes of a copy from the host up to this size
// (grader/recorder/call_ops.cpp).
constexpr std::uint64_t max_recorded_copy_bytes = 64 * 1024;

}  // namespace

// Where `bytes` bytes from host address `a` lie wholly in one of the test's
// arrays (pinned host memory, lesson05's), the judge's copy of them; else null.
const void* call_replay::host_array(const recorded_address& a, std::uint64_t bytes) const {
    if (a.in_device_memory()) return nullptr;
    const auto moved = addresses_.translate_range(a, bytes, [](std::uint64_t, std::uint64_t) -> std::uint64_t {
        throw replay_refused("host memory has no scratch");  // never: `a` is not in device memory
    });
    return moved ? reinterpret_cast<const void*>(*moved) : nullptr;
}

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
        s.stream = op.stream;
        s.event = op.event;
        s.waits_for = op.waits_for;
        switch (op.what) {
            case recorded_op::kind::event_record:
            case recorded_op::kind::stream_wait:
            case recorded_op::kind::host_wait: break;
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
                    s.to = judge_pointer(op.to, op.bytes, addresses_, scratch_, "a copy of");
                    s.direction = cudaMemcpyHostToDevice;
                    // From one of the test's arrays in pinned host memory
                    // (lesson05's input): from the judge's, with its new inputs.
                    if (const auto from = host_array(op.from, op.bytes)) {
                        s.from = from;
                        break;
                    }
                    if (op.data.size() != op.bytes)
                        throw replay_refused(fmt::format(
                            "it copied {} bytes to the GPU from host memory that is not one of the test's arrays; the "
                            "recorder keeps the bytes of such a copy only up to {} KiB",
                            op.bytes, max_recorded_copy_bytes / 1024));
                    host_memory_.emplace_back(op.bytes);
                    std::copy(op.data.begin(), op.data.end(), host_memory_.back().data());
                    s.from = host_memory_.back().data();
                } else if (op.direction == "DtoH") {
                    s.from = judge_pointer(op.from, op.bytes, addresses_, scratch_, "a copy of");
                    s.direction = cudaMemcpyDeviceToHost;
                    // Into one of the test's arrays (lesson05's output): the
                    // judge's. Anywhere else it lands in memory read by
                    // nobody: the student's host code, which would read it,
                    // is not replayed.
                    if (const auto to = host_array(op.to, op.bytes)) {
                        s.to = const_cast<void*>(to);
                        break;
                    }
                    host_memory_.emplace_back(op.bytes);
                    s.to = host_memory_.back().data();
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

void call_replay::launch(step& s, cudaStream_t stream) {
    if (const CUresult r = modules_.launch(s.function, s.grid, s.block, s.shared_bytes, s.args, stream);
        r != CUDA_SUCCESS)
        throw replay_refused(fmt::format(
            "launching {} as the call did ({} x {} x {} blocks of {} x {} x {} threads) failed (CUDA driver error {})",
            readable_kernel_name(s.kernel), s.grid[0], s.grid[1], s.grid[2], s.block[0], s.block[1], s.block[2],
            static_cast<int>(r)));
}

void call_replay::queue(cudaStream_t stream) {
    for (step& s : steps_) {
        switch (s.what) {
            case recorded_op::kind::launch: launch(s, stream); break;
            case recorded_op::kind::memset: CUDA_CHECK(cudaMemsetAsync(s.to, s.byte, s.bytes, stream)); break;
            case recorded_op::kind::copy: CUDA_CHECK(cudaMemcpyAsync(s.to, s.from, s.bytes, s.direction, stream)); break;
            // One stream runs everything in order: nothing to wait for.
            case recorded_op::kind::event_record:
            case recorded_op::kind::stream_wait:
            case recorded_op::kind::host_wait: break;
        }
    }
}

void call_replay::make_streams(replay_streams& streams) const {
    for (const step& s : steps_) {
        const bool on_event = s.what == recorded_op::kind::event_record || s.what == recorded_op::kind::stream_wait ||
                              (s.what == recorded_op::kind::host_wait && s.waits_for == recorded_op::wait_on::event);
        if (on_event) streams.event(s.event);
        if (s.what != recorded_op::kind::host_wait || s.waits_for == recorded_op::wait_on::stream)
            streams.stream(s.stream);
    }
}

void call_replay::queue_on_streams(replay_streams& streams) {
    for (step& s : steps_) {
        switch (s.what) {
            case recorded_op::kind::launch: launch(s, streams.stream(s.stream)); break;
            case recorded_op::kind::memset:
                CUDA_CHECK(cudaMemsetAsync(s.to, s.byte, s.bytes, streams.stream(s.stream)));
                break;
            case recorded_op::kind::copy:
                CUDA_CHECK(cudaMemcpyAsync(s.to, s.from, s.bytes, s.direction, streams.stream(s.stream)));
                break;
            case recorded_op::kind::event_record:
                CUDA_CHECK(cudaEventRecord(streams.event(s.event), streams.stream(s.stream)));
                break;
            case recorded_op::kind::stream_wait:
                CUDA_CHECK(cudaStreamWaitEvent(streams.stream(s.stream), streams.event(s.event), 0));
                break;
            case recorded_op::kind::host_wait:
                switch (s.waits_for) {
                    case recorded_op::wait_on::stream: CUDA_CHECK(cudaStreamSynchronize(streams.stream(s.stream))); break;
                    case recorded_op::wait_on::event: CUDA_CHECK(cudaEventSynchronize(streams.event(s.event))); break;
                    case recorded_op::wait_on::device: CUDA_CHECK(cudaDeviceSynchronize()); break;
                }
                break;
        }
    }
}

cudaStream_t replay_streams::stream(const recorded_stream& s) {
    cudaStream_t handle = nullptr;
    if (s.id == legacy_stream_id) {
        handle = cudaStreamLegacy;
    } else if (s.id == per_thread_stream_id) {
        handle = cudaStreamPerThread;
    } else {
        auto it = made_.find(s.id);
        // Only the flag that changes the order: non-blocking or not.
        if (it == made_.end()) it = made_.try_emplace(s.id, s.flags & cudaStreamNonBlocking).first;
        handle = it->second;
    }
    if (std::find(used_.begin(), used_.end(), handle) == used_.end()) used_.push_back(handle);
    return handle;
}

cudaEvent_t replay_streams::event(std::uint64_t id) {
    auto it = events_.find(id);
    if (it == events_.end()) it = events_.try_emplace(id, cudaEventDisableTiming).first;
    return it->second;
}

void replay_streams::start_after(cudaStream_t main) {
    go_.record(main);
    for (cudaStream_t s : used_) CUDA_CHECK(cudaStreamWaitEvent(s, go_, 0));
}

void replay_streams::join_into(cudaStream_t main) {
    while (done_.size() < used_.size()) done_.emplace_back(cudaEventDisableTiming);
    for (std::size_t i = 0; i < used_.size(); ++i) {
        done_[i].record(used_[i]);
        CUDA_CHECK(cudaStreamWaitEvent(main, done_[i], 0));
    }
}

}  // namespace course::testing
