#ifndef STREAM_EXECUTOR_BLAS_H_
#define STREAM_EXECUTOR_BLAS_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "stream_executor/device_address.h"

namespace stream_executor {

class Stream;

namespace blas {

enum class Transpose { kNoTranspose, kTranspose };
enum class DataType { kF32, kBF16 };

int64_t SizeOf(DataType type);
std::string ToString(Transpose t);
std::string ToString(DataType t);

// One (strided batched) matrix product in BLAS conventions: column-major
// matrices, C[m,n] = alpha * op(A)[m,k] * op(B)[k,n] + beta * C[m,n] for each
// of `batch_count` batches. Row-major callers swap A and B (C^T = B^T A^T).
// Accumulation is in f32. A and B are f32 or bf16; C has their type, or is
// f32 for bf16 operands (the mixed form tensor cores take: bf16 products,
// f32 sums, and no rounding of the result to bf16).
struct GemmCall {
  Transpose transa = Transpose::kNoTranspose;
  Transpose transb = Transpose::kNoTranspose;
  uint64_t m = 0, n = 0, k = 0;
  DataType type = DataType::kF32;  // A's and B's.
  // C's, when it is not `type`.
  std::optional<DataType> c_type;
  float alpha = 1.0f;
  float beta = 0.0f;
  DeviceAddressBase a, b, c;
  int64_t lda = 0, ldb = 0, ldc = 0;
  int64_t batch_count = 1;
  int64_t stride_a = 0, stride_b = 0, stride_c = 0;  // In elements.
  // f32 operands may be rounded to TF32 on tensor cores (what XLA does for
  // a dot of DEFAULT precision); platforms without TF32 compute in f32.
  bool allow_tf32 = false;
  // The library's scratch for this call (split-K partial sums). Gemms that
  // may run at the same time (on several streams, or as independent nodes
  // of one graph) must each have their own: one workspace used by two
  // gemms at once corrupts both results. Null: the library's own, which
  // only calls whose results nobody reads (warm-ups, timing) may share.
  DeviceAddressBase workspace;

  DataType CType() const { return c_type.value_or(type); }

  // Checks the type combination, dimensions, leading dimensions and that
  // every buffer is large enough, so platforms never read or write out of
  // bounds.
  absl::Status Validate() const;
  // Everything but the addresses: calls with the same text run alike.
  std::string ToString() const;
};

// A platform's BLAS library (Eigen on the host, cuBLAS, hipBLAS). Every call
// is enqueued on `stream` and allocates nothing, so calls are safe under
// stream capture: its workspace is the call's (GemmCall::workspace,
// StreamExecutor::GemmWorkspaceBytes() of it), or the library's own.
class BlasSupport {
 public:
  virtual ~BlasSupport() = default;
  virtual absl::Status Gemm(Stream* stream, const GemmCall& call) = 0;

  // Chooses, once per distinct shape, layout and type, how later Gemm calls
  // shaped like `call` run (its addresses are not read; its sizes are).
  // With `autotune_candidates` > 1 a library with several algorithms times
  // up to that many on `stream`, which must not be capturing; the choice is
  // then fixed, so results do not change from call to call. Libraries
  // without a choice only validate the call.
  virtual absl::Status PrepareGemm(Stream* stream, const GemmCall& call,
                                   int autotune_candidates) {
    return call.Validate();
  }
};

}  // namespace blas
}  // namespace stream_executor

#endif  // STREAM_EXECUTOR_BLAS_H_
