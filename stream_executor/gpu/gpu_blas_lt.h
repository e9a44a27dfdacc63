#ifndef STREAM_EXECUTOR_GPU_GPU_BLAS_LT_H_
#define STREAM_EXECUTOR_GPU_GPU_BLAS_LT_H_

#include <cstddef>
#include <memory>
#include <optional>
#include <tuple>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/types/span.h"
#include "stream_executor/blas.h"
#include "stream_executor/gpu/gpu_blas_api.h"

namespace stream_executor::gpu {

class GpuExecutor;
class GpuStream;

// `call` as the table's entry points take it: dimensions as int (checked
// by the caller), its addresses, and pointers to its alpha and beta.
GpuBlasGemm ToGpuBlasGemm(const blas::GemmCall& call);

// Algorithm selection for one executor's gemms through the matmul library
// (cuBLASLt): one plan per distinct shape, layout, type and math mode, and
// the algorithm chosen for it once, either the heuristic's first or the
// fastest of its best few timed on the device (autotuning). The choice is
// kept for the executor's lifetime, so every later call of the shape, and
// every graph recorded with it, runs the same algorithm: results do not
// change from step to step.
class GpuBlasLt {
 public:
  struct Choice {
    GpuBlasLtPlan plan = nullptr;
    GpuBlasLtAlgorithm algorithm;
    // Whether `algorithm` holds one; if not, the classic path serves.
    bool usable = false;
    // Autotuning found the classic entry point faster than every
    // algorithm: it serves the shape.
    bool classic = false;
    // How many algorithms were timed to choose it (0: not timed).
    int timed = 0;
  };

  // Null when the backend has no matmul library. Chosen algorithms need at
  // most `max_workspace_bytes` of workspace.
  static absl::StatusOr<std::unique_ptr<GpuBlasLt>> Create(
      GpuExecutor* executor, const GpuBlasApi& blas_api,
      size_t max_workspace_bytes);
  ~GpuBlasLt();

  // Whether `call`'s addresses and batch strides meet the alignment every
  // chosen algorithm assumes (kGpuBlasLtMinAlignmentBytes).
  static bool IsAligned(const blas::GemmCall& call);

  // The choice for calls shaped like `call` (its addresses are not used),
  // made now when there is none yet. With `candidates` > 1 and `stream`
  // idle to the host (not capturing), up to that many of the heuristic's
  // algorithms run on scratch memory from the executor's allocator and the
  // fastest is kept; a choice made earlier without timing is remade.
  // Otherwise the heuristic's first is kept, which needs no device work and
  // is legal under capture. Null when the library offers no algorithm for
  // the shape (the caller takes the classic path).
  // `classic` runs the library's classic entry point on the given
  // addresses; autotuning times it beside the algorithms.
  using ClassicGemm =
      absl::FunctionRef<absl::Status(GpuStream*, const GpuBlasGemm&)>;
  absl::StatusOr<std::optional<Choice>> Choose(const blas::GemmCall& call,
                                       bool allow_tf32, GpuStream* stream,
                                       int candidates, ClassicGemm classic)
      ABSL_LOCKS_EXCLUDED(mu_);

  // Enqueues `gemm` (addresses and scalars) with `choice` on `stream`.
  absl::Status Run(const Choice& choice, const GpuBlasGemm& gemm,
                   GpuStream* stream, void* workspace, size_t workspace_bytes);

  // How many shapes have a choice, and how many of those were timed.
  std::pair<int, int> CountChoices() const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  using Key = std::tuple<bool, bool, uint64_t, uint64_t, uint64_t, int, int,
                         int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                         int64_t, bool>;
  static Key KeyOf(const blas::GemmCall& call, bool allow_tf32);

  GpuBlasLt(GpuExecutor* executor, const GpuBlasApi& blas_api,
            GpuBlasLtHandle handle, size_t max_workspace_bytes)
      : executor_(executor),
        blas_api_(blas_api),
        handle_(handle),
        max_workspace_bytes_(max_workspace_bytes) {}

  absl::Status LibraryStatus(int error, const char* operation) const;
  // Sets `choice`'s algorithm: the heuristic's first for `candidates` 1,
  // else the fastest of its best `candidates` on `stream`. Leaves the choice
  // as it was when the library offers none.
  absl::Status ChooseAlgorithm(const blas::GemmCall& call, GpuStream* stream,
                               int candidates, ClassicGemm classic,
                               Choice& choice)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Times `algorithms`, and the classic entry point, on scratch operands
  // for `call`; returns the index of the fastest algorithm that runs,
  // algorithms.size() for the classic entry point, or -1.
  absl::StatusOr<int> FastestOf(const blas::GemmCall& call, GpuBlasLtPlan plan,
                                absl::Span<const GpuBlasLtAlgorithm> algorithms,
                                GpuStream* stream, ClassicGemm classic)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  GpuExecutor* const executor_;
  const GpuBlasApi& blas_api_;
  const GpuBlasLtHandle handle_;
  const size_t max_workspace_bytes_;

  // One plan and choice per key. A timed choice is never replaced; plans
  // live as long as this object, so a choice copied out stays usable.
  mutable absl::Mutex mu_;
  absl::flat_hash_map<Key, std::unique_ptr<Choice>> choices_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace stream_executor::gpu

#endif  // STREAM_EXECUTOR_GPU_GPU_BLAS_LT_H_
