// The grader's recorder: a small library that the graded-test harness loads
// into the student's test program when the grader names it
// (COURSE_GPU_RECORDER). During a timed test it asks CUPTI, NVIDIA's
// profiling interface, for a record of everything the GPU did: every kernel,
// copy and memset with the GPU's own start and end times, its stream and
// context, and the API call (runtime or driver) that caused it. It writes
// that record as JSON lines (course/testing/gpu_record.hpp has the format);
// the judge reads it and takes the test's time from it, never from a timer
// the student's code could stop, skip or bracket the wrong way.
//
// Between timed tests nothing is recorded, so the correctness tests run at
// full speed. The harness calls, in order:
//   course_gpu_record_start(path, nonce)   once per timed test
//   course_gpu_record_keep_memory(1)       for a test the judge replays: memory
//                                          as each call first touches it (call_ops.hpp)
//   course_gpu_record_mark("begin", k) ... course_gpu_record_mark("end", k)
//   course_gpu_record_stop()               flushes CUPTI and closes the file
//
// During each call it also writes down what the call asked the GPU to do
// (call_ops.hpp), for the judge to replay in its own process.
#include <cupti.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "call_ops.hpp"
#include "course/testing/gpu_record.hpp"
#include "record_file.hpp"

namespace {

using nlohmann::json;
using course_recorder::write_line;

bool callbacks_registered = false;

constexpr CUpti_ActivityKind recorded_kinds[] = {
    CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
    CUPTI_ACTIVITY_KIND_MEMCPY,  CUPTI_ACTIVITY_KIND_MEMSET,
};

const char* memory_kind(std::uint8_t kind) {
    switch (kind) {
        case CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE: return "pageable";
        case CUPTI_ACTIVITY_MEMORY_KIND_PINNED: return "pinned";
        case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE: return "device";
        case CUPTI_ACTIVITY_MEMORY_KIND_ARRAY: return "array";
        case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED: return "managed";
        case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC: return "device static";
        case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC: return "managed static";
        default: return "unknown";
    }
}

const char* copy_kind(std::uint8_t kind) {
    switch (kind) {
        case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return "HtoD";
        case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return "DtoH";
        case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return "DtoD";
        case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return "HtoH";
        case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return "PtoP";
        default: return "other";
    }
}

json api_line(const CUpti_ActivityAPI& call) {
    const char* name = nullptr;
    const auto domain =
        call.kind == CUPTI_ACTIVITY_KIND_RUNTIME ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API;
    if (cuptiGetCallbackName(domain, call.cbid, &name) != CUPTI_SUCCESS || !name) name = "unknown";
    return {{"api", name}, {"corr", call.correlationId}, {"start", call.start}, {"end", call.end},
            {"thread", call.threadId}};
}

// CUPTI hands out its newest record of each kind: Kernel10 from CUDA 13.0
// (CUPTI_API_VERSION 130001), Memcpy6 from 12.8 (26); 12.4 has Kernel9 and Memcpy5.
#if CUPTI_API_VERSION >= 130000
using kernel_record = CUpti_ActivityKernel10;
#else
using kernel_record = CUpti_ActivityKernel9;
#endif
#if CUPTI_API_VERSION >= 26
using memcpy_record = CUpti_ActivityMemcpy6;
#else
using memcpy_record = CUpti_ActivityMemcpy5;
#endif

void write_activity(const CUpti_Activity* record) {
    switch (record->kind) {
        case CUPTI_ACTIVITY_KIND_RUNTIME:
        case CUPTI_ACTIVITY_KIND_DRIVER:
            write_line(api_line(*reinterpret_cast<const CUpti_ActivityAPI*>(record)));
            break;
        case CUPTI_ACTIVITY_KIND_KERNEL:
        case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
            const auto& k = *reinterpret_cast<const kernel_record*>(record);
            write_line({{"kernel", k.name ? k.name : "unknown"}, {"corr", k.correlationId}, {"stream", k.streamId},
                        {"context", k.contextId}, {"device", k.deviceId}, {"start", k.start}, {"end", k.end},
                        {"grid", {k.gridX, k.gridY, k.gridZ}}, {"block", {k.blockX, k.blockY, k.blockZ}}});
            break;
        }
        case CUPTI_ACTIVITY_KIND_MEMCPY: {
            const auto& c = *reinterpret_cast<const memcpy_record*>(record);
            write_line({{"copy", copy_kind(c.copyKind)}, {"from", memory_kind(c.srcKind)},
                        {"to", memory_kind(c.dstKind)}, {"bytes", c.bytes}, {"corr", c.correlationId},
                        {"stream", c.streamId}, {"context", c.contextId}, {"start", c.start}, {"end", c.end}});
            break;
        }
        case CUPTI_ACTIVITY_KIND_MEMSET: {
            const auto& m = *reinterpret_cast<const CUpti_ActivityMemset4*>(record);
            write_line({{"memset", memory_kind(static_cast<std::uint8_t>(m.memoryKind))}, {"bytes", m.bytes},
                        {"corr", m.correlationId}, {"stream", m.streamId}, {"context", m.contextId},
                        {"start", m.start}, {"end", m.end}});
            break;
        }
        default:
            break;
    }
}

