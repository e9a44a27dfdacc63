#ifndef XLA_LITE_SERVICE_BLAS_WARMUP_H_
#define XLA_LITE_SERVICE_BLAS_WARMUP_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "stream_executor/blas.h"
#include "stream_executor/stream_executor.h"
#include "xla_lite/runtime/gemm_config.h"
#include "xla_lite/service/execution_plan.h"
#include "xla_lite/service/gemm/gemm_kernel_emitter.h"

namespace xla_lite {

// The kinds of library gemm a program runs. A BLAS library sets each kind
// up on its first use (cuBLAS its full-precision kernels, cuBLASLt the
// heuristic's tables of each type combination): on the H100 host 85 to 90
// ms for the f32 medium transformer's one kind, 230 to 270 ms for the bf16
// one's. Warmed up on Compile's library thread (xla_gpu_warm_up_blas),
// that is not in the first step.
struct GemmKinds {
  bool f32 = false;        // f32 operands, full precision.
  bool tf32 = false;       // f32 operands that may be rounded to TF32.
  bool bf16_f32 = false;   // bf16 operands, f32 result.
  bool bf16_bf16 = false;  // bf16 operands, bf16 result.

  // The one kind `config` runs as; `allow_tf32` is the library's own TF32
  // switch (DebugOptions::xla_gpu_allow_tf32), which makes every f32 gemm
  // TF32.
  static GemmKinds Of(const gpu::GemmConfig& config, bool allow_tf32);

  bool any() const { return f32 || tf32 || bf16_f32 || bf16_bf16; }
  GemmKinds& operator|=(const GemmKinds& other);
  std::string ToString() const;
};

// What a program's library gemms need warmed up.
struct LibraryGemms {
  GemmKinds kinds;
  // One call per distinct shape, layout, type and precision, as the
  // GemmThunk's first call; its addresses are placeholders, never read.
  std::vector<se::blas::GemmCall> calls;
};

// The library gemms of `plan`, control flow's computations included: not
// those `emission` gives the compiler's own kernel. `allow_tf32` as for
// GemmKinds::Of.
LibraryGemms LibraryGemmsOf(const gpu::ExecutionPlan& plan,
                            const gpu::GemmEmission& emission, bool allow_tf32);

// Warms `blas` up for `gemms` on a stream of its own, in two parts.
//
// First it runs one small gemm of each kind and waits for them. Nothing
// this leaves behind changes results: a library's choice of algorithm for
// the warm-up's shape (not one a model uses in practice) is the only state
// it adds. These gemms have no workspace of their own, so they use the
// library's, which executions' gemms (each with its own) never touch:
// other streams may run gemms meanwhile.
//
// Then it traces each of `gemms.calls` into a graph that is dropped
// without being instantiated. The library chooses each shape's algorithm
// as the thunk will (the choice is kept per shape), and the platform loads
// the kernels the trace enqueues: CUDA loads a kernel the first time it is
// launched or captured, which for the medium transformer's cuBLAS kernels
// took 43 ms of the first step on the H200. Nothing runs, so the calls'
// placeholder addresses are never read, and nothing is allocated: where
// the executions' buffers land is as without the warm-up.
//
// Returns how many operations the traces captured. An error (no memory, a
// capture in progress elsewhere) is returned; callers may ignore it, as
// the gemms then set themselves up on first use.
absl::StatusOr<int64_t> WarmUpBlas(se::StreamExecutor* executor,
                                   se::blas::BlasSupport* blas,
                                   const LibraryGemms& gemms);

}  // namespace xla_lite

#endif  // XLA_LITE_SERVICE_BLAS_WARMUP_H_
