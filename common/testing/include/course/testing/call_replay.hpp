#pragma once
// The judge's replay of one timed call: what the student's call asked the
// GPU to do (gpu_record.hpp's recorded_op, written by the grader's recorder
// in the student's process), done again in the judge's process from the
// student's own device code (student_modules.hpp), on the judge's copies of
// the test's arrays (replay_addresses.hpp). The judge times the replay, not
// the call: no code of the student's runs on the host here, so nothing can
// rewrite the clock or the record, and work done anywhere but in the
// launches, copies and memsets the call made is not in the replay at all.
//
// In order, on one stream (queue), or for lesson05's pipeline on streams of
// the judge's own, one for each of the student's, with the events and the
// host's waits that ordered them (queue_on_streams). What the replay does not
// redo: host code between the steps (a value read back and used on the host).
#include <cuda_runtime_api.h>

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "course/device_array.hpp"
#include "course/event.hpp"
#include "course/pinned_array.hpp"
#include "course/stream.hpp"
#include "course/testing/gpu_record.hpp"
#include "course/testing/replay_addresses.hpp"
#include "course/testing/student_modules.hpp"

namespace course::testing {

// Memory of the judge's own for each device allocation the call used
// outside the test's arrays (its scratch, or a counter kept from an earlier
// call): made at the first use, at most `budget_bytes` in all, and filled
// with a pattern before every replay, so that what an earlier replay left
// there is gone. What the student's call found there, where the recorder
// kept it (gpu_record.hpp's kept_memory), is copied in after the pattern
// (call_replay::start_as_recorded).
class replay_scratch {
public:
    explicit replay_scratch(std::uint64_t budget_bytes) : budget_(budget_bytes) {}
    // The judge's address for the student's allocation (base, size).
    std::uint64_t operator()(std::uint64_t base, std::uint64_t size);
    void fill_with_pattern(cudaStream_t stream);

private:
    std::uint64_t budget_, used_ = 0;
    std::map<std::pair<std::uint64_t, std::uint64_t>, device_array<std::uint8_t>> made_;
};

// Why a call could not be replayed, in words that finish "...could not be
// replayed: ".
struct replay_refused : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// The call launched a kernel the student's library does not hold (a
// library's, or one compiled while the program ran): none of the student's
// kernels did that work, so a profile of them could not explain the failure.
struct foreign_kernel_refused : replay_refused {
    using replay_refused::replay_refused;
};

// The judge's streams and events standing for the student's, for a replay
// in the recorded order between streams: one stream of the judge's own for
// each stream the student's program made, with the same flags (a stream made
// without cudaStreamNonBlocking still waits for the legacy default stream),
// the two default streams as themselves, one event for each of the
// student's. Made at their first use, before the timed part, and kept for
// every replay of the test.
class replay_streams {
public:
    cudaStream_t stream(const recorded_stream& s);
    cudaEvent_t event(std::uint64_t id);
    // Before the first op: every stream used waits for what `main` has
    // queued so far (the timer's start event).
    void start_after(cudaStream_t main);
    // After the last op: `main` waits for every stream used.
    void join_into(cudaStream_t main);

private:
    std::map<std::uint64_t, course::stream> made_;
    std::map<std::uint64_t, course::event> events_;
    std::vector<cudaStream_t> used_;
    course::event go_{cudaEventDisableTiming};
    std::vector<course::event> done_;
};

class call_replay {
public:
    call_replay(const student_modules& modules, const replay_addresses& addresses, replay_scratch& scratch)
        : modules_(modules), addresses_(addresses), scratch_(scratch) {}
    ~call_replay();
    call_replay(const call_replay&) = delete;
    call_replay& operator=(const call_replay&) = delete;

    // Makes ready every op of `call`, in order, the student's addresses moved
    // onto the judge's memory: kernels found, scratch and host memory
    // allocated (allocating may wait for the GPU, so none of it happens in
    // queue()). Throws replay_refused for an op it cannot replay faithfully
    // (a kernel that is not in the student's device code, arguments that do
    // not fit the kernel, a copy outside the memory mapped, what the
    // recorder could not follow). Call it after the modules were reloaded.
    void prepare(const gpu_repetition& call);

    // Queues copies that give the judge's scratch memory the contents the
    // student's call found in it (the record's kept memory), after
    // replay_scratch::fill_with_pattern and before queue(), outside the time.
    void start_as_recorded(cudaStream_t stream);

    // Queues what prepare() made ready on `stream`; waits for nothing.
    // Throws replay_refused where the driver refuses a launch. The order
    // between streams (events, the host's waits) is not used.
    void queue(cudaStream_t stream);

    // Makes the judge's stream and event for each of the student's the
    // prepared ops name (outside the time, before queue_on_streams).
    void make_streams(replay_streams& streams) const;
    // Queues each prepared op on the judge's stream for the student's stream
    // it went to, records and waits for events as the call did, and waits on
    // the host where the call's host waited (a synchronize, a blocking copy,
    // a free). Throws replay_refused where the driver refuses a launch.
    void queue_on_streams(replay_streams& streams);

    // Bytes of memory besides the test's arrays that the call used and the
    // recorder did not keep (allocations above kept_memory_bytes): the
    // replay starts them with a pattern, which a failure message names.
    std::uint64_t bytes_not_kept() const { return bytes_not_kept_; }

private:
    // One op, ready to queue.
    struct step {
        recorded_op::kind what = recorded_op::kind::launch;
        std::string kernel;  // a launch: its name, for messages
        student_kernel function;
        std::uint32_t grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
        std::uint32_t shared_bytes = 0;
        std::vector<std::uint8_t> args;
        void* to = nullptr;
        const void* from = nullptr;
        std::uint64_t bytes = 0;
        std::uint8_t byte = 0;
        cudaMemcpyKind direction = cudaMemcpyDeviceToDevice;
        // Where it was queued, and the order between streams.
        recorded_stream stream;
        std::uint64_t event = 0;
        recorded_op::wait_on waits_for = recorded_op::wait_on::device;
    };
    void launch(step& s, cudaStream_t stream);
    const void* host_array(const recorded_address& a, std::uint64_t bytes) const;

    // Kept memory, ready to copy in: the judge's address and the bytes.
    struct kept_copy {
        void* to = nullptr;
        std::size_t host_index = 0;  // into host_memory_
    };

    const student_modules& modules_;
    const replay_addresses& addresses_;
    replay_scratch& scratch_;
    std::vector<step> steps_;
    std::vector<kept_copy> kept_;
    std::uint64_t bytes_not_kept_ = 0;
    std::vector<pinned_array<std::uint8_t>> host_memory_;
};

// Every value of `data` made NaN, by a kernel, on `stream`: the output of a
// replay before it runs, device or pinned host memory alike.
void fill_with_nan(device_span<float> data, cudaStream_t stream);

// How many values of `got` are not `expected` within `tolerance` of
// `scale` (result_check.hpp; an empty scale: each value's own size, at
// least 1), and the first of them: the replay's output checked on the GPU,
// every element. Its memory is made once, for every replay of a test.
struct far_values {
    std::uint64_t count = 0;
    std::uint64_t first = 0;
};
class far_value_counter {
public:
    far_values count(device_span<const float> got, device_span<const float> expected, device_span<const float> scale,
                     double tolerance, cudaStream_t stream);

private:
    device_array<unsigned long long> result_{2};
    pinned_array<unsigned long long> seen_{2};
};

}  // namespace course::testing