constexpr std::size_t buffer_bytes = std::size_t{4} << 20;
constexpr std::size_t buffer_alignment = 8;

void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
    *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(buffer_alignment, buffer_bytes));
    *size = *buffer ? buffer_bytes : 0;
    *max_records = 0;  // as many as fit
}

void CUPTIAPI buffer_completed(CUcontext context, std::uint32_t stream, std::uint8_t* buffer, std::size_t,
                               std::size_t valid) {
    CUpti_Activity* record = nullptr;
    while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) write_activity(record);
    std::size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(context, stream, &dropped) == CUPTI_SUCCESS && dropped > 0)
        write_line({{"dropped", dropped}});
    std::free(buffer);
}

}  // namespace

extern "C" {

int course_gpu_record_start(const char* path, const char* nonce) {
    if (!callbacks_registered) {
        if (const CUptiResult r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
            r != CUPTI_SUCCESS)
            return static_cast<int>(r);
        callbacks_registered = true;
    }
    if (!course_recorder::open_record(path)) return -1;
    write_line({{"record", "course-gpu-record"}, {"version", 1}, {"nonce", nonce ? nonce : ""}});
    for (const CUpti_ActivityKind kind : recorded_kinds)
        if (const CUptiResult r = cuptiActivityEnable(kind); r != CUPTI_SUCCESS) return static_cast<int>(r);
    // Without the API calls (another CUPTI subscriber, a profiler, holds
    // them) the record says so, and the judge has nothing to replay.
    const int followed = course_recorder::follow_calls();
    write_line({{"calls_followed", followed == 0}, {"cupti_error", followed}});
    return 0;
}

void course_gpu_record_mark(const char* what, int repetition) {
    const std::string mark = what ? what : "";
    // The end mark comes as the call returns: a launch after it is none of
    // the call's; the begin mark comes before the call's first API call.
    if (mark == "end") course_recorder::set_current_call(-1);
    std::uint64_t now = 0;
    cuptiGetTimestamp(&now);
    write_line({{"mark", mark}, {"rep", repetition}, {"t", now}});
    if (mark == "begin") course_recorder::set_current_call(repetition);
}

void course_gpu_record_keep_memory(int keep) { course_recorder::keep_memory(keep != 0); }

int course_gpu_record_stop() {
    // Forced: buffers still being filled are handed over too.
    course_recorder::keep_memory(false);
    course_recorder::stop_following_calls();
    const CUptiResult flushed = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    for (const CUpti_ActivityKind kind : recorded_kinds) cuptiActivityDisable(kind);
    if (flushed == CUPTI_SUCCESS) write_line({{"complete", true}});
    course_recorder::close_record();
    return flushed == CUPTI_SUCCESS ? 0 : static_cast<int>(flushed);
}

}  // extern "C"
