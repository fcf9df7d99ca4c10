#pragma once
// The GPU's own record of a timed test: what ran on the GPU while the code
// under test was being called, with the GPU's start and end times.
//
// The grader's recorder (grader/recorder/gpu_recorder.cpp, a library the
// harness loads when the grader names it) collects CUPTI's activity records
// during a timed test and writes them as JSON lines:
//
//   {"record":"course-gpu-record","version":1,"nonce":"5f0c..."}
//   {"calls_followed":true,"cupti_error":0}                  the "op" lines below are there
//   {"mark":"begin","rep":0,"t":1000}                       harness: call 0 starts
//   {"api":"cudaLaunchKernel","corr":7,"start":1010,"end":1020}
//   {"kernel":"_Z6vecadd...","corr":7,"stream":13,"context":1,"start":1100,"end":1500}
//   {"copy":"HtoD","from":"pageable","to":"device","bytes":4096,"corr":9,...}
//   {"memset":"device","bytes":4096,"corr":11,...}
//   {"op":"launch","rep":0,"kernel":"_Z6vecadd...","grid":[..],"block":[..],"shared":0,
//    "args":"<hex>","pointers":[[0,<value>,<base>,<size>],...]}      what call 0 asked for,
//   {"op":"memset","rep":0,"to":[<value>,<base>,<size>],"byte":0,"bytes":4096}   in order
//   {"op":"copy","rep":0,"to":[...],"from":[...],"bytes":64,"direction":"HtoD","data":"<hex>"}
//   {"op":"event_record","rep":0,"event":<handle>,"stream":[<handle>,<flags>]}    the order
//   {"op":"stream_wait","rep":0,"event":<handle>,"stream":[<handle>,<flags>]}     between
//   {"op":"host_wait","rep":0,"on":"stream"|"event"|"device",...}                 streams
//   {"op":"unreplayable","rep":0,"why":"a launch of ... set launch attributes"}
//   {"op":"kept","rep":0,"at":[<base>,<base>,<size>],"data":"<hex>"}   device memory the call
//                     used besides its launches' results, as the call found it (no "data": too large to keep)
//   {"mark":"end","rep":0,"t":1600}                         harness: call 0 has returned
//   {"dropped":0}
//   {"complete":true}
//
// All times are CUPTI's, in nanoseconds, one clock for the host's API calls
// and the GPU's work. Work belongs to the repetition during which the API
// call that caused it was made (CUPTI's correlation id ties the two), so a
// kernel on a stream of the student's own counts, and so does work still
// running when the call returned: it is timed when it ran. A launch made
// after the call returned (by a thread the call left) belongs to no call.
//
// The file is written inside the student's process, so its parser treats it
// as untrusted input: bounded sizes, and anything malformed is no record.
// This header has no CUDA in it: the judge and the grader both read records.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace course::testing {

// The grader names its recorder and the run's nonce to the student's program
// through these variables; the judge is told the nonce too.
inline constexpr const char* gpu_recorder_variable = "COURSE_GPU_RECORDER";
inline constexpr const char* gpu_record_nonce_variable = "COURSE_GPU_RECORD_NONCE";
// A timed test's record sits beside its evidence: <evidence file> + this.
inline constexpr const char* gpu_record_suffix = ".gpu_record";

// The recorder's entry points (extern "C", found with dlsym).
inline constexpr const char* gpu_record_start_symbol = "course_gpu_record_start";
inline constexpr const char* gpu_record_mark_symbol = "course_gpu_record_mark";
inline constexpr const char* gpu_record_stop_symbol = "course_gpu_record_stop";
inline constexpr const char* gpu_record_keep_memory_symbol = "course_gpu_record_keep_memory";
// int start(const char* path, const char* nonce): 0 once recording, else CUPTI's error code.
using gpu_record_start_fn = int (*)(const char*, const char*);
// void mark(const char* what, int repetition): "begin" or "end", stamped now.
using gpu_record_mark_fn = void (*)(const char*, int);
// void keep_memory(int keep): after start, for calls the judge replays: also
// write down device memory as each call first touches it (kept_memory).
using gpu_record_keep_memory_fn = void (*)(int);
// int stop(void): flushes what the GPU did and closes the file; 0 when complete.
using gpu_record_stop_fn = int (*)();

struct gpu_activity {
    enum class kind { kernel, copy, memset };
    kind what = kind::kernel;
    std::string name;          // kernel: its (mangled) name; copy: HtoD, DtoH, DtoD, ...; memset: device, ...
    std::string from, to;      // copy: the kinds of memory (pageable, pinned, device, managed)
    std::uint64_t bytes = 0;   // copy, memset
    std::uint64_t start = 0, end = 0;
    std::uint32_t stream = 0, context = 0, correlation = 0;
    int repetition = -1;       // the call it belongs to; -1: none (made outside every call)
    std::uint64_t duration() const { return end > start ? end - start : 0; }
};

// A runtime or driver API call, on the host's clock (CUPTI's, as the GPU's).
struct gpu_api_call {
    std::string name;  // as CUPTI names it: "cudaMemcpyAsync_v3020", "cuStreamSynchronize"
    std::uint64_t start = 0, end = 0;
    std::uint32_t correlation = 0;  // the work it caused has the same
    // The name without CUPTI's version and stream suffixes: "cudaMemcpyAsync".
    std::string base_name() const { return name.substr(0, name.find('_')); }
};

