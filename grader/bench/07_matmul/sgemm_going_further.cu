// Lesson 07, going further: a float32 matrix product C = A x B that comes
// close to cuBLAS's float32 kernels, on the CUDA cores (no tensor cores, no
// TF32).
//
// It is part 3's kernel (a block computes a large tile of C, each thread a
// small tile of it in registers) with these ideas added; the comments below
// explain each where it is used:
//
//   1. Bigger tiles. A block of 256 threads computes 128 x 256 of C, and each
//      thread 8 x 16 (128 accumulators): per k, 6 float4 reads of shared
//      memory feed 128 multiply-adds, against 4 for 64 in part 3.
//   2. Warp tiling. Each warp computes one 64 x 64 rectangle of the block's
//      tile, and its 32 threads form a small grid inside it, so that a warp's
//      reads of shared memory touch few distinct addresses: threads that need
//      the same value get it in one broadcast.
//   3. cp.async. Since Ampere (sm_80) a thread can start a copy from global
//      to shared memory that does not pass through its registers and does not
//      make it wait: the copy runs while the thread computes.
//   4. A multi-stage pipeline. Shared memory holds the tiles of `stages`
//      K-steps, a ring of slots. While the block multiplies the tiles of one
//      step, the copies for the next ones are in flight, which hides the
//      latency of global memory (several hundred cycles) behind arithmetic.
//      In registers, the values for the next k are read while the
//      multiply-adds of this k run.
//   5. Block order. Blocks are numbered so that those running at the same
//      time share rows of A and columns of B, which the L2 cache then serves.
//
// The fast kernel needs tile-sized shapes: M a multiple of the block's rows,
// N of its columns, K of its K-step, and the rows of B and C 16-byte aligned
// (data and pitch), because it copies B and stores C four floats at a time
// and checks no bounds. Every other shape, and a GPU with too little shared
// memory for the tiles, runs a plain tiled kernel (fallback_kernel, near the
// end), slower but correct, so sgemm() is correct for every shape.
#include <cublas_v2.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "course/cublas_error.hpp"
#include "course/device_array.hpp"
#include "course/error.hpp"
#include "course/launch.hpp"
#include "sgemm_going_further.cuh"

namespace lesson07::going_further {

namespace {

// ---------------------------------------------------------------------------
// The shape of the work, as template arguments: trying another shape is a
// change of one line (block_tiling, below), and the compiler checks it fits.
//
//   block_m x block_n   the tile of C that one block computes
//   block_k             how far along K one step of the main loop goes
//   warp_m x warp_n     the part of the block's tile that one warp computes
//   thread_m x thread_n the part that one thread computes, in registers; made
//                       of 4 x 4 sub-tiles so that each read of shared memory
//                       is one float4
//   stages              how many K-steps of tiles shared memory holds
//   min_blocks_per_sm   for __launch_bounds__: caps the registers per thread
//                       so that this many blocks fit on one SM
template <int BlockM, int BlockN, int BlockK, int WarpM, int WarpN, int ThreadM, int ThreadN,
          int Stages, int MinBlocksPerSm>
struct tiling {
    static constexpr int block_m = BlockM;
    static constexpr int block_n = BlockN;
    static constexpr int block_k = BlockK;
    static constexpr int warp_m = WarpM;
    static constexpr int warp_n = WarpN;
    static constexpr int thread_m = ThreadM;
    static constexpr int thread_n = ThreadN;
    static constexpr int stages = Stages;
    static constexpr int min_blocks_per_sm = MinBlocksPerSm;

    static constexpr int warps = (BlockM / WarpM) * (BlockN / WarpN);
    static constexpr int threads = 32 * warps;
    // A warp's 32 threads form a lanes_m x lanes_n grid over its warp tile.
    static constexpr int lanes_m = WarpM / ThreadM;
    static constexpr int lanes_n = WarpN / ThreadN;
    // A thread's tile is sub_m x sub_n sub-tiles of 4 x 4 (see the kernel).
    static constexpr int sub_m = ThreadM / 4;
    static constexpr int sub_n = ThreadN / 4;

