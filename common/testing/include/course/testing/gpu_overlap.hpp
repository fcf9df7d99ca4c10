#pragma once
// How one call's copies and kernels shared the GPU, read from the GPU's own
// record of the call (gpu_record.hpp). lesson05's pipeline is graded by it,
// and `grader run lesson05 --timeline` draws the same record.
//
// A pipeline keeps three parts of the GPU busy at once: a copy engine moving
// data in, the SMs running kernels, and a copy engine moving data out. Each
// is a lane here. A lane is busy while at least one of its pieces of work
// runs (two kernels at once count once). Done one after another, the same
// work takes the sum of the three lanes' busy times; the overlap factor is
// that sum divided by the time the call really took on the GPU. Nothing
// overlapped gives 1; three equal lanes fully overlapped would approach 3.
//
// Host-only, like the record's parser: the judge and the grader both use it.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "course/testing/gpu_record.hpp"

namespace course::testing {

enum class gpu_lane { copy_in, kernel, copy_out, other };

// Copies from the host are "in", copies to the host "out"; memsets and
// copies within the GPU are "other" (they count in the span, in no lane).
gpu_lane lane_of(const gpu_activity& work);

struct gpu_overlap {
    std::uint64_t span = 0;  // from the call's first work's start to its last work's end, ns
    std::uint64_t copy_in = 0, kernels = 0, copy_out = 0;  // each lane's busy time, ns
    std::uint64_t idle = 0;  // time within the span when nothing at all ran, ns
    std::uint64_t bytes_in = 0, bytes_out = 0;
    int copies_in = 0, copies_out = 0, kernel_count = 0;
    int pageable_copies = 0;  // copies in or out whose host side was pageable memory
    int streams = 0;          // streams that carried a copy in, a kernel or a copy out
    // Calls that make the host wait for the GPU (a synchronize, a copy
    // without Async, a free), made after the call queued its first work and
    // before it queued its last: how many of each, by name.
    std::map<std::string, int> waits_while_queueing;

    // How many times longer the same copies and kernels would take one after
    // another than they took here: 1 when nothing overlapped.
    double factor() const;
};

gpu_overlap analyse_overlap(const gpu_repetition& call);

// What the record shows kept the work from overlapping, one sentence each:
// host memory that was pageable, a single stream, waits while queueing, the
// GPU left idle. Empty when the record shows none of them.
std::vector<std::string> what_serialised(const gpu_overlap& overlap);

}  // namespace course::testing
