// Lesson 07, part 3: the register-blocked matrix product, reference solution.
#include <cstdint>

#include "course/error.hpp"
#include "course/launch.hpp"
#include "matmul_kernels.cuh"

namespace lesson07 {

namespace {
// The shape of the work. A block of 256 threads computes a 128 x 128 tile of
// C; each thread computes 8 x 8 of it, in registers. The block walks along K
// in steps of 8: one 128 x 8 tile of A and one 8 x 128 tile of B at a time.
constexpr int block_m = 128;
constexpr int block_n = 128;
constexpr int block_k = 8;
constexpr int thread_m = 8;
constexpr int thread_n = 8;
constexpr int threads = (block_m / thread_m) * (block_n / thread_n);  // 256
// Each thread's 8 rows are two groups of 4, half the tile apart (rows 4ty..4ty+3
// and 64+4ty..64+4ty+3), and so are its 8 columns. Reading 4 neighbours is one
// float4; and the 16 threads along a row of the block read 16 neighbouring
// float4s, which lie in different shared-memory banks (8 contiguous columns
// per thread would put threads 0 and 4 in the same banks: 2-way conflicts).
constexpr int half_m = block_m / 2;
constexpr int half_n = block_n / 2;
// The A tile is stored transposed (k-major) so that a thread's 4 rows are 4
// neighbouring floats. Each row of it is padded by 4 floats: see store_a.
constexpr int a_pad = 4;

static_assert(threads == 256, "the loaders below assume 256 threads");
static_assert(block_m * block_k == 4 * threads, "one float4 of A per thread per tile");
static_assert(block_k * block_n == 4 * threads, "one float4 of B per thread per tile");

struct quad {
    float v[4];
};

// Elements (row, col .. col+3) of m, with zeros for those outside m: the
// edge tiles of A and B are zero-padded, so the compute loop needs no checks.
// `vector_ok` says that m's rows are 16-byte aligned (data and pitch), which
// makes a whole quad inside m one 16-byte load.
__device__ __forceinline__ quad load_quad(const_matrix m, int row, int col, bool vector_ok) {
    const int rows = static_cast<int>(m.rows());
    const int cols = static_cast<int>(m.cols());
    quad q;
    if (vector_ok && row < rows && col + 3 < cols) {
        const float4 f = *reinterpret_cast<const float4*>(&m(row, col));
        q.v[0] = f.x, q.v[1] = f.y, q.v[2] = f.z, q.v[3] = f.w;
    } else {
#pragma unroll
        for (int i = 0; i < 4; ++i)
            q.v[i] = (row < rows && col + i < cols) ? m(row, col + i) : 0.0f;
    }
    return q;
}

// Stores (row, col .. col+3) of C, only the elements inside C.
__device__ __forceinline__ void store_quad(matrix c, int row, int col, const float* v,
                                           bool vector_ok) {
    const int rows = static_cast<int>(c.rows());
    const int cols = static_cast<int>(c.cols());
    if (row >= rows) return;
    if (vector_ok && col + 3 < cols) {
        *reinterpret_cast<float4*>(&c(row, col)) = make_float4(v[0], v[1], v[2], v[3]);
    } else {
#pragma unroll
        for (int i = 0; i < 4; ++i)
            if (col + i < cols) c(row, col + i) = v[i];
    }
}
}  // namespace

// launch_bounds: 256 threads, and at least 2 blocks on each SM at once. It caps
// the registers at 128 per thread (64 of them hold the 8 x 8 results), so two
// blocks fit, and one block's loads overlap the other's arithmetic.
__global__ void __launch_bounds__(threads, 2)
    matmul_register_blocked_kernel(const_matrix a, const_matrix b, matrix c, bool vector_a,
                                   bool vector_b, bool vector_c) {
    // Two of each tile (double buffering): while the block multiplies one
    // pair, the next pair is on its way from global memory.
    __shared__ __align__(16) float a_tile[2][block_k][block_m + a_pad];  // transposed: [k][row]
    __shared__ __align__(16) float b_tile[2][block_k][block_n];          // [k][col]

    const int tid = threadIdx.x;
    const int block_row = blockIdx.y * block_m;
    const int block_col = blockIdx.x * block_n;
    const int K = static_cast<int>(a.cols());

    // What this thread copies: one float4 of A, row tid/2, k (tid%2)*4 .. +3,
    // and one float4 of B, row tid/32, columns (tid%32)*4 .. +3. A warp reads
    // B as 512 contiguous bytes, and A as 16 rows of 32 contiguous bytes.
    const int a_row = tid / 2;
    const int a_k = (tid % 2) * 4;
    const int b_k = tid / 32;
    const int b_col = (tid % 32) * 4;

    // What this thread computes: rows 4ty .. 4ty+3 and 64+4ty .. 64+4ty+3 of
    // the tile, and the same pattern of columns with tx.
    const int tx = tid % (block_n / thread_n);  // 0..15
    const int ty = tid / (block_n / thread_n);  // 0..15

    // Stores one loaded quad of A transposed: a_tile[k][row]. In a warp,
    // thread 2r holds k 0..3 of row r and thread 2r+1 k 4..7. Without the
    // padding, a_tile[k][r] and a_tile[k+4][r] lie 4 x 128 floats apart: the
    // same bank, a 2-way conflict on every store. With rows of 132 floats they
    // are 16 banks apart, and all 32 stores of a warp hit different banks.
    auto store_a = [&](int buffer, const quad& q) {
#pragma unroll
        for (int i = 0; i < 4; ++i) a_tile[buffer][a_k + i][a_row] = q.v[i];
    };
    auto store_b = [&](int buffer, const quad& q) {
        *reinterpret_cast<float4*>(&b_tile[buffer][b_k][b_col]) =
            make_float4(q.v[0], q.v[1], q.v[2], q.v[3]);
    };

    float acc[thread_m][thread_n] = {};

    // The first pair of tiles.
    quad a_next = load_quad(a, block_row + a_row, a_k, vector_a);
    quad b_next = load_quad(b, b_k, block_col + b_col, vector_b);
    store_a(0, a_next);
    store_b(0, b_next);
    __syncthreads();

    const int steps = (K + block_k - 1) / block_k;  // rounded up: the last tile is zero-padded
    for (int step = 0; step < steps; ++step) {
        const int current = step % 2;
        const bool more = step + 1 < steps;
        // Start loading the next tiles into registers now; the multiply below
        // hides their latency.
        if (more) {
            const int k0 = (step + 1) * block_k;
            a_next = load_quad(a, block_row + a_row, k0 + a_k, vector_a);
            b_next = load_quad(b, k0 + b_k, block_col + b_col, vector_b);
        }

        // The multiply: for each k, 8 values of A and 8 of B (four float4
        // reads) feed 64 multiply-adds, an outer product into acc.
#pragma unroll
        for (int k = 0; k < block_k; ++k) {
            float a_frag[thread_m];
            float b_frag[thread_n];
            const float4 a_lo = *reinterpret_cast<const float4*>(&a_tile[current][k][4 * ty]);
            const float4 a_hi =
                *reinterpret_cast<const float4*>(&a_tile[current][k][half_m + 4 * ty]);
            const float4 b_lo = *reinterpret_cast<const float4*>(&b_tile[current][k][4 * tx]);
            const float4 b_hi =
                *reinterpret_cast<const float4*>(&b_tile[current][k][half_n + 4 * tx]);
            a_frag[0] = a_lo.x, a_frag[1] = a_lo.y, a_frag[2] = a_lo.z, a_frag[3] = a_lo.w;
            a_frag[4] = a_hi.x, a_frag[5] = a_hi.y, a_frag[6] = a_hi.z, a_frag[7] = a_hi.w;
            b_frag[0] = b_lo.x, b_frag[1] = b_lo.y, b_frag[2] = b_lo.z, b_frag[3] = b_lo.w;
            b_frag[4] = b_hi.x, b_frag[5] = b_hi.y, b_frag[6] = b_hi.z, b_frag[7] = b_hi.w;
#pragma unroll
            for (int i = 0; i < thread_m; ++i)
#pragma unroll
                for (int j = 0; j < thread_n; ++j) acc[i][j] += a_frag[i] * b_frag[j];
        }

        // Put the next tiles into the other buffer. Nobody reads it now: the
        // __syncthreads() that ended the previous step saw every thread
        // finish with it.
        if (more) {
            store_a(1 - current, a_next);
            store_b(1 - current, b_next);
        }
        // One barrier per step: the stores above become visible to the whole
        // block, and no thread runs ahead into a buffer still being read.
        __syncthreads();
    }

    // Write the 8 x 8 results, two quads per row, guarded at the edges.
#pragma unroll
    for (int i = 0; i < thread_m; ++i) {
        const int row = block_row + (i < 4 ? 4 * ty + i : half_m + 4 * ty + (i - 4));
        store_quad(c, row, block_col + 4 * tx, &acc[i][0], vector_c);
        store_quad(c, row, block_col + half_n + 4 * tx, &acc[i][4], vector_c);
    }
}

}  // namespace lesson07

namespace {
// 16-byte loads and stores need 16-byte-aligned addresses: the matrix must
// start on one and its rows must be a multiple of 4 floats apart.
bool rows_aligned_16(lesson07::const_matrix m) {
    return reinterpret_cast<std::uintptr_t>(m.data()) % 16 == 0 && m.pitch() % 4 == 0;
}
}  // namespace

void lesson07::matmul_register_blocked(const_matrix a, const_matrix b, matrix c,
                                       cudaStream_t stream) {
    check_shapes(a, b, c, "matmul_register_blocked");
    const dim3 grid(course::blocks_for(c.cols(), block_n), course::blocks_for(c.rows(), block_m));
    matmul_register_blocked_kernel<<<grid, threads, 0, stream>>>(
        a, b, c, rows_aligned_16(a), rows_aligned_16(b), rows_aligned_16(c));
    CUDA_CHECK(cudaGetLastError());
}
