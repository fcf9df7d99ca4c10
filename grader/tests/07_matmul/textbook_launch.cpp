// Launching the textbook kernels (textbook_kernels.hpp), wherever they came from.
#include <cuda_runtime_api.h>

#include "course/error.hpp"
#include "course/launch.hpp"
#include "textbook_kernels.hpp"

namespace lesson07::testing {

namespace {

constexpr unsigned tile = 16;

// Both kernels run one 16 x 16 block per 16 x 16 tile of C, the grid rounded
// up so the partial tiles at the edges get a block.
void launch_over_tiles_of_c(textbook which, const char* who, const_matrix a, const_matrix b, matrix c,
                            cudaStream_t stream) {
    check_shapes(a, b, c, who);
    const dim3 block(tile, tile);
    const dim3 grid{course::blocks_for(c.cols(), tile), course::blocks_for(c.rows(), tile)};
    // cudaLaunchKernel copies each argument from the address given, as many
    // bytes as the kernel's parameter has: the views, by value.
    void* arguments[] = {&a, &b, &c};
    CUDA_CHECK(cudaLaunchKernel(textbook_kernel(which), grid, block, arguments, 0, stream));
}

}  // namespace

void textbook_naive_matmul(const_matrix a, const_matrix b, matrix c, cudaStream_t stream) {
    launch_over_tiles_of_c(textbook::naive, "textbook_naive_matmul", a, b, c, stream);
}

void textbook_tiled_matmul(const_matrix a, const_matrix b, matrix c, cudaStream_t stream) {
    launch_over_tiles_of_c(textbook::tiled, "textbook_tiled_matmul", a, b, c, stream);
}

}  // namespace lesson07::testing
