#include "xla_lite/runtime/gemm_thunk.h"

#include <utility>

#include "base/status_macros.h"
#include "glog/logging.h"

namespace xla_lite::gpu {

GemmThunk::GemmThunk(std::string name, GemmConfig config,
                     BufferAllocation::Slice lhs, BufferAllocation::Slice rhs,
                     BufferAllocation::Slice output)
    : Thunk(Kind::kGemm, std::move(name)),
      config_(std::move(config)),
      lhs_(lhs),
      rhs_(rhs),
      output_(output) {
  CHECK_EQ(lhs_.size(), config_.lhs_shape.ByteSize()) << ToString();
  CHECK_EQ(rhs_.size(), config_.rhs_shape.ByteSize()) << ToString();
  CHECK_EQ(output_.size(), config_.output_shape.ByteSize()) << ToString();
}

absl::Status GemmThunk::Initialize(const InitializeParams& params) {
  return params.executor->AsBlas().status();
}

absl::Status GemmThunk::ExecuteOnStream(const ExecuteParams& params) {
  ASSIGN_OR_RETURN(se::blas::BlasSupport * blas, params.executor()->AsBlas());
  const BufferAllocations& buffers = *params.buffer_allocations;
  se::blas::GemmCall call = config_.ToBlasCall(buffers.GetDeviceAddress(lhs_),
                                               buffers.GetDeviceAddress(rhs_),
                                               buffers.GetDeviceAddress(output_));
  VLOG(5) << "gemm " << ToString() << " " << config_.ToString();
  return blas->Gemm(params.stream, call);
}

BufferUses GemmThunk::buffer_uses() const {
  return {BufferUse::Read(lhs_), BufferUse::Read(rhs_),
          BufferUse::Write(output_)};
}

}  // namespace xla_lite::gpu
