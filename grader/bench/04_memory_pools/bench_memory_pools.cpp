// lesson04 benchmark: what an allocation costs, with three allocators:
//   pool          lesson04::memory_pool over cudaMalloc (the caching allocator)
//   cudaMalloc    cudaMalloc + cudaFree every time
//   cudaMallocAsync  lesson04::async_pool (cudaMallocFromPoolAsync / cudaFreeAsync),
//                 with a release threshold high enough that it keeps its memory
//
//   BM_alloc_free/<allocator>/<bytes>   one allocate + deallocate pair, 1 KiB to 256 MiB
//   BM_alloc_free_busy/<allocator>      the same pair (1 MiB) while a 1 ms kernel runs
//   BM_temporaries/<allocator>/<bytes>  allocate a temporary, run a kernel on it, free it;
//                                       100 times, then wait for the GPU
//
//   grader bench lesson04          (or run build/bin/lesson04_exercise_bench)
#include <chrono>
#include <cstdint>
#include <memory>

#include "async_pool.cuh"
#include "bench_kernels.hpp"
#include "course/bench.hpp"
#include "course/cuda_error.hpp"
#include "course/stream.hpp"
#include "memory_pool.cuh"

namespace {

using namespace std::chrono_literals;
using lesson04_bench::launch_spin;
using lesson04_bench::launch_write;

enum class allocator { pool, cuda_malloc, cuda_malloc_async, none };

std::unique_ptr<course::memory_resource> make(allocator kind) {
    switch (kind) {
        case allocator::pool:
            return std::make_unique<lesson04::memory_pool>();
        case allocator::cuda_malloc:
            return std::make_unique<lesson04::cuda_malloc_resource>();
        case allocator::cuda_malloc_async:
            return std::make_unique<lesson04::async_pool>(SIZE_MAX);
        case allocator::none:
            break;
    }
    return nullptr;
}

// Makes the allocator and allocates once (so the pools hold a block of this
// size); an unfinished exercise skips the benchmark instead of crashing it.
std::unique_ptr<course::memory_resource> prepare(benchmark::State& state, allocator kind, std::size_t bytes,
                                                 cudaStream_t stream) {
    try {
        auto resource = make(kind);
        resource->deallocate(resource->allocate(bytes, stream), bytes, stream);
        CUDA_CHECK(cudaStreamSynchronize(stream));
        return resource;
    } catch (const course::not_implemented& e) {
        state.SkipWithError(e.what());
        return nullptr;
    }
}

void BM_alloc_free(benchmark::State& state, allocator kind) {
    const auto bytes = static_cast<std::size_t>(state.range(0));
    course::stream stream;
    const auto resource = prepare(state, kind, bytes, stream);
    if (!resource) return;
    std::int64_t pairs = 0;
    for (auto _ : state) {
        void* p = resource->allocate(bytes, stream);
        benchmark::DoNotOptimize(p);
        resource->deallocate(p, bytes, stream);
        // cudaMallocAsync's frees are stream operations: let the stream catch
        // up now and then (one synchronisation per 1024 pairs).
        if (kind == allocator::cuda_malloc_async && ++pairs % 1024 == 0) stream.synchronize();
    }
    stream.synchronize();
    state.SetItemsProcessed(state.iterations());  // items/s: pairs per second
    state.counters["bytes"] = static_cast<double>(bytes);
}

void BM_alloc_free_busy(benchmark::State& state, allocator kind) {
    const std::size_t bytes = std::size_t{1} << 20;
    course::stream stream, busy;
    const auto resource = prepare(state, kind, bytes, stream);
    if (!resource) return;
    for (auto _ : state) {
        launch_spin(busy, 1ms);  // another stream keeps the GPU busy
        const auto start = std::chrono::steady_clock::now();
        void* p = resource->allocate(bytes, stream);
        resource->deallocate(p, bytes, stream);
        const auto end = std::chrono::steady_clock::now();
        state.SetIterationTime(std::chrono::duration<double>(end - start).count());
        busy.synchronize();
        stream.synchronize();
    }
}

void BM_temporaries(benchmark::State& state, allocator kind) {
    constexpr int batch = 100;
    const auto bytes = static_cast<std::size_t>(state.range(0));
    course::stream stream;
    // `none` is the floor: the same kernels on one buffer allocated up front.
    std::unique_ptr<course::memory_resource> resource;
    void* fixed = nullptr;
    if (kind == allocator::none) {
        resource = std::make_unique<lesson04::cuda_malloc_resource>();
        fixed = resource->allocate(bytes, stream);
    } else {
        resource = prepare(state, kind, bytes, stream);
        if (!resource) return;
    }
    for (auto _ : state) {
        for (int i = 0; i < batch; ++i) {
            void* temporary = fixed ? fixed : resource->allocate(bytes, stream);
            launch_write(stream, temporary, bytes);
            if (!fixed) resource->deallocate(temporary, bytes, stream);
        }
        stream.synchronize();
    }
    if (fixed) resource->deallocate(fixed, bytes, stream);
    state.SetItemsProcessed(state.iterations() * batch);  // items/s: temporaries per second
    state.SetBytesProcessed(state.iterations() * batch * static_cast<std::int64_t>(bytes));
    state.counters["bytes"] = static_cast<double>(bytes);
}

constexpr std::int64_t KiB = 1024;
constexpr std::int64_t MiB = 1024 * KiB;

// Registration settings; templates so they do not name Google Benchmark's
// registration class, which moved between its versions.
template <class Benchmark>
void sizes(Benchmark* b) {
    b->ArgName("bytes")->RangeMultiplier(4)->Range(KiB, 256 * MiB)->Unit(benchmark::kNanosecond);
}

template <class Benchmark>
void temporaries(Benchmark* b) {
    b->ArgName("bytes")->Arg(MiB)->Arg(64 * MiB)->UseRealTime()->Unit(benchmark::kMicrosecond);
}

// A fixed count: each iteration waits for a 1 ms kernel, and the pool's
// nanoseconds of manual time would otherwise ask for millions of them.
template <class Benchmark>
void busy(Benchmark* b) {
    b->UseManualTime()->Iterations(50)->Unit(benchmark::kMicrosecond);
}

}  // namespace

BENCHMARK_CAPTURE(BM_alloc_free, pool, allocator::pool)->Apply(sizes);
BENCHMARK_CAPTURE(BM_alloc_free, cudaMalloc, allocator::cuda_malloc)->Apply(sizes);
BENCHMARK_CAPTURE(BM_alloc_free, cudaMallocAsync, allocator::cuda_malloc_async)->Apply(sizes);

BENCHMARK_CAPTURE(BM_alloc_free_busy, pool, allocator::pool)->Apply(busy);
BENCHMARK_CAPTURE(BM_alloc_free_busy, cudaMalloc, allocator::cuda_malloc)->Apply(busy);
BENCHMARK_CAPTURE(BM_alloc_free_busy, cudaMallocAsync, allocator::cuda_malloc_async)->Apply(busy);

BENCHMARK_CAPTURE(BM_temporaries, none, allocator::none)->Apply(temporaries);
BENCHMARK_CAPTURE(BM_temporaries, pool, allocator::pool)->Apply(temporaries);
BENCHMARK_CAPTURE(BM_temporaries, cudaMalloc, allocator::cuda_malloc)->Apply(temporaries);
BENCHMARK_CAPTURE(BM_temporaries, cudaMallocAsync, allocator::cuda_malloc_async)->Apply(temporaries);
