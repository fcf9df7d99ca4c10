#include "course/testing/guard_paged.hpp"

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>
#include <utility>

#include "course/driver_error.hpp"
#include "driver_function.hpp"

namespace course::testing {

namespace {

// The driver's virtual memory functions (driver_function.hpp: no test
// program links libcuda).
using detail::driver_function;

struct vmm {
    decltype(&cuMemGetAllocationGranularity) granularity =
        driver_function<decltype(&cuMemGetAllocationGranularity)>("cuMemGetAllocationGranularity");
    decltype(&cuMemAddressReserve) reserve = driver_function<decltype(&cuMemAddressReserve)>("cuMemAddressReserve");
    decltype(&cuMemAddressFree) free_address = driver_function<decltype(&cuMemAddressFree)>("cuMemAddressFree");
    decltype(&cuMemCreate) create = driver_function<decltype(&cuMemCreate)>("cuMemCreate");
    decltype(&cuMemRelease) release = driver_function<decltype(&cuMemRelease)>("cuMemRelease");
    decltype(&cuMemMap) map = driver_function<decltype(&cuMemMap)>("cuMemMap");
    decltype(&cuMemUnmap) unmap = driver_function<decltype(&cuMemUnmap)>("cuMemUnmap");
    decltype(&cuMemSetAccess) set_access = driver_function<decltype(&cuMemSetAccess)>("cuMemSetAccess");
};

const vmm& driver() {
    static const vmm functions;
    return functions;
}

std::size_t round_up(std::size_t n, std::size_t to) { return (n + to - 1) / to * to; }

}  // namespace

void note_guarded_input(const guarded_input_entry& entry) {
    const char* path = std::getenv(input_map_variable);
    if (path == nullptr || *path == '\0') return;
    const nlohmann::json line{{"name", std::string(entry.name)},
                              {"first", reinterpret_cast<std::uintptr_t>(entry.first)},
                              {"element_bytes", entry.element_bytes},
                              {"rows", entry.rows},
                              {"cols", entry.cols},
                              {"pitch", entry.pitch},
                              {"matrix", entry.matrix},
                              {"guard", {entry.guard.begin, entry.guard.end}}};
    // Appended and closed at once: the kernel that reads the guard may end the process.
    std::ofstream(path, std::ios::app) << line.dump() << '\n';
}

guard_paged_memory::guard_paged_memory(std::size_t bytes, guard_side side, std::size_t alignment) : bytes_(bytes) {
    if (bytes == 0) return;
    const vmm& d = driver();
    // cudaFree(nullptr) makes the runtime's context current, which the
    // driver calls below work in.
    CUDA_CHECK(cudaFree(nullptr));
    int device = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUmemAllocationProp prop{};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = device;
    std::size_t granularity = 0;
    CU_CHECK(d.granularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    mapped_bytes_ = round_up(bytes, granularity);
    reserved_bytes_ = mapped_bytes_ + granularity;  // the guard: one granule, never mapped
    CUdeviceptr base = 0;
    CU_CHECK(d.reserve(&base, reserved_bytes_, granularity, 0, 0));
    reserved_ = static_cast<std::uintptr_t>(base);
    // The guard is the reserved range's first granule or its last.
    mapped_ = side == guard_side::before ? reserved_ + granularity : reserved_;
    try {
        CUmemGenericAllocationHandle handle = 0;
        CU_CHECK(d.create(&handle, mapped_bytes_, &prop, 0));
        handle_ = handle;
        CU_CHECK(d.map(static_cast<CUdeviceptr>(mapped_), mapped_bytes_, 0, handle, 0));
        is_mapped_ = true;
        CUmemAccessDesc access{};
        access.location = prop.location;
        access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        CU_CHECK(d.set_access(static_cast<CUdeviceptr>(mapped_), mapped_bytes_, &access, 1));
    } catch (...) {
        release();
        throw;
    }
    const std::uintptr_t mapped_end = mapped_ + mapped_bytes_;
    std::uintptr_t start = mapped_;  // guard before: the array starts on it
    if (side == guard_side::before) {
        guard_ = {reserved_, mapped_};
    } else {
        guard_ = {mapped_end, mapped_end + granularity};
        start = (mapped_end - bytes) / alignment * alignment;
    }
    data_ = reinterpret_cast<void*>(start);
    // The mapped memory around the array (the rest of the granules, the few
    // bytes of alignment slack) holds NaN, as the guards of guarded_output
    // do: a read there that the guard page cannot stop still shows in the
    // answer.
    if (start > mapped_) CUDA_CHECK(cudaMemset(reinterpret_cast<void*>(mapped_), 0xFF, start - mapped_));
    if (mapped_end > start + bytes)
        CUDA_CHECK(cudaMemset(reinterpret_cast<void*>(start + bytes), 0xFF, mapped_end - start - bytes));
}

guard_paged_memory::~guard_paged_memory() { release(); }

guard_paged_memory::guard_paged_memory(guard_paged_memory&& other) noexcept
    : reserved_(std::exchange(other.reserved_, 0)),
      reserved_bytes_(std::exchange(other.reserved_bytes_, 0)),
      mapped_(std::exchange(other.mapped_, 0)),
      mapped_bytes_(std::exchange(other.mapped_bytes_, 0)),
      handle_(std::exchange(other.handle_, 0)),
      is_mapped_(std::exchange(other.is_mapped_, false)),
      data_(std::exchange(other.data_, nullptr)),
      bytes_(std::exchange(other.bytes_, 0)),
      guard_(std::exchange(other.guard_, {})) {}

guard_paged_memory& guard_paged_memory::operator=(guard_paged_memory&& other) noexcept {
    if (this != &other) {
        release();
        reserved_ = std::exchange(other.reserved_, 0);
        reserved_bytes_ = std::exchange(other.reserved_bytes_, 0);
        mapped_ = std::exchange(other.mapped_, 0);
        mapped_bytes_ = std::exchange(other.mapped_bytes_, 0);
        handle_ = std::exchange(other.handle_, 0);
        is_mapped_ = std::exchange(other.is_mapped_, false);
        data_ = std::exchange(other.data_, nullptr);
        bytes_ = std::exchange(other.bytes_, 0);
        guard_ = std::exchange(other.guard_, {});
    }
    return *this;
}

void guard_paged_memory::release() noexcept {
    if (reserved_ == 0) return;
    const vmm& d = driver();
    // Kernels still using the memory must finish before it is unmapped; a
    // destructor does not throw, and a sticky error is already reported.
    cudaDeviceSynchronize();
    if (is_mapped_) d.unmap(static_cast<CUdeviceptr>(mapped_), mapped_bytes_);
    if (handle_) d.release(handle_);
    d.free_address(static_cast<CUdeviceptr>(reserved_), reserved_bytes_);
    reserved_ = 0;
    handle_ = 0;
    is_mapped_ = false;
    data_ = nullptr;
}

}  // namespace course::testing
