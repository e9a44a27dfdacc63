#ifndef XLA_LITE_SERVICE_GEMM_GEMM_TILING_H_
#define XLA_LITE_SERVICE_GEMM_GEMM_TILING_H_

#include <cstdint>
#include <string>

#include "stream_executor/launch_dim.h"
#include "xla_lite/runtime/gemm_config.h"

namespace xla_lite::gpu {

// How the emitted gemm kernel splits the output: every block is a 16x16
// grid of threads that computes one tile_m() x tile_n() output tile, each
// thread a register block of rows_per_thread adjacent rows and
// cols_per_thread adjacent columns. The contraction advances tile_k
// elements at a time through shared memory.
struct GemmTiling {
  static constexpr int kThreadsX = 16;  // Threads along n.
  static constexpr int kThreadsY = 16;  // Threads along m.
  static constexpr int kThreads = kThreadsX * kThreadsY;
  static constexpr int kDefaultTileK = 16;
  // Static shared memory a block may use for its two operand tiles.
  static constexpr int kMaxSharedBytes = 40 * 1024;
  // The emitted gemm's register blocks; convolutions, whose contraction is
  // long and whose tiles are many, take up to kMaxWidePerThread rows
  // (windowed_config.cc: 8x4 makes four multiply-adds per shared-memory
  // load where 4x4 makes two).
  static constexpr int kMaxPerThread = 4;
  static constexpr int kMaxWidePerThread = 8;
  // Below this many blocks a large GPU leaves multiprocessors idle, so
  // smaller tiles (less reuse per block, more blocks) win: two blocks for
  // each of an H100's 132 multiprocessors, about (at 128 blocks of 64x64,
  // attention's 64 batches of 64x128 by 128 ran a block per
  // multiprocessor). Convolutions keep the 128 their tiles were measured
  // with (kMinConvolutionBlocks).
  static constexpr int64_t kMinBlocks = 256;
  static constexpr int64_t kMinConvolutionBlocks = 128;

  int rows_per_thread = kMaxPerThread;  // 1, 2, 4 or 8.
  int cols_per_thread = kMaxPerThread;  // 1, 2, 4 or 8.
  // Elements of k staged per pass, at least 1. A whole short contraction
  // in one pass issues all of a block's loads at once: with one pass per
  // 16 elements, each pass waits out a full memory latency, which is what
  // small products spend their time on.
  int tile_k = kDefaultTileK;

  int tile_m() const { return kThreadsY * rows_per_thread; }
  int tile_n() const { return kThreadsX * cols_per_thread; }
  // Both operand tiles, padded as the kernel stores them.
  int64_t SharedBytes() const;
  bool IsValid() const;
  std::string ToString() const;
};

// Output tiles of `tiling` over `config`'s product: blocks of its grid,
// before the grid's caps.
int64_t GemmBlockCount(const GemmConfig& config, const GemmTiling& tiling);

// Whether `config`'s product may run on tensor cores (bf16 operands, f32
// operands that may round to TF32, or f32 products on FP64 tensor cores),
// tiles permitting (UsesTensorCores).
bool MayUseTensorCores(const GemmConfig& config);

// The largest tiles, at most `largest`'s register blocks, that still give
// the device `min_blocks` blocks to spread over its multiprocessors; small
// products get small tiles. Products on FP64 tensor cores always take
// 64x64 tiles (SuitsF64TensorCores asks for enough of them). tile_k covers the
// whole contraction when both operand tiles then fit in kMaxSharedBytes, else
// it is 64 or 32 where those fit and k is longer.
GemmTiling ChooseGemmTiling(const GemmConfig& config,
                            const GemmTiling& largest = GemmTiling(),
                            int64_t min_blocks = GemmTiling::kMinBlocks);

// One block per output tile along n (x), m (y) and batch (z). y and z are
// capped at the hardware's 65535; the kernel loops over what the cap leaves.
se::LaunchDimensions GemmLaunchDimensionsFor(const GemmConfig& config,
                                             const GemmTiling& tiling);

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_SERVICE_GEMM_GEMM_TILING_H_
