#include "call_ops.hpp"

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cupti.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "course/testing/gpu_record.hpp"
#include "course/testing/param_layout.hpp"
#include "record_file.hpp"

namespace course_recorder {

namespace {

using nlohmann::json;

std::atomic<int> current_call{-1};
CUpti_SubscriberHandle subscriber = nullptr;
// The runtime launches through the driver, which gives the kernel's handle
// and so its arguments' layout: launches are written from the driver's
// callback. A runtime launch the driver's callback did not follow is said
// to be unreplayable, never lost.
thread_local bool runtime_launch_pending = false;
// How deep this thread is in runtime calls: the runtime does its work
// through the driver, and those driver calls are its, not the student's.
thread_local int runtime_depth = 0;

// HtoD copies up to this size are kept whole in the record; the judge copies
// the same bytes. A larger one is written without them.
constexpr std::size_t kept_copy_bytes = 64 * 1024;

// The recorder's own driver calls (copying memory a call keeps) are none of
// the student's: the callbacks they cause are ignored.
thread_local bool recorders_own_call = false;

// Device memory as each call first touches it (course_gpu_record_keep_memory):
// the allocations touched so far in the call in progress, and how many bytes
// were copied for it. At most kept_memory_bytes an allocation (the parser's
// limit) and kept_call_bytes a call, so that a record stays small.
constexpr std::uint64_t kept_call_bytes = 1024 * 1024;
std::atomic<bool> keeping_memory{false};
std::mutex touched_lock;
std::set<std::uint64_t> touched;  // allocations' bases
std::uint64_t kept_this_call = 0;

std::string hex(const void* data, std::size_t size) {
    static const char digits[] = "0123456789abcdef";
    const auto* bytes = static_cast<const unsigned char*>(data);
    std::string text(2 * size, '0');
    for (std::size_t i = 0; i < size; ++i) {
        text[2 * i] = digits[bytes[i] >> 4];
        text[2 * i + 1] = digits[bytes[i] & 15];
    }
    return text;
}

// [value, base, size] of the device allocation `value` points into, or
// [value, 0, 0] where the driver knows no device memory there (a number, a
// host pointer, a null).
json where(std::uint64_t value) {
    CUdeviceptr base = 0;
    std::size_t size = 0;
    unsigned int memory_type = 0;
    CUpointer_attribute attributes[] = {CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, CU_POINTER_ATTRIBUTE_RANGE_SIZE,
                                        CU_POINTER_ATTRIBUTE_MEMORY_TYPE};
    void* results[] = {&base, &size, &memory_type};
    if (value == 0 || cuPointerGetAttributes(3, attributes, results, static_cast<CUdeviceptr>(value)) != CUDA_SUCCESS ||
        memory_type != CU_MEMORYTYPE_DEVICE || size == 0)
        return json::array({value, 0, 0});
    return json::array({value, static_cast<std::uint64_t>(base), static_cast<std::uint64_t>(size)});
}

void write_op(json op) {
    op["rep"] = current_call.load();
    write_line(op);
}

void unreplayable(const std::string& why) { write_op({{"op", "unreplayable"}, {"why", why}}); }

// [id, flags] of the stream an op went to (gpu_record.hpp's recorded_stream):
// the null stream is the legacy default stream, or the per-thread one in a
// call made per thread (a _ptsz or _ptds entry point).
json stream_of(CUstream stream, bool per_thread) {
    using course::testing::legacy_stream_id;
    using course::testing::per_thread_stream_id;
    if (stream == nullptr) return json::array({per_thread ? per_thread_stream_id : legacy_stream_id, 0});
    if (stream == CU_STREAM_LEGACY) return json::array({legacy_stream_id, 0});
    if (stream == CU_STREAM_PER_THREAD) return json::array({per_thread_stream_id, 0});
    unsigned int flags = 0;
    if (cuStreamGetFlags(stream, &flags) != CUDA_SUCCESS) flags = 0;
    return json::array({reinterpret_cast<std::uint64_t>(stream), flags});
}

std::uint64_t event_id(const void* event) { return reinterpret_cast<std::uint64_t>(event); }

// The order between streams, for lesson05's replay on the judge's own streams.
void write_event_record(const void* event, CUstream stream, bool per_thread) {
    write_op({{"op", "event_record"}, {"event", event_id(event)}, {"stream", stream_of(stream, per_thread)}});
}
void write_stream_wait(CUstream stream, const void* event, bool per_thread) {
    write_op({{"op", "stream_wait"}, {"event", event_id(event)}, {"stream", stream_of(stream, per_thread)}});
}
// The host waited here for a stream, an event or the whole device: the
// student's host queued nothing more until that work was done.
void write_host_wait_for_stream(CUstream stream, bool per_thread) {
    write_op({{"op", "host_wait"}, {"on", "stream"}, {"stream", stream_of(stream, per_thread)}});
}
void write_host_wait_for_event(const void* event) {
    write_op({{"op", "host_wait"}, {"on", "event"}, {"event", event_id(event)}});
}
void write_host_wait_for_device() { write_op({{"op", "host_wait"}, {"on", "device"}}); }

// The bytes of device memory [base, base + size), copied on a stream of the
// recorder's own that waits for no other: nothing the call queued before
// touches this allocation (it is its first touch in the call), and the
// harness waited for the whole device before the call began, so what is
// copied is what the call found. Empty if the copy failed.
std::vector<unsigned char> copy_of(std::uint64_t base, std::uint64_t size) {
    std::vector<unsigned char> bytes(size);
    recorders_own_call = true;
    CUstream own = nullptr;
    bool copied = cuStreamCreate(&own, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS;
    copied = copied && cuMemcpyDtoHAsync(bytes.data(), static_cast<CUdeviceptr>(base), size, own) == CUDA_SUCCESS;
    copied = copied && cuStreamSynchronize(own) == CUDA_SUCCESS;
    if (own) cuStreamDestroy(own);
    recorders_own_call = false;
    if (!copied) bytes.clear();
    return bytes;
}

// Whether `base` was allocated from a memory pool (cudaMallocAsync): such
// memory exists in stream order, so the recorder's own stream may not read
// it; it is written down without its bytes.
bool stream_ordered(std::uint64_t base) {
    CUmemoryPool pool = nullptr;
    return cuPointerGetAttribute(&pool, CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, static_cast<CUdeviceptr>(base)) ==
               CUDA_SUCCESS &&
           pool != nullptr;
}

// Writes the allocation `place` ([value, base, size]) lies in as the call
// first touched it: a "kept" line with its bytes, or without them where it
// is too large or stream-ordered. Touched again later in the call, it is
// not written again.
void keep_first_touch(const json& place) {
    if (!keeping_memory.load()) return;
    const auto base = place[1].get<std::uint64_t>(), size = place[2].get<std::uint64_t>();
    if (size == 0) return;
    bool keep_bytes = false;
    {
        std::lock_guard<std::mutex> guard(touched_lock);
        if (!touched.insert(base).second) return;
        keep_bytes = size <= course::testing::kept_memory_bytes && kept_this_call + size <= kept_call_bytes &&
                     !stream_ordered(base);
        if (keep_bytes) kept_this_call += size;
    }
    json line{{"op", "kept"}, {"at", json::array({base, base, size})}};
    if (keep_bytes) {
        const auto bytes = copy_of(base, size);
        if (!bytes.empty()) line["data"] = hex(bytes.data(), bytes.size());
    }
    write_op(std::move(line));
}

// The function attributes a program sets on a kernel before launching it
// (cudaFuncSetAttribute): written with the launch, for the judge to set on
// its own copy. A kernel of the program's own comes as a CUkernel, whose
// attributes are per device; a module loaded by hand gives a CUfunction.
void add_function_attributes(CUfunction function, json& launch) {
    auto read = [&](CUfunction_attribute attribute, int& value) {
        if (cuFuncGetAttribute(&value, attribute, function) == CUDA_SUCCESS) return true;
        CUdevice device = 0;
        return cuCtxGetDevice(&device) == CUDA_SUCCESS &&
               cuKernelGetAttribute(&value, attribute, reinterpret_cast<CUkernel>(function), device) == CUDA_SUCCESS;
    };
    int shared = 0, carveout = -1;
    if (read(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, shared) && shared > 0)
        launch["max_dynamic_shared"] = shared;
    // -1: none preferred (the default).
    if (read(CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, carveout) && carveout >= 0)
        launch["carveout"] = carveout;
}

using course::testing::param_layout;
using course::testing::read_param_layout;

// The runtime launches a kernel of a program's own through the handle it
// registered, a CUkernel (seen on the H200 with CUDA 13: cuFuncGetParamInfo
// says CUDA_ERROR_INVALID_HANDLE for it, cuKernelGetParamInfo reads it); a
// module loaded by hand gives a CUfunction. The driver checks the handle's
// kind, so asking both is safe.
CUresult layout_of(CUfunction function, param_layout& layout) {
    const CUresult as_function = read_param_layout(&cuFuncGetParamInfo, function, layout);
    if (as_function != CUDA_ERROR_INVALID_HANDLE) return as_function;
    return read_param_layout(&cuKernelGetParamInfo, reinterpret_cast<CUkernel>(function), layout);
}

// The bytes of a launch's arguments, laid out as the kernel takes them, and
// every 8-byte word in them that points into device memory.
void write_launch(CUfunction function, const char* name, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                  unsigned by, unsigned bz, unsigned shared, void** params, void** extra, json stream) {
    std::vector<unsigned char> args;
    int layout_error = 0;  // where no parameter could be read: a kernel that takes none, or a handle the call does not know
    if (params) {
        param_layout layout;
        const CUresult r = layout_of(function, layout);
        if (layout.empty()) layout_error = static_cast<int>(r);
        if (layout.empty() && r != CUDA_SUCCESS && r != CUDA_ERROR_INVALID_VALUE)
            return unreplayable(std::string("the layout of ") + (name ? name : "a kernel") +
                                "'s arguments could not be read (CUDA error " + std::to_string(r) + ")");
        for (const auto& [offset, size] : layout) {
            if (args.size() < offset + size) args.resize(offset + size);
        }
        for (std::size_t i = 0; i < layout.size(); ++i)
            std::memcpy(args.data() + layout[i].first, params[i], layout[i].second);
    } else if (extra) {
        // {CU_LAUNCH_PARAM_BUFFER_POINTER, p, CU_LAUNCH_PARAM_BUFFER_SIZE, &n, CU_LAUNCH_PARAM_END}
        const void* buffer = nullptr;
        std::size_t size = 0;
        for (std::size_t i = 0; extra[i] != CU_LAUNCH_PARAM_END && i < 16; i += 2) {
            if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER) buffer = extra[i + 1];
            if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE) size = *static_cast<const std::size_t*>(extra[i + 1]);
        }
        if (!buffer)
            return unreplayable(std::string("a launch of ") + (name ? name : "a kernel") +
                                " passed its arguments in a way the recorder does not read");
        args.assign(static_cast<const unsigned char*>(buffer), static_cast<const unsigned char*>(buffer) + size);
    }
    json pointers = json::array();
    for (std::size_t at = 0; at + 8 <= args.size(); at += 8) {
        std::uint64_t word = 0;
        std::memcpy(&word, args.data() + at, 8);
        json place = where(word);
        if (place[2].get<std::uint64_t>() > 0) {
            keep_first_touch(place);
            pointers.push_back({at, place[0], place[1], place[2]});
        }
    }
    json launch{{"op", "launch"},
                {"kernel", name ? name : ""},
                {"grid", {gx, gy, gz}},
                {"block", {bx, by, bz}},
                {"shared", shared},
                {"args", hex(args.data(), args.size())},
                {"pointers", pointers},
                {"layout_error", layout_error},
                {"stream", std::move(stream)}};
    add_function_attributes(function, launch);
    write_op(std::move(launch));
}

// Launch attributes change how a kernel runs (clusters, priorities, the L2
// window); the replay launches plainly, so a launch that set any is not
// replayed.
bool plain(unsigned attributes, const char* name) {
    if (attributes == 0) return true;
    unreplayable(std::string("a launch of ") + (name ? name : "a kernel") + " set launch attributes");
    return false;
}

const char* direction(cudaMemcpyKind kind, const void* to, const void* from) {
    auto device = [](const void* p) { return where(reinterpret_cast<std::uint64_t>(p))[2].get<std::uint64_t>() > 0; };
    if (kind == cudaMemcpyDefault) kind = device(to) ? (device(from) ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice)
                                                     : (device(from) ? cudaMemcpyDeviceToHost : cudaMemcpyHostToHost);
    switch (kind) {
        case cudaMemcpyHostToDevice: return "HtoD";
        case cudaMemcpyDeviceToHost: return "DtoH";
        case cudaMemcpyDeviceToDevice: return "DtoD";
        default: return "HtoH";
    }
}

void write_copy(void* to, const void* from, std::size_t bytes, cudaMemcpyKind kind, json stream) {
    const std::string way = direction(kind, to, from);
    const json target = where(reinterpret_cast<std::uint64_t>(to)), source = where(reinterpret_cast<std::uint64_t>(from));
    keep_first_touch(source);
    keep_first_touch(target);
    json op{{"op", "copy"},
            {"to", target},
            {"from", source},
            {"bytes", bytes},
            {"direction", way},
            {"stream", std::move(stream)}};
    // A larger one goes without its bytes: the judge replays it only from
    // one of the test's arrays (lesson05's pinned input), which it fills.
    if (way == "HtoD" && bytes <= kept_copy_bytes) op["data"] = hex(from, bytes);
    write_op(std::move(op));
}

void write_memset(void* to, int value, std::size_t bytes, json stream) {
    const json target = where(reinterpret_cast<std::uint64_t>(to));
    keep_first_touch(target);  // a memset of part of it leaves the rest as it was
    write_op({{"op", "memset"}, {"to", target}, {"byte", value & 0xff}, {"bytes", bytes}, {"stream", std::move(stream)}});
}

bool is_runtime_launch(CUpti_CallbackId id) {
    return id == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000 ||
           id == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000 ||
           id == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060 ||
           id == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060;
}

// Calls that move memory or start work, which the replay would have to
// redo, but which the recorder does not write down (2D and 3D copies, copies
// to symbols and peers, graphs, cooperative launches): a call that makes one
// is not replayed, and says so.
bool moves_memory_or_starts_work(const char* name) {
    if (!name) return false;
    const std::string_view n(name);
    for (const std::string_view prefix : {"cudaMemcpy", "cudaMemset", "cudaLaunch", "cudaGraphLaunch", "cuMemcpy",
                                          "cuMemset", "cuLaunch", "cuGraphLaunch"})
        if (n.substr(0, prefix.size()) == prefix) return true;
    return false;
}

bool is_followed_runtime_call(CUpti_CallbackId id);

void on_runtime(CUpti_CallbackId id, const CUpti_CallbackData& call) {
    if (recorders_own_call) return;
    if (call.callbackSite == CUPTI_API_ENTER) ++runtime_depth;
    if (call.callbackSite == CUPTI_API_EXIT && runtime_depth > 0) --runtime_depth;
    if (current_call.load() < 0) return;
    if (!is_followed_runtime_call(id)) {
        if (call.callbackSite == CUPTI_API_ENTER && moves_memory_or_starts_work(call.functionName))
            unreplayable(std::string("the call used ") + call.functionName + ", which the replay does not redo");
        return;
    }
    if (is_runtime_launch(id)) {
        if (call.callbackSite == CUPTI_API_ENTER) {
            runtime_launch_pending = true;
        } else if (runtime_launch_pending) {
            runtime_launch_pending = false;
            // A launch the runtime refused (2048 threads) made no work to replay.
            if (call.functionReturnValue && *static_cast<const cudaError_t*>(call.functionReturnValue) != cudaSuccess)
                return;
            unreplayable(std::string("the recorder did not see how ") + (call.symbolName ? call.symbolName : "a kernel") +
                         " was launched");
        }
        return;
    }
    const void* p = call.functionParams;
    if (call.callbackSite == CUPTI_API_EXIT) {
        // A query that found the work done: the host saw it finish before it
        // went on, as after a synchronize. (The _ptsz entry points take the
        // same parameters as the plain ones.)
        const bool done =
            call.functionReturnValue && *static_cast<const cudaError_t*>(call.functionReturnValue) == cudaSuccess;
        if (done && id == CUPTI_RUNTIME_TRACE_CBID_cudaEventQuery_v3020)
            write_host_wait_for_event(static_cast<const cudaEventQuery_v3020_params*>(p)->event);
        if (done && (id == CUPTI_RUNTIME_TRACE_CBID_cudaStreamQuery_v3020 ||
                     id == CUPTI_RUNTIME_TRACE_CBID_cudaStreamQuery_ptsz_v7000))
            write_host_wait_for_stream(static_cast<const cudaStreamQuery_v3020_params*>(p)->stream,
                                       id == CUPTI_RUNTIME_TRACE_CBID_cudaStreamQuery_ptsz_v7000);
        return;
    }
    switch (id) {
        case CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020:
        case CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_ptsz_v7000: {
            const auto& a = *static_cast<const cudaMemsetAsync_v3020_params*>(p);
            return write_memset(a.devPtr, a.value, a.count,
                                stream_of(a.stream, id == CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_ptsz_v7000));
        }
        case CUPTI_RUNTIME_TRACE_CBID_cudaMemset_v3020:
        case CUPTI_RUNTIME_TRACE_CBID_cudaMemset_ptds_v7000: {
            const auto& a = *static_cast<const cudaMemset_v3020_params*>(p);
            return write_memset(a.devPtr, a.value, a.count,
                                stream_of(nullptr, id == CUPTI_RUNTIME_TRACE_CBID_cudaMemset_ptds_v7000));
        }
        case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020:
        case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000: {
            const auto& a = *static_cast<const cudaMemcpyAsync_v3020_params*>(p);
            return write_copy(a.dst, a.src, a.count, a.kind,
                              stream_of(a.stream, id == CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000));
        }
        case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020:
        case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_ptds_v7000: {
            // On the default stream, and the host waits for it.
            const auto& a = *static_cast<const cudaMemcpy_v3020_params*>(p);
            const bool per_thread = id == CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_ptds_v7000;
            write_copy(a.dst, a.src, a.count, a.kind, stream_of(nullptr, per_thread));
            return write_host_wait_for_stream(nullptr, per_thread);
        }
        case CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020:
        case CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_ptsz_v7000: {
            const auto& a = *static_cast<const cudaEventRecord_v3020_params*>(p);
            return write_event_record(a.event, a.stream, id == CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_ptsz_v7000);
        }
        case CUPTI_RUNTIME_TRACE_CBID_cudaEventRecordWithFlags_v11010:
        case CUPTI_RUNTIME_TRACE_CBID_cudaEventRecordWithFlags_ptsz_v11010: {
            const auto& a = *static_cast<const cudaEventRecordWithFlags_v11010_params*>(p);
            return write_event_record(a.event, a.stream,
                                      id == CUPTI_RUNTIME_TRACE_CBID_cudaEventRecordWithFlags_ptsz_v11010);
        }
        case CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020:
        case CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_ptsz_v7000: {
            const auto& a = *static_cast<const cudaStreamWaitEvent_v3020_params*>(p);
            return write_stream_wait(a.stream, a.event, id == CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_ptsz_v7000);
        }
        case CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020:
        case CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_ptsz_v7000: {
            const auto& a = *static_cast<const cudaStreamSynchronize_v3020_params*>(p);
            return write_host_wait_for_stream(a.stream, id == CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_ptsz_v7000);
        }
        case CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020:
            return write_host_wait_for_event(static_cast<const cudaEventSynchronize_v3020_params*>(p)->event);
        // A free waits for the whole device (the Programming Guide's implicit synchronization).
        case CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020:
        case CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020:
        case CUPTI_RUNTIME_TRACE_CBID_cudaFreeHost_v3020: return write_host_wait_for_device();
        default: return;
    }
}

// The student's own driver calls that order work between streams or make
// the host wait (the runtime's, made inside a runtime call, are not).
void on_driver_order(CUpti_CallbackId id, const CUpti_CallbackData& call) {
    const void* p = call.functionParams;
    if (call.callbackSite == CUPTI_API_EXIT) {
        const bool done = call.functionReturnValue && *static_cast<const CUresult*>(call.functionReturnValue) == CUDA_SUCCESS;
        if (done && id == CUPTI_DRIVER_TRACE_CBID_cuEventQuery)
            write_host_wait_for_event(static_cast<const cuEventQuery_params*>(p)->hEvent);
        if (done && (id == CUPTI_DRIVER_TRACE_CBID_cuStreamQuery || id == CUPTI_DRIVER_TRACE_CBID_cuStreamQuery_ptsz))
            write_host_wait_for_stream(static_cast<const cuStreamQuery_params*>(p)->hStream,
                                       id == CUPTI_DRIVER_TRACE_CBID_cuStreamQuery_ptsz);
        return;
    }
    switch (id) {
        case CUPTI_DRIVER_TRACE_CBID_cuEventRecord:
        case CUPTI_DRIVER_TRACE_CBID_cuEventRecord_ptsz: {
            const auto& a = *static_cast<const cuEventRecord_params*>(p);
            return write_event_record(a.hEvent, a.hStream, id == CUPTI_DRIVER_TRACE_CBID_cuEventRecord_ptsz);
        }
        case CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags:
        case CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags_ptsz: {
            const auto& a = *static_cast<const cuEventRecordWithFlags_params*>(p);
            return write_event_record(a.hEvent, a.hStream, id == CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags_ptsz);
        }
        case CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent:
        case CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent_ptsz: {
            const auto& a = *static_cast<const cuStreamWaitEvent_params*>(p);
            return write_stream_wait(a.hStream, a.hEvent, id == CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent_ptsz);
        }
        case CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize:
        case CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz:
            return write_host_wait_for_stream(static_cast<const cuStreamSynchronize_params*>(p)->hStream,
                                              id == CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz);
        case CUPTI_DRIVER_TRACE_CBID_cuEventSynchronize:
            return write_host_wait_for_event(static_cast<const cuEventSynchronize_params*>(p)->hEvent);
        case CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize: return write_host_wait_for_device();
        default: return;
    }
}

void on_driver(CUpti_CallbackId id, const CUpti_CallbackData& call) {
    if (recorders_own_call || current_call.load() < 0) return;
    if (runtime_depth == 0) on_driver_order(id, call);
    if (call.callbackSite != CUPTI_API_ENTER) return;
    const void* p = call.functionParams;
    switch (id) {
        case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
        case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz: {
            runtime_launch_pending = false;  // followed here
            const auto& a = *static_cast<const cuLaunchKernel_params*>(p);
            return write_launch(a.f, call.symbolName, a.gridDimX, a.gridDimY, a.gridDimZ, a.blockDimX, a.blockDimY,
                                a.blockDimZ, a.sharedMemBytes, a.kernelParams, a.extra,
                                stream_of(a.hStream, id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz));
        }
        case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
        case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
            runtime_launch_pending = false;  // followed here
            const auto& a = *static_cast<const cuLaunchKernelEx_params*>(p);
            if (!plain(a.config->numAttrs, call.symbolName)) return;
            return write_launch(a.f, call.symbolName, a.config->gridDimX, a.config->gridDimY, a.config->gridDimZ,
                                a.config->blockDimX, a.config->blockDimY, a.config->blockDimZ,
                                a.config->sharedMemBytes, a.kernelParams, a.extra,
                                stream_of(a.config->hStream, id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz));
        }
        default:
            // The student's own driver calls (not the runtime's doing).
            if (runtime_depth == 0 && moves_memory_or_starts_work(call.functionName))
                unreplayable(std::string("the call used ") + call.functionName + ", which the replay does not redo");
            return;
    }
}

