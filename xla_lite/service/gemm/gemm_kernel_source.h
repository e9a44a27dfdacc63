#ifndef XLA_LITE_SERVICE_GEMM_GEMM_KERNEL_SOURCE_H_
#define XLA_LITE_SERVICE_GEMM_GEMM_KERNEL_SOURCE_H_

#include <string>

#include "xla_lite/runtime/gemm_config.h"
#include "xla_lite/service/gemm/gemm_tiling.h"

namespace xla_lite::gpu {

// Defines XL_AWAIT_PRODUCERS(), which every emitted kernel calls first: on
// CUDA devices of compute capability 9.0 and up it waits until the kernels
// this one depends on have finished and their writes are visible, so a
// command buffer may join them with programmatic edges
// (KernelSpec::waits_for_producers) and launch this kernel as their last
// blocks exit. Elsewhere it does nothing.
extern const char kAwaitProducersSource[];

// A block's multiplication of its staged tiles, for kernels built like the
// emitted gemm (the tiled convolution): each thread adds, for kk in
// [0, kTileK), lhs_tile[kk][its rows] x rhs_tile[kk][its columns] into
// acc[kRowsPerThread][kColsPerThread]. Its rows are the run of
// kRowsPerThread from ty * kRowsPerThread, its columns the run of
// kColsPerThread from tx * kColsPerThread, read with vector loads
// (xl_load_run, kLoadRunSource): an 8x4 block issues 3 loads for its 32
// products. Each product is one fused multiply-add, half the instructions
// of a multiply and an add.
extern const char kGemmTileProductSource[];

// xl_load_run<n>(p, v): v[0..n) = p[0..n) from shared memory in the widest
// vectors, p aligned to min(n, 4) floats. Defined once however often a
// source includes it.
extern const char kLoadRunSource[];

// xl_store_run<n>(p, v): p[0..n) = v[0..n), in one vector store where p
// is aligned to it (n of 2 or 4), element by element otherwise. Defined
// once however often a source includes it.
extern const char kStoreRunSource[];

// What a fused elementwise epilogue adds to the kernel: the product is
// handed to `function`(index, value<arguments>) instead of being stored,
// where index is the element's row-major index in the output; or a run
// of n adjacent elements from an index aligned to n (n of 1, 2 or 4) to
// `function`_run<n>(index, values<arguments>), which stores each f32
// output with xl_store_run.
struct EpilogueSource {
  std::string definitions;  // Device code before the kernel; defines function.
  std::string function;
  std::string parameters;  // Appended to the kernel's (lhs, rhs), ", ..." each.
  std::string arguments;   // Appended to the call, ", ..." each.
};

// Whether GemmKernelSource multiplies on tensor cores where the device has
// them (sm_80 and up): bf16 operands, or f32 operands of a dot that allows
// TF32 (GemmConfig::allow_tf32, rounded to TF32 as cuBLAS rounds them);
// 4x4 or 4x2 per thread (64x64 and 64x32 tiles) and tile_k a multiple of 16
// (bf16) or 8 (TF32). The accumulation is f32 either way; the FMA product, with
// full f32 products, remains for HIP and older GPUs, under the same source.
bool UsesTensorCores(const GemmConfig& config, const GemmTiling& tiling);

// Portable CUDA C (NVRTC and hiprtc both compile it; the tensor-core
// product is PTX behind __CUDA_ARCH__, as XL_AWAIT_PRODUCERS is) for
//   extern "C" __global__ void <entry>(const T* lhs, const T* rhs, U* out)
// computing `config` with `tiling` (U is T, or float for bf16 operands with
// an f32 result); every size, leading dimension, batch stride, transpose,
// alpha and beta is a constant in the source. `entry` must be a C
// identifier.
// With an epilogue (f32, beta = 0 only) `out` gives way to its parameters.
// Launch it with GemmLaunchDimensionsFor(config, tiling).
std::string GemmKernelSource(const GemmConfig& config, const GemmTiling& tiling,
                             const std::string& entry,
                             const EpilogueSource* epilogue = nullptr);

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_SERVICE_GEMM_GEMM_KERNEL_SOURCE_H_