// An address the call used, and the device allocation it lies in as the
// driver knew it in the student's process (base and size 0: none, so not a
// pointer into device memory: a number, a host pointer, a null).
struct recorded_address {
    std::uint64_t value = 0, base = 0, size = 0;
    bool in_device_memory() const { return size > 0 && value >= base && value - base < size; }
};

// The stream an op was queued on, as the student's program named it: 0 the
// legacy default stream, 2 the per-thread default stream (CUDA's
// cudaStreamPerThread), else the handle of a stream the program made, with
// the flags it was made with (cudaStreamNonBlocking, or 0: it waits for the
// legacy default stream, as CUDA's Programming Guide describes).
struct recorded_stream {
    std::uint64_t id = 0;
    std::uint32_t flags = 0;
};
inline constexpr std::uint64_t legacy_stream_id = 0, per_thread_stream_id = 2;

// One thing a call asked the GPU to do, as the recorder followed it
// (grader/recorder/call_ops.hpp): what the judge replays (call_replay.hpp).
// Launches, memsets and copies are the work; the order between streams is
// kept too, for lesson05's replay on the judge's own streams: an event
// recorded on a stream, a stream made to wait for one, and the host waiting
// (a synchronize, a blocking copy, a free, a query that found the work done).
struct recorded_op {
    enum class kind { launch, memset, copy, event_record, stream_wait, host_wait };
    enum class wait_on { stream, event, device };
    kind what = kind::launch;
    recorded_stream stream;     // where it was queued (a host wait on a stream: that one)
    std::uint64_t event = 0;    // event_record, stream_wait, a host wait on an event: the event's handle
    wait_on waits_for = wait_on::device;  // host_wait
    // A launch: the kernel's (mangled) name, its shape, and its arguments'
    // bytes as the kernel takes them, with each 8-byte word that points into
    // device memory (its offset in `args`, and where it points).
    std::string kernel;
    std::uint32_t grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
    std::uint32_t shared_bytes = 0;
    std::vector<std::uint8_t> args;
    std::vector<std::pair<std::size_t, recorded_address>> pointers;
    // The kernel's function attributes when it was launched, where the
    // program set them (cudaFuncSetAttribute): the dynamic shared memory it
    // may ask for (above 48 KiB only once set), and the preferred shared
    // memory carve-out in percent. The judge sets them again before its
    // replay's launch.
    std::optional<std::uint32_t> max_dynamic_shared_bytes;
    std::optional<std::uint32_t> shared_carveout_percent;
    // A memset (every byte set to `byte`) or a copy.
    recorded_address to, from;
    std::uint64_t bytes = 0;
    std::uint8_t byte = 0;
    std::string direction;           // a copy: HtoD, DtoH, DtoD, HtoH
    // An HtoD copy: the bytes it copied, up to 64 KiB; a larger one comes
    // without them, and replays only from one of the test's arrays (lesson05's
    // pinned input), which the judge fills itself.
    std::vector<std::uint8_t> data;
};

// Device memory a call used that it did not get from the test (a counter
// kept between calls, a table made once), as it was when the call first
// touched it: the recorder copies it then, up to `kept_memory_bytes` an
// allocation. The judge's replay starts with the same contents, so that
// state an honest kernel keeps between calls (a one-pass reduction's block
// counter) replays as it ran. `data` is empty where the allocation was too
// large to keep: the replay gives it a pattern instead.
struct kept_memory {
    std::uint64_t base = 0, size = 0;
    std::vector<std::uint8_t> data;
    bool kept() const { return data.size() == size && size > 0; }
};
inline constexpr std::uint64_t kept_memory_bytes = 64 * 1024;

struct gpu_repetition {
    int index = 0;
    std::uint64_t begin = 0, end = 0;   // the harness's marks: the call made, the call returned (host time)
    std::vector<gpu_activity> work;     // what the call caused, by start time
    std::vector<gpu_api_call> calls;    // the API calls made during it, by start time
    std::vector<recorded_op> ops;       // what it asked the GPU to do, in order (where calls were followed)
    std::vector<std::string> unreplayable;  // what it did that the recorder could not write down
    std::vector<kept_memory> kept;      // memory it used, as it found it (where the harness asked)
    int kernels() const;
    // From the first piece of work's start to the last one's end; 0 when none.
    std::uint64_t span() const;
};

struct gpu_record {
    std::string nonce;
    bool complete = false;           // the recorder flushed and closed it
    bool calls_followed = false;     // it holds each call's ops (CUPTI let the recorder follow API calls)
    int cupti_error = 0;             // why not, where not
    std::uint64_t dropped = 0;       // records CUPTI could not keep
    std::vector<gpu_repetition> repetitions;  // by index
    std::vector<gpu_activity> outside;        // work caused outside every call (the harness's own, say)
};

// Reads a record; nullopt (and `why_not`) when it is not one a recorder wrote.
std::optional<gpu_record> parse_gpu_record(std::string_view text, std::string& why_not);
// The same for a file; a missing or oversized file is no record.
std::optional<gpu_record> read_gpu_record(const std::string& path, std::string& why_not);

// A kernel's name as a person reads it: "_Z6vecadd..." -> "vecadd(...)".
std::string readable_kernel_name(const std::string& mangled);

}  // namespace course::testing
