#ifndef STREAM_EXECUTOR_LAUNCH_DIM_H_
#define STREAM_EXECUTOR_LAUNCH_DIM_H_

#include <cstdint>
#include <string>

#include "absl/strings/str_format.h"

namespace stream_executor {

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
  uint64_t Product() const { return uint64_t{x} * y * z; }
};

// Grid (blocks) and block (threads) shape of a kernel launch, plus dynamic
// shared memory. Host kernels receive it too, so one emitted kernel can
// iterate the same index space on every platform.
struct LaunchDimensions {
  Dim3 blocks;
  Dim3 threads_per_block;
  uint32_t shared_memory_bytes = 0;

  LaunchDimensions() = default;
  LaunchDimensions(uint32_t block_count, uint32_t threads)
      : blocks{block_count, 1, 1}, threads_per_block{threads, 1, 1} {}

  uint64_t num_threads() const {
    return blocks.Product() * threads_per_block.Product();
  }
  std::string ToString() const {
    return absl::StrFormat("blocks{%d,%d,%d} threads{%d,%d,%d} smem=%d",
                           blocks.x, blocks.y, blocks.z, threads_per_block.x,
                           threads_per_block.y, threads_per_block.z,
                           shared_memory_bytes);
  }
};

// Covers `elements` with blocks of `threads_per_block` threads.
inline LaunchDimensions LaunchDimensionsFor(uint64_t elements,
                                            uint32_t threads_per_block = 256) {
  uint64_t blocks = (elements + threads_per_block - 1) / threads_per_block;
  return LaunchDimensions(static_cast<uint32_t>(blocks == 0 ? 1 : blocks),
                          threads_per_block);
}

}  // namespace stream_executor

#endif  // STREAM_EXECUTOR_LAUNCH_DIM_H_
