#pragma once
// pipeline_trace: when each copy and kernel of a pipeline really ran, measured
// on the GPU with a pair of events around every step. It is given to you, not
// graded; the benchmark uses it to write a timeline you can draw as a Gantt
// chart (`grader plot FILE --kind timeline`).
//
// In pipelined_transform, queue each step through traced():
//
//   lesson05::traced(trace, lesson05::step::h2d, s, chunk, stream, [&] {
//       CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream));
//   });
//
// With trace == nullptr (the graded tests) traced() just runs the lambda.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

#include "course/event.hpp"

namespace lesson05 {

enum class step { h2d, kernel, d2h };

inline const char* step_name(step kind) {
    switch (kind) {
        case step::h2d: return "h2d";
        case step::kernel: return "kernel";
        case step::d2h: return "d2h";
    }
    return "?";
}

class pipeline_trace {
public:
    // One step as it ran: milliseconds from the earliest start in the trace.
    struct span {
        int stream;
        step kind;
        int chunk;
        double start_ms;
        double end_ms;
    };

    // Records an event on `stream` before the step; returns its number for end().
    std::size_t begin(step kind, int stream_index, int chunk, cudaStream_t stream) {
        records_.push_back({kind, stream_index, chunk, course::event{}, course::event{}});
        records_.back().start.record(stream);
        return records_.size() - 1;
    }
    // Records the matching event after the step, on the same stream.
    void end(std::size_t id, cudaStream_t stream) { records_.at(id).stop.record(stream); }

    // Every step's start and end. Call once the pipeline has finished (events
    // can only be read after they completed). Times count from the earliest
    // start, so the first step starts at 0.
    std::vector<span> spans() const {
        std::vector<span> out;
        if (records_.empty()) return out;
        const course::event& origin = records_.front().start;
        for (const auto& r : records_) {
            out.push_back({r.stream, r.kind, r.chunk, r.start.since(origin).count(),
                           r.stop.since(origin).count()});
        }
        // Other streams' first steps may start a hair before stream 0's.
        double earliest = 0;
        for (const auto& s : out) earliest = std::min(earliest, s.start_ms);
        for (auto& s : out) {
            s.start_ms -= earliest;
            s.end_ms -= earliest;
        }
        return out;
    }

    std::size_t size() const noexcept { return records_.size(); }
    void clear() { records_.clear(); }

private:
    struct record {
        step kind;
        int stream;
        int chunk;
        course::event start;
        course::event stop;
    };
    std::vector<record> records_;
};

// Calls issue() (which queues one step on `stream`) between a pair of trace
// events, or simply calls it when there is no trace.
template <class Issue>
void traced(pipeline_trace* trace, step kind, int stream_index, int chunk, cudaStream_t stream,
            Issue&& issue) {
    if (trace == nullptr) {
        std::forward<Issue>(issue)();
        return;
    }
    const std::size_t id = trace->begin(kind, stream_index, chunk, stream);
    std::forward<Issue>(issue)();
    trace->end(id, stream);
}

}  // namespace lesson05