    // Shared memory, one slot per stage. The A tile is stored transposed,
    // [k][row], so that 4 neighbouring rows of one k are one float4; each of
    // its rows is padded by 4 floats (why: see the kernel). B is stored as it
    // is, [k][col].
    static constexpr int a_pitch = BlockM + 4;
    static constexpr int a_stage_floats = BlockK * a_pitch;
    static constexpr int b_stage_floats = BlockK * BlockN;
    static constexpr std::size_t shared_bytes =
        std::size_t{Stages} * (a_stage_floats + b_stage_floats) * sizeof(float);

    // Copies per thread per K-step: A one float at a time (a 16-byte copy
    // cannot transpose), B four floats at a time.
    static constexpr int a_copies = BlockM * BlockK / threads;
    static constexpr int b_copies = BlockK * BlockN / 4 / threads;

    static_assert(BlockM % WarpM == 0 && BlockN % WarpN == 0, "warps must tile the block");
    static_assert(lanes_m * lanes_n == 32, "a warp's 32 threads must tile the warp's tile");
    static_assert(WarpM % ThreadM == 0 && WarpN % ThreadN == 0, "threads must tile the warp");
    static_assert(ThreadM % 4 == 0 && ThreadN % 4 == 0, "thread tiles are made of 4 x 4");
    static_assert(BlockK % 8 == 0, "A is copied in runs of 8 consecutive k (see the kernel)");
    static_assert(BlockM % 32 == 0, "the A tile's padding argument needs BlockM % 32 == 0");
    static_assert(BlockM % (threads / 8) == 0, "A's copies must cover its rows evenly");
    static_assert(a_copies * threads == BlockM * BlockK, "A's tile must split evenly");
    static_assert(threads % (BlockN / 4) == 0, "B's copies must cover whole rows");
    static_assert(b_copies * threads * 4 == BlockK * BlockN, "B's tile must split evenly");
    static_assert(Stages >= 2, "a pipeline needs at least two stages");
};

// The tiling used: 256 threads (8 warps of 64 x 64) computing 128 x 256 of C,
// 8 x 16 per thread, K-steps of 32, three stages (146 KiB of shared memory,
// which an A100, an H100 and an H200 all have). 8 x 16 per thread needs about
// 230 registers, so one block fills an SM's register file, and
// MinBlocksPerSm = 1 lets the compiler use up to 255. On the H200 this beat
// 8 x 8 per thread in 64 x 32 warp tiles (0.89x cuBLAS), 16 x 8 per thread
// (0.91x) and K-steps of 16 (0.90x); a fourth stage gained 1% and needs
// 194 KiB, more than an A100 has.
using block_tiling = tiling<128, 256, 32, 64, 64, 8, 16, 3, 1>;

// ---------------------------------------------------------------------------
// cp.async, in PTX (the instructions CUTLASS and cuBLAS use). Each call starts
// a copy and returns at once; commit_group closes the copies started since
// the last commit into a group; wait_group<n> waits until at most n of this
// thread's groups are still in flight. A copy is visible to other threads only
// after the thread that started it has waited for it *and* a __syncthreads()
// that follows the wait.
//
// cp.async exists from sm_80 on. Built for an older GPU (the course's
// portable build includes sm_75), the same functions copy synchronously
// through registers and commit/wait do nothing: the pipeline below is still
// correct, since a slot is only written once every thread is done reading it.

// 16 bytes, global -> shared. .cg caches in L2 only: each value of B is used
// once per block from shared memory, so keeping it in L1 too would be waste.
__device__ __forceinline__ void copy_16_bytes_async(float* shared, const float* global) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    const auto shared_address = static_cast<unsigned>(__cvta_generic_to_shared(shared));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(shared_address),
                 "l"(__cvta_generic_to_global(global))
                 : "memory");
#else
    *reinterpret_cast<float4*>(shared) = *reinterpret_cast<const float4*>(global);
#endif
}

