#pragma once
// Lesson 06: the generic elementwise launcher. Read lessons/06_kernels/README.md first.
//
//     lesson06::elementwise({threads, stream}, op, out, input(x1), input(x2));
//
// runs out[i] = op(x1[i], x2[i]) for every i < out.size() in one kernel: the
// C++ counterpart of CuPy's ElementwiseKernel. `op` is a functor or a
// __device__ lambda, the loop body; the launcher supplies the loop, the
// indexing, the 16-byte loads and the launch.
//
// Your work here: row_broadcast (broadcasting), the two kernels (a
// grid-stride loop, then the same with 16-byte packs) and the launcher.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <type_traits>
#include <utility>

#include "course/device_span.hpp"
#include "course/error.hpp"
#include "device_helpers.cuh"

namespace lesson06 {

// How to launch: threads per block and the stream.
struct launch_config {
    unsigned threads = 256;
    cudaStream_t stream = nullptr;
};

// --- Inputs ------------------------------------------------------------------
// An input says what value it holds at index i of the output, one element at
// a time (at) or a pack at a time (load), and whether its pack loads are
// possible (vectorizable). All inputs of one launch hold the same type T as
// the output.

// An array with one element per output element: value i is data[i]. (Given:
// it is the model for row_broadcast below.)
template <class T>
struct dense_input {
    using value_type = T;
    const T* data;

    __device__ T at(std::size_t i) const { return data[i]; }
    // Elements i .. i + width - 1; i is a multiple of the pack width.
    __device__ pack<T> load(std::size_t i) const { return load_pack(data + i); }
    bool vectorizable() const { return is_aligned_16(data); }
};

// Broadcasting: a row of `cols` values repeated over every row of a
// rows x cols output, as NumPy broadcasts shape (cols,) against (rows, cols).
template <class T>
struct row_broadcast {
    using value_type = T;
    const T* row;
    std::size_t cols;

    // TODO(lesson06): the value output element i sees. The output is stored
    // row-major, cols elements a row: which column is element i in?
    __device__ T at(std::size_t i) const { return row[0]; }

    // TODO(lesson06): the pack for output elements i .. i + width - 1 (i is a
    // multiple of the width). When cols is a multiple of the width, a pack
    // never straddles two rows.
    __device__ pack<T> load(std::size_t i) const { return load_pack(row); }

    bool vectorizable() const { return cols % pack<T>::width == 0 && is_aligned_16(row); }
};

template <class T>
dense_input<T> input(course::device_span<const T> x) {
    return {x.data()};
}
template <class T>
row_broadcast<T> broadcast_row(course::device_span<const T> row) {
    return {row.data(), row.size()};
}

namespace detail {

// Given: op(loaded[0].v[k], loaded[1].v[k], ...), that is op applied to
// element k of every input's pack. The index_sequence expands to 0, 1, ...
// one per input.
template <class Op, class T, std::size_t... I>
__device__ __forceinline__ T apply_lane(const Op& op, const pack<T>* loaded, int k,
                                        std::index_sequence<I...>) {
    return static_cast<T>(op(loaded[I].v[k]...));
}

}  // namespace detail

// --- Kernels -----------------------------------------------------------------
// No __restrict__ anywhere: the output may be one of the inputs (an update in
// place such as y = f(x, y)).

// One element per step of a grid-stride loop.
template <class T, class Op, class... In>
__global__ void elementwise_kernel(Op op, course::device_span<T> out, In... in) {
    // TODO(lesson06): a grid-stride loop. Start at this thread's global index,
    // step by the number of threads in the whole grid (gridDim.x * blockDim.x),
    // stop at out.size(), and store out[i] = op(in.at(i)...) at each step.
    // Use std::size_t for i.
}

// The same with one 16-byte pack per input and per output at each step, for
// when every span is 16-byte aligned.
template <class T, class Op, class... In>
__global__ void elementwise_vector_kernel(Op op, course::device_span<T> out, In... in) {
    constexpr int width = pack<T>::width;
    // TODO(lesson06): 1. a grid-stride loop over the packs: thread t handles
    //                    elements t * width .. t * width + width - 1, then
    //                    moves on by width * (threads in the grid). Only
    //                    elements that fill a whole pack (n / width * width of
    //                    them) go this way. At each step:
    //                        const pack<T> loaded[] = {in.load(i)...};
    //                        pack<T> result;  result.v[k] = detail::apply_lane(
    //                            op, loaded, k, std::index_sequence_for<In...>{});
    //                        store_pack(out.data() + i, result);
    //                 2. the last n % width elements, one by one.
    (void)width;
}

// Up to this many waves of blocks before threads loop over several items:
// one item per thread for any size a test or benchmark uses (see grid_for).
inline constexpr unsigned elementwise_waves = 128;

// --- The launcher --------------------------------------------------------------

// out[i] = op(in.at(i)...) for every i < out.size(), launched on
// config.stream with config.threads threads a block; returns without waiting.
// Every input must cover out.size() elements (the caller checks sizes).
template <class T, class Op, class... In>
void elementwise(launch_config config, Op op, course::device_span<T> out, In... in) {
    static_assert(sizeof...(In) >= 1, "an elementwise kernel reads at least one input");
    static_assert((std::is_same_v<typename In::value_type, T> && ...),
                  "every input holds the output's element type");
    // TODO(lesson06): 1. return early when out is empty;
    //                 2. if out and every input can be read in packs
    //                    (is_aligned_16(out.data()) && (in.vectorizable() && ...)),
    //                    launch elementwise_vector_kernel<T, Op, In...>, else
    //                    elementwise_kernel<T, Op, In...>;
    //                 3. the grid: grid_for(kernel, work, config.threads, elementwise_waves)
    //                    in device_helpers.cuh (work: packs or elements);
    //                 4. check the launch: CUDA_CHECK(cudaGetLastError()).
    // Then delete the line below.
    course::todo("lesson06::elementwise in exercises/06_kernels/elementwise.cuh");
}

}  // namespace lesson06
