// Holds all but N GiB of the GPU's free memory until it is stopped, so that
// the programs run meanwhile see a GPU with N GiB: the GPU check's small-GPU
// run (GPU_CHECK_MEMORY_GIB=4 bash .ci/gpu-check). Built by the check with
// nvcc; prints one line once it holds the memory, then waits for SIGTERM.
#include <cuda_runtime_api.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: gpu_ballast GIB   (the GiB to leave free)\n");
        return 2;
    }
    const std::size_t keep = std::strtoull(argv[1], nullptr, 10) << 30;
    std::size_t free_bytes = 0, total_bytes = 0;
    if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) {
        std::fprintf(stderr, "gpu_ballast: no usable GPU\n");
        return 1;
    }
    std::size_t take = free_bytes > keep ? free_bytes - keep : 0;
    void* held = nullptr;
    // One allocation, a little smaller each time the allocator refuses it.
    while (take > 0 && cudaMalloc(&held, take) != cudaSuccess) {
        cudaGetLastError();
        take -= take / 64 + 1;
    }
    cudaMemGetInfo(&free_bytes, &total_bytes);
    std::printf("gpu_ballast: holding %zu MiB of %zu; %zu MiB free\n", take >> 20, total_bytes >> 20, free_bytes >> 20);
    std::fflush(stdout);
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGINT);
    sigprocmask(SIG_BLOCK, &stop, nullptr);
    int signal_number = 0;
    sigwait(&stop, &signal_number);
    cudaFree(held);
    return 0;
}