// 4 bytes, global -> shared (.ca: the only cache mode a 4-byte copy allows).
__device__ __forceinline__ void copy_4_bytes_async(float* shared, const float* global) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    const auto shared_address = static_cast<unsigned>(__cvta_generic_to_shared(shared));
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(shared_address),
                 "l"(__cvta_generic_to_global(global))
                 : "memory");
#else
    *shared = *global;
#endif
}

__device__ __forceinline__ void commit_copies() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

template <int InFlight>
__device__ __forceinline__ void wait_for_copies() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;\n" ::"n"(InFlight) : "memory");
#endif
}

// ---------------------------------------------------------------------------
// Block order. Blocks are launched by number, and with one block per SM 132
// of them run at a time on an H100 or H200. Each K-step, each of them reads a
// slice of one row panel of A (its 128 rows) and of one column panel of B
// (its 256 columns). Numbered row by row, the 132 running blocks of an
// 8192 x 8192 product (32 tiles a row) cover about 4 rows of tiles: 5 panels
// of A but all 32 panels of B, and each slice of B that comes from DRAM
// serves only 4 blocks before the L2 cache lets it go. Numbered down the
// columns of groups of 16 tile rows instead, they cover a patch of 16 rows x
// 8 or 9 columns, a near-square of C (2048 x 2304): half as many bytes of A
// and B for the same work, so about half as many come from DRAM, and the L2
// cache serves the rest.
constexpr int group_rows = 16;

struct tile_index {
    int row;  // which tile of C, counted in tiles
    int col;
};

__device__ __forceinline__ tile_index tile_of_block(int block, int tiles_m, int tiles_n) {
    const int blocks_per_group = group_rows * tiles_n;
    const int group = block / blocks_per_group;
    const int first_row = group * group_rows;
    // The last group may have fewer rows.
    const int rows_in_group = min(tiles_m - first_row, group_rows);
    const int in_group = block - group * blocks_per_group;
    return {first_row + in_group % rows_in_group, in_group / rows_in_group};
}

// Four floats from shared memory in one 16-byte read, into four registers.
__device__ __forceinline__ void unpack4(float* to, const float* from) {
    const float4 v = *reinterpret_cast<const float4*>(from);
    to[0] = v.x;
    to[1] = v.y;
    to[2] = v.z;
    to[3] = v.w;
}