void CUPTIAPI on_api_call(void*, CUpti_CallbackDomain domain, CUpti_CallbackId id, const void* data) {
    const auto& call = *static_cast<const CUpti_CallbackData*>(data);
    if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) on_runtime(id, call);
    if (domain == CUPTI_CB_DOMAIN_DRIVER_API) on_driver(id, call);
}

constexpr CUpti_CallbackId runtime_calls[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,       CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,   CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020,        CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemset_v3020,             CUPTI_RUNTIME_TRACE_CBID_cudaMemset_ptds_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020,        CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020,             CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_ptds_v7000,
    // The order between streams, and the host's waits.
    CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020,        CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaEventRecordWithFlags_v11010, CUPTI_RUNTIME_TRACE_CBID_cudaEventRecordWithFlags_ptsz_v11010,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020,    CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020,  CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020,   CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamQuery_v3020,        CUPTI_RUNTIME_TRACE_CBID_cudaStreamQuery_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaEventQuery_v3020,         CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaFreeHost_v3020,
};

bool is_followed_runtime_call(CUpti_CallbackId id) {
    for (const CUpti_CallbackId followed : runtime_calls)
        if (id == followed) return true;
    return false;
}

}  // namespace

int follow_calls() {
    if (subscriber) return 0;
    if (const CUptiResult r = cuptiSubscribe(&subscriber, on_api_call, nullptr); r != CUPTI_SUCCESS) {
        subscriber = nullptr;
        return static_cast<int>(r);
    }
    // Every call, so that what the recorder does not follow is noticed
    // (moves_memory_or_starts_work); outside the timed calls each returns at once.
    for (const CUpti_CallbackDomain domain : {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_CB_DOMAIN_DRIVER_API})
        if (const CUptiResult r = cuptiEnableDomain(1, subscriber, domain); r != CUPTI_SUCCESS)
            return static_cast<int>(r);
    return 0;
}

void stop_following_calls() {
    current_call = -1;
    if (subscriber) cuptiUnsubscribe(subscriber);
    subscriber = nullptr;
}

void set_current_call(int repetition) {
    {
        std::lock_guard<std::mutex> guard(touched_lock);
        touched.clear();
        kept_this_call = 0;
    }
    current_call = repetition;
}

void keep_memory(bool keep) { keeping_memory = keep; }

}  // namespace course_recorder
