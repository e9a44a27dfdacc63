#include "xla_lite/service/blas_warmup.h"

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"

namespace xla_lite {
namespace {

// Small, and a shape no JAX model's gemm is likely to have, since with
// autotuning on a library keeps its (untimed) choice for this shape.
constexpr uint64_t kWarmUpSize = 24;

se::blas::GemmCall WarmUpCall(se::blas::DataType type,
                              se::blas::DataType c_type, bool allow_tf32,
                              const se::DeviceAddressBase& scratch) {
  const uint64_t n = kWarmUpSize;
  const uint64_t operand_bytes = n * n * se::blas::SizeOf(type);
  se::blas::GemmCall call;
  call.m = call.n = call.k = n;
  call.type = type;
  if (c_type != type) call.c_type = c_type;
  call.lda = call.ldb = call.ldc = n;
  call.a = scratch.GetByteSlice(0, operand_bytes);
  call.b = scratch.GetByteSlice(operand_bytes, operand_bytes);
  call.c = scratch.GetByteSlice(2 * operand_bytes,
                                n * n * se::blas::SizeOf(c_type));
  call.allow_tf32 = allow_tf32;
  return call;
}

}  // namespace

GemmKinds GemmKinds::Of(const gpu::GemmConfig& config, bool allow_tf32) {
  GemmKinds kind;
  if (config.type == se::blas::DataType::kF32) {
    (config.allow_tf32 || allow_tf32 ? kind.tf32 : kind.f32) = true;
  } else if (config.output_type == se::blas::DataType::kF32) {
    kind.bf16_f32 = true;
  } else {
    kind.bf16_bf16 = true;
  }
  return kind;
}

GemmKinds& GemmKinds::operator|=(const GemmKinds& other) {
  f32 |= other.f32;
  tf32 |= other.tf32;
  bf16_f32 |= other.bf16_f32;
  bf16_bf16 |= other.bf16_bf16;
  return *this;
}

std::string GemmKinds::ToString() const {
  std::vector<const char*> names;
  if (f32) names.push_back("f32");
  if (tf32) names.push_back("tf32");
  if (bf16_f32) names.push_back("bf16->f32");
  if (bf16_bf16) names.push_back("bf16->bf16");
  return names.empty() ? "none" : absl::StrJoin(names, ", ");
}

GemmKinds LibraryGemmKinds(const gpu::ExecutionPlan& plan,
                           const gpu::GemmEmission& emission, bool allow_tf32) {
  GemmKinds kinds;
  for (const gpu::PlannedOp& op : plan.ops) {
    if (op.control != nullptr) {
      for (const gpu::ExecutionPlan& nested : op.control->computations) {
        kinds |= LibraryGemmKinds(nested, emission, allow_tf32);
      }
    }
    if (gpu::IsLibraryGemm(op, emission)) {
      kinds |= GemmKinds::Of(op.gemm, allow_tf32);
    }
  }
  return kinds;
}

absl::Status WarmUpBlas(se::StreamExecutor* executor,
                        se::blas::BlasSupport* blas, const GemmKinds& kinds) {
  if (!kinds.any()) return absl::OkStatus();
  using se::blas::DataType;
  struct Kind {
    bool wanted;
    DataType type, c_type;
    bool allow_tf32;
  };
  const Kind all[] = {
      {kinds.f32, DataType::kF32, DataType::kF32, false},
      {kinds.tf32, DataType::kF32, DataType::kF32, true},
      {kinds.bf16_f32, DataType::kBF16, DataType::kF32, false},
      {kinds.bf16_bf16, DataType::kBF16, DataType::kBF16, false},
  };
  const uint64_t bytes = 3 * kWarmUpSize * kWarmUpSize * sizeof(float);
  ASSIGN_OR_RETURN(se::DeviceAddressBase scratch, executor->Allocate(bytes));
  absl::Status status = [&]() -> absl::Status {
    ASSIGN_OR_RETURN(std::unique_ptr<se::Stream> stream,
                     executor->CreateStream());
    // Zeros, so that no gemm reads uninitialized memory.
    RETURN_IF_ERROR(stream->MemZero(&scratch, bytes));
    for (const Kind& kind : all) {
      if (!kind.wanted) continue;
      se::blas::GemmCall call =
          WarmUpCall(kind.type, kind.c_type, kind.allow_tf32, scratch);
      RETURN_IF_ERROR(blas->PrepareGemm(stream.get(), call, 0));
      RETURN_IF_ERROR(blas->Gemm(stream.get(), call));
    }
    return stream->BlockHostUntilDone();
  }();
  absl::Status freed = executor->Deallocate(&scratch);
  RETURN_IF_ERROR(status);
  return freed;
}

}  // namespace xla_lite