// ---------------------------------------------------------------------------
// The fast kernel. Preconditions (checked by the host code): M % block_m ==
// 0, N % block_n == 0, K % block_k == 0, the rows of B and C 16-byte aligned;
// one block per tile of C, launched as a 1D grid of tiles_m * tiles_n.
template <class T>
__global__ void __launch_bounds__(T::threads, T::min_blocks_per_sm)
    sgemm_kernel(const_matrix a, const_matrix b, matrix c) {
    extern __shared__ __align__(16) float shared[];
    float* const a_tiles = shared;  // [stages][block_k][a_pitch]
    float* const b_tiles = shared + T::stages * T::a_stage_floats;  // [stages][block_k][block_n]

    const std::size_t lda = a.pitch();
    const std::size_t ldb = b.pitch();
    const std::size_t ldc = c.pitch();
    const int tiles_m = static_cast<int>(c.rows()) / T::block_m;
    const int tiles_n = static_cast<int>(c.cols()) / T::block_n;
    const int k_steps = static_cast<int>(a.cols()) / T::block_k;

    const tile_index tile = tile_of_block(static_cast<int>(blockIdx.x), tiles_m, tiles_n);
    const int block_row = tile.row * T::block_m;
    const int block_col = tile.col * T::block_n;
    const int tid = static_cast<int>(threadIdx.x);

    // --- What this thread copies in each K-step. --------------------------
    // A: element e = tid + i * threads of the block_m x block_k tile, taken
    // in runs of 8 consecutive k: k = tid % 8 (+ 8 per run), row = tid / 8
    // (+ threads / 8 per pass). A warp thus reads 4 rows x 8 consecutive k,
    // four full 32-byte sectors of global memory. It writes them transposed,
    // to a_tile[k][row]: word k * a_pitch + row. With a_pitch = block_m + 4
    // (and block_m a multiple of 32), that is bank 4k + row (mod 32), which
    // is different for all 32 threads (k 0..7, 4 rows). Unpadded, the 8 k
    // would all hit the same bank: an 8-way conflict on every copy.
    constexpr int a_rows_per_pass = T::threads / 8;
    constexpr int a_passes_per_run = T::block_m / a_rows_per_pass;
    const int a_k = tid % 8;
    const int a_row = tid / 8;
    const float* a_source = &a(block_row + a_row, a_k);  // advances block_k per step

    // B: float4 number v = tid + i * threads of the block_k x block_n tile,
    // row by row: a warp copies 512 contiguous bytes of a row of B, and
    // writes them contiguously (no bank conflicts).
    constexpr int b_float4s_per_row = T::block_n / 4;
    constexpr int b_rows_per_pass = T::threads / b_float4s_per_row;
    const int b_col = (tid % b_float4s_per_row) * 4;
    const int b_k = tid / b_float4s_per_row;
    const float* b_source = &b(b_k, block_col + b_col);  // advances block_k rows per step

    // Starts the copies of K-step `step` into slot `stage` (no waiting).
    auto load_tiles = [&](int step, int stage) {
        const float* a_step = a_source + static_cast<std::size_t>(step) * T::block_k;
        float* a_tile = a_tiles + stage * T::a_stage_floats;
#pragma unroll
        for (int i = 0; i < T::a_copies; ++i) {
            const int pass = i % a_passes_per_run;
            const int run = i / a_passes_per_run;
            copy_4_bytes_async(
                &a_tile[(a_k + run * 8) * T::a_pitch + a_row + pass * a_rows_per_pass],
                a_step + pass * a_rows_per_pass * lda + run * 8);
        }
        const float* b_step = b_source + static_cast<std::size_t>(step) * T::block_k * ldb;
        float* b_tile = b_tiles + stage * T::b_stage_floats;
#pragma unroll
        for (int i = 0; i < T::b_copies; ++i)
            copy_16_bytes_async(&b_tile[(b_k + i * b_rows_per_pass) * T::block_n + b_col],
                                b_step + static_cast<std::size_t>(i) * b_rows_per_pass * ldb);
    };

    // --- What this thread computes. ---------------------------------------
    // The warps form a grid over the block's tile, and each warp's lanes a
    // lanes_m x lanes_n grid over the warp's tile. A thread owns sub_m x
    // sub_n sub-tiles of 4 x 4: rows lane_m * 4 + (0..3) of every group of
    // lanes_m * 4 rows of its warp's tile, and likewise for columns. So for
    // each k it reads its rows of A as sub_m float4s and its columns of B as
    // sub_n float4s, and the lanes of a warp that read the same float4 (all
    // lanes with the same lane_m, for A) get it in one broadcast: a warp reads
    // only lanes_m distinct float4s of A and lanes_n of B per instruction, at
    // most 128 contiguous bytes, which touch each bank once. (Part 3's layout,
    // 16 threads across the block's whole width, reads 256 bytes of B per
    // instruction: two passes through the banks.)
    const int warp = tid / 32;
    const int lane = tid % 32;
    constexpr int warps_n = T::block_n / T::warp_n;
    const int warp_row = (warp / warps_n) * T::warp_m;
    const int warp_col = (warp % warps_n) * T::warp_n;
    const int lane_m = lane / T::lanes_n;
    const int lane_n = lane % T::lanes_n;
    // First row (of the A tile) and column (of the B tile) of this thread's
    // first sub-tile; sub-tile s starts s * 4 * lanes_m rows (columns) further.
    const int first_row = warp_row + lane_m * 4;
    const int first_col = warp_col + lane_n * 4;

    // Reads this thread's values of A and B for one k of the tiles in slot
    // `stage`: thread_m values of A (a column of the tile) and thread_n of B
    // (a row), as float4s.
    auto load_fragments = [&](float(&a_frag)[T::thread_m], float(&b_frag)[T::thread_n],
                              int stage, int k) {
        const float* a_tile = a_tiles + stage * T::a_stage_floats;
        const float* b_tile = b_tiles + stage * T::b_stage_floats;
#pragma unroll
        for (int s = 0; s < T::sub_m; ++s)
            unpack4(a_frag + 4 * s, &a_tile[k * T::a_pitch + first_row + s * 4 * T::lanes_m]);
#pragma unroll
        for (int s = 0; s < T::sub_n; ++s)
            unpack4(b_frag + 4 * s, &b_tile[k * T::block_n + first_col + s * 4 * T::lanes_n]);
    };

    // The multiply-adds of one k: an outer product of the thread's values of
    // A and B into its accumulators, which stay in registers throughout.
    float acc[T::thread_m][T::thread_n] = {};
    auto outer_product = [&](const float(&a_frag)[T::thread_m],
                             const float(&b_frag)[T::thread_n]) {
#pragma unroll
        for (int i = 0; i < T::thread_m; ++i)
#pragma unroll
            for (int j = 0; j < T::thread_n; ++j) acc[i][j] += a_frag[i] * b_frag[j];
    };

    // --- The pipeline. -----------------------------------------------------
    // K-step `step` lives in slot step % stages. The prologue starts the
    // copies of the first `stages` steps, one commit group each; then every
    // K-step commits exactly one group, empty near the end, so that "group g
    // holds K-step g" stays true and the waits need no special case.
#pragma unroll
    for (int s = 0; s < T::stages; ++s) {
        if (s < k_steps) load_tiles(s, s);
        commit_copies();
    }
    // `stages` groups committed; with stages - 1 allowed in flight, group 0
    // (K-step 0) has landed. The barrier makes every thread's copies visible.
    wait_for_copies<T::stages - 1>();
    __syncthreads();

    // Two sets of fragments: while the multiply-adds of k use one, the
    // shared-memory reads for k + 1 fill the other, so the reads' latency
    // (about 30 cycles) hides behind 128 multiply-adds.
    float a_frag[2][T::thread_m];
    float b_frag[2][T::thread_n];
    load_fragments(a_frag[0], b_frag[0], 0, 0);

    int stage = 0;  // the slot of K-step `step`
    for (int step = 0; step < k_steps; ++step) {
#pragma unroll
        for (int k = 0; k < T::block_k; ++k) {
            if (k == T::block_k - 1) {
                // The last k of this step. Its fragments are in registers
                // already, so this thread has read slot `stage` for the last
                // time; what comes next is k = 0 of the next step. So the
                // barrier for the next step goes here, before the last
                // multiply-adds, which then run while the next step's first
                // reads are in flight: no warp idles right after the barrier.
                //
                // stages + step groups committed (K-steps 0 .. step +
                // stages - 1); with stages - 2 allowed in flight, K-step
                // step + 1 has landed.
                wait_for_copies<T::stages - 2>();
                // One barrier per K-step, for two reasons: every thread's
                // copies of the next step become visible, and every thread has
                // finished reading slot `stage`, which the copies started next
                // (K-step step + stages) overwrite.
                __syncthreads();
                if (step + T::stages < k_steps) load_tiles(step + T::stages, stage);
                commit_copies();
                stage = stage + 1 == T::stages ? 0 : stage + 1;
            }
            // On the last step, this reads a slot that holds no K-step; the
            // values are never used.
            load_fragments(a_frag[(k + 1) % 2], b_frag[(k + 1) % 2], stage,
                           (k + 1) % T::block_k);
            outer_product(a_frag[k % 2], b_frag[k % 2]);
        }
    }

    // --- Write C. ----------------------------------------------------------
    // Accumulator (4 * sm + i, 4 * sn + j) is element (first_row + sm * 4 *
    // lanes_m + i, first_col + sn * 4 * lanes_n + j) of the block's tile. Each
    // store is a float4 straight from registers.
#pragma unroll
    for (int sm = 0; sm < T::sub_m; ++sm)
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            const int row = block_row + first_row + sm * 4 * T::lanes_m + i;
#pragma unroll
            for (int sn = 0; sn < T::sub_n; ++sn) {
                const int col = block_col + first_col + sn * 4 * T::lanes_n;
                const float* v = &acc[4 * sm + i][4 * sn];
                *reinterpret_cast<float4*>(&c.data()[row * ldc + col]) =
                    make_float4(v[0], v[1], v[2], v[3]);
            }
        }
}

