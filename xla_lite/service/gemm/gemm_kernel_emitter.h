#ifndef XLA_LITE_SERVICE_GEMM_GEMM_KERNEL_EMITTER_H_
#define XLA_LITE_SERVICE_GEMM_GEMM_KERNEL_EMITTER_H_

#include <string>

#include "stream_executor/kernel.h"
#include "stream_executor/launch_dim.h"
#include "xla_lite/runtime/gemm_config.h"
#include "xla_lite/service/gemm/gemm_tiling.h"

namespace xla_lite::gpu {

// The compiler's own gemm, for when the platform has no BLAS library
// (StreamExecutor::AsBlas() fails) or DebugOptions.xla_gpu_use_emitted_gemm
// asks for it. The kernel takes three device addresses (lhs, rhs, out), with
// every size, transpose, leading dimension, batch stride, alpha and beta
// baked in, and computes
//   out = alpha * op(lhs) @ op(rhs) + beta * out
// for every batch in f32 (bf16 operands widened, a bf16 result rounded to
// nearest even, an f32 result of bf16 operands stored as summed); beta == 0
// never reads out. Batches are the grid's z, split over the config's batch
// dimensions to find each operand's matrices. The spec has the CUDA C source
// that NVRTC and hiprtc compile (a shared-memory tiled kernel) and a host
// function; run it with a KernelThunk and GemmLaunchDimensions(config), with
// the output slice marked written.
//
// The entry point is "gemm_" and `name` with every character that cannot
// appear in a C identifier replaced by '_' (HLO names such as "dot.3" can be
// passed as is); the prefix keeps a name like "round" from colliding with a
// CUDA built-in. spec.name is that identifier.
se::KernelSpec EmitGemmKernel(const GemmConfig& config,
                              const std::string& name);

// The launch dimensions EmitGemmKernel's kernel for `config` needs.
se::LaunchDimensions GemmLaunchDimensions(const GemmConfig& config);

// The same with the tiling given rather than chosen; the kernel must be
// launched with GemmLaunchDimensionsFor(config, tiling). For tests and tuning.
se::KernelSpec EmitGemmKernel(const GemmConfig& config, const std::string& name,
                              const GemmTiling& tiling);

// Which gemms run as the compiler's own kernel instead of through BLAS.
struct GemmEmission {
  // All of them (asked for, or no BLAS library).
  bool always = false;
  // Those of at most this many multiply-adds (batch * m * n * k) whose
  // contraction is staged in one pass (see ChooseGemmTiling); and, where
  // max_size is not 0, those whose batches BLAS would take in several
  // calls (batch dimensions that do not merge into one stride), up to
  // kMaxSplitBatchSize multiply-adds.
  int64_t max_size = 0;
  // The workspace each library gemm gets (StreamExecutor::
  // GemmWorkspaceBytes); 0 plans none.
  int64_t library_workspace_bytes = 0;

  static constexpr int64_t kMaxSplitBatchSize = int64_t{1} << 28;
};
bool UsesEmittedGemmKernel(const GemmConfig& config,
                           const GemmEmission& emission);

// Whether an f32 product that may not use TF32 runs on FP64 tensor cores
// (GemmConfig::f64_tensor_cores) where the device has them: a product the
// emitted gemm runs anyway (attention's heads, whose batch dimensions do
// not merge), k a multiple of the MMA's 8, and at least
// kMinF64TensorCoreBlocks tiles of 64x64. On an H200 that took the f32
// medium transformer's attention products from 9.5-11.6 to 6.9-8.5 us.
// Products BLAS runs stay there: this kernel was slower than cuBLAS's
// SGEMM on the dense projections (2048x1024x256: 44 against 28.5 us; at
// 2048x256x256, 14.3 against 13.1), and long contractions over few tiles
// (weight gradients) need the split along k that BLAS does.
bool SuitsF64TensorCores(const GemmConfig& config,
                         const GemmEmission& emission);
inline constexpr int64_t kMinF64TensorCoreBlocks = 128;

// `name` as a C identifier, as EmitGemmKernel names its entry point.
std::string GemmKernelEntryName(const std::string& name);

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_SERVICE_GEMM_GEMM_KERNEL_EMITTER_H_
