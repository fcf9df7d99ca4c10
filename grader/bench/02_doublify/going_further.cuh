#pragma once
// Going further: doublify at the speed of a copy (grader/bench/02_doublify).
//
// The lesson's kernel already gives each thread four rows and issues the four
// loads before the stores; what still separates it from a copy is the width
// of each access. Here a thread moves 16 bytes at a time (a float4: four
// neighbouring columns of one row), so a warp reads 512 contiguous bytes of a
// row per instruction, with a quarter of the load and store instructions for
// the same bytes, and each thread has rows_per_thread * 16 bytes in flight
// (the lesson's: 4 * 4). A float4 access must be 16-byte aligned, so that
// path needs a 16-byte aligned start and cols and pitch multiples of 4; any
// other view takes the same kernel one float at a time.
#include <cuda_runtime_api.h>

#include "course/device_span_2d.hpp"

namespace lesson02::bench {

// a(row, col) = 2 * a(row, col) for every element, in place, queued on
// `stream`, like lesson02::doublify. `rows_per_thread` is 2 or 4 (throws
// std::invalid_argument otherwise). `streaming` reads and writes with the
// evict-first cache hints (__ldcs, __stcs): each byte is used once, so it
// need not stay in L2. An empty matrix launches nothing.
void doublify_going_further(course::device_span_2d<float> a, unsigned rows_per_thread, bool streaming,
                            cudaStream_t stream = nullptr);

}  // namespace lesson02::bench