// ---------------------------------------------------------------------------
// The fallback for shapes the fast kernel does not take: part 2's tiled
// kernel in its plainest form, 16 x 16 tiles, one element of C per thread,
// every access bounds-checked. Tile rows beyond 65535 blocks (the limit of
// gridDim.y) are reached by striding.
constexpr int fallback_tile = 16;

__global__ void fallback_kernel(const_matrix a, const_matrix b, matrix c) {
    __shared__ float a_tile[fallback_tile][fallback_tile];
    __shared__ float b_tile[fallback_tile][fallback_tile];
    const int M = static_cast<int>(c.rows());
    const int N = static_cast<int>(c.cols());
    const int K = static_cast<int>(a.cols());
    const int tx = static_cast<int>(threadIdx.x);
    const int ty = static_cast<int>(threadIdx.y);
    const int col = static_cast<int>(blockIdx.x) * fallback_tile + tx;
    for (int tile_row = static_cast<int>(blockIdx.y) * fallback_tile; tile_row < M;
         tile_row += static_cast<int>(gridDim.y) * fallback_tile) {
        const int row = tile_row + ty;
        float sum = 0.0f;
        for (int k0 = 0; k0 < K; k0 += fallback_tile) {
            a_tile[ty][tx] = (row < M && k0 + tx < K) ? a(row, k0 + tx) : 0.0f;
            b_tile[ty][tx] = (k0 + ty < K && col < N) ? b(k0 + ty, col) : 0.0f;
            __syncthreads();
#pragma unroll
            for (int k = 0; k < fallback_tile; ++k) sum += a_tile[ty][k] * b_tile[k][tx];
            __syncthreads();
        }
        if (row < M && col < N) c(row, col) = sum;
    }
}

