#ifndef XLA_LITE_RUNTIME_GEMM_THUNK_H_
#define XLA_LITE_RUNTIME_GEMM_THUNK_H_

#include <string>

#include "absl/status/status.h"
#include "xla_lite/runtime/gemm_config.h"
#include "xla_lite/runtime/thunk.h"

namespace xla_lite::gpu {

// A gemm through the platform's BLAS library (cuBLAS, hipBLAS, Eigen).
class GemmThunk : public Thunk {
 public:
  // CHECK-fails when a slice's size differs from its operand's byte size.
  GemmThunk(std::string name, GemmConfig config, BufferAllocation::Slice lhs,
            BufferAllocation::Slice rhs, BufferAllocation::Slice output);

  // Creates the BLAS library here, so that its workspace is allocated
  // before any execution and never under stream capture.
  absl::Status Initialize(const InitializeParams& params) override;
  absl::Status ExecuteOnStream(const ExecuteParams& params) override;
  BufferUses buffer_uses() const override;

  const GemmConfig& config() const { return config_; }

 private:
  const GemmConfig config_;
  const BufferAllocation::Slice lhs_, rhs_, output_;
};

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_RUNTIME_GEMM_THUNK_H_