// ---------------------------------------------------------------------------
// Host side.

bool rows_aligned_16(const_matrix m) {
    return reinterpret_cast<std::uintptr_t>(m.data()) % 16 == 0 && m.pitch() % 4 == 0;
}

void launch_fallback(const_matrix a, const_matrix b, matrix c, cudaStream_t stream) {
    const dim3 block(fallback_tile, fallback_tile);
    const dim3 grid(course::blocks_for(c.cols(), fallback_tile),
                    std::min(course::blocks_for(c.rows(), fallback_tile), 65535u));
    fallback_kernel<<<grid, block, 0, stream>>>(a, b, c);
    CUDA_CHECK(cudaGetLastError());
}

template <class T>
void launch(const_matrix a, const_matrix b, matrix c, cudaStream_t stream) {
    const std::size_t M = c.rows();
    const std::size_t N = c.cols();
    const std::size_t K = a.cols();
    const std::size_t tiles = (M / T::block_m) * (N / T::block_n);
    // A is copied 4 bytes at a time, so its rows need no particular alignment.
    const bool fits_fast_kernel = M % T::block_m == 0 && N % T::block_n == 0 &&
                                  K % T::block_k == 0 && rows_aligned_16(b) &&
                                  rows_aligned_16(c) && tiles <= INT_MAX;
    if (!fits_fast_kernel) {
        launch_fallback(a, b, c, stream);
        return;
    }

    // Above 48 KiB of dynamic shared memory, a kernel must ask for it (the
    // default limit keeps old programs working). A GPU with less to give than
    // this configuration needs gets the fallback.
    int device = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    int max_shared = 0;
    CUDA_CHECK(
        cudaDeviceGetAttribute(&max_shared, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    if (T::shared_bytes > static_cast<std::size_t>(max_shared)) {
        launch_fallback(a, b, c, stream);
        return;
    }
    constexpr int shared_bytes = static_cast<int>(T::shared_bytes);
    if (shared_bytes > 48 * 1024)
        CUDA_CHECK(cudaFuncSetAttribute(sgemm_kernel<T>,
                                        cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        shared_bytes));

    sgemm_kernel<T><<<static_cast<unsigned>(tiles), T::threads, shared_bytes, stream>>>(a, b, c);
    CUDA_CHECK(cudaGetLastError());
}

}  // namespace

void sgemm(const_matrix a, const_matrix b, matrix c, cudaStream_t stream) {
    check_shapes(a, b, c, "going_further::sgemm");
    launch<block_tiling>(a, b, c, stream);
}

namespace {

// C = A x B by cuBLAS in float32 (CUBLAS_DEFAULT_MATH: no TF32), called
// directly rather than through lesson07::cublas_matmul, so that the check
// below does not depend on the lesson's own matmul_cublas.cu (the exercise's
// may be unfinished). Row-major C = A B is column-major C^T = B^T A^T.
void cublas_float32(lesson07::const_matrix a, lesson07::const_matrix b, lesson07::matrix c) {
    cublasHandle_t raw = nullptr;
    CUBLAS_CHECK(cublasCreate(&raw));
    const std::unique_ptr<cublasContext, decltype(&cublasDestroy)> handle(raw, &cublasDestroy);
    CUBLAS_CHECK(cublasSetMathMode(raw, CUBLAS_DEFAULT_MATH));
    const float alpha = 1.0f;
    const float beta = 0.0f;
    CUBLAS_CHECK(cublasSgemm(raw, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(c.cols()),
                             static_cast<int>(c.rows()), static_cast<int>(a.cols()), &alpha,
                             b.data(), static_cast<int>(b.pitch()), a.data(),
                             static_cast<int>(a.pitch()), &beta, c.data(),
                             static_cast<int>(c.pitch())));
}

}  // namespace

// Before the going_further kernel is timed, its product is compared once with
// cuBLAS's at the same size: each into its own buffer (filled with NaNs
// first, so that an element the kernel never writes shows), both copied to
// the host. Returns an empty string if every element is finite and the
// largest difference is below 1e-4 of the largest |C| (float32 sums over K
// terms in another order differ by far less), else what went wrong.
std::string differs_from_cublas(lesson07::const_matrix a, lesson07::const_matrix b) {
    const std::size_t m = a.rows();
    const std::size_t n = b.cols();
    course::device_array<float> ours(m * n), theirs(m * n);
    ours.fill_bytes(0xFF);
    theirs.fill_bytes(0xFF);
    lesson07::going_further::sgemm(a, b, lesson07::matrix(ours.data(), m, n));
    cublas_float32(a, b, lesson07::matrix(theirs.data(), m, n));
    CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<float> got = ours.to_host();
    const std::vector<float> want = theirs.to_host();
    double max_difference = 0.0;
    double max_magnitude = 0.0;
    std::size_t not_finite = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
        if (!std::isfinite(got[i]) || !std::isfinite(want[i])) {
            ++not_finite;
            continue;
        }
        max_difference = std::max(max_difference, std::fabs(double{got[i]} - want[i]));
        max_magnitude = std::max(max_magnitude, std::fabs(double{want[i]}));
    }
    const double relative = max_magnitude > 0.0 ? max_difference / max_magnitude : max_difference;
    if (not_finite == 0 && relative < 1e-4) return {};
    return "going_further differs from cuBLAS: " + std::to_string(not_finite) +
           " elements not finite, max |difference| / max |C| = " + std::to_string(relative) +
           " (limit 1e-4)";
}

}  // namespace lesson07::going_further
