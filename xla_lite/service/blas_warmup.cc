#include "xla_lite/service/blas_warmup.h"

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "stream_executor/command_buffer.h"

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

// Stands in for the operands of a call that is traced, never run: any
// address the libraries accept (non-null, aligned for every algorithm).
constexpr uintptr_t kPlaceholderAddress = uintptr_t{1} << 40;

void AddLibraryGemms(const gpu::ExecutionPlan& plan,
                     const gpu::GemmEmission& emission, bool allow_tf32,
                     LibraryGemms& gemms,
                     absl::flat_hash_set<std::string>& seen) {
  auto placeholder = [](const Shape& shape) {
    return se::DeviceAddressBase(reinterpret_cast<void*>(kPlaceholderAddress),
                                 shape.ByteSize());
  };
  for (const gpu::PlannedOp& op : plan.ops) {
    if (op.control != nullptr) {
      for (const gpu::ExecutionPlan& nested : op.control->computations) {
        AddLibraryGemms(nested, emission, allow_tf32, gemms, seen);
      }
    }
    if (!gpu::IsLibraryGemm(op, emission)) continue;
    gemms.kinds |= GemmKinds::Of(op.gemm, allow_tf32);
    std::vector<se::blas::GemmCall> calls = op.gemm.ToBlasCalls(
        placeholder(op.gemm.lhs_shape), placeholder(op.gemm.rhs_shape),
        placeholder(op.gemm.output_shape));
    if (calls.empty()) continue;
    // Every call of one gemm has the first's shape.
    if (seen.insert(calls.front().ToString()).second) {
      gemms.calls.push_back(calls.front());
    }
  }
}

// One small gemm of each kind in `kinds`, on zeroed scratch, waited for.
absl::Status RunEachKind(se::StreamExecutor* executor,
                         se::blas::BlasSupport* blas, se::Stream* stream,
                         const GemmKinds& kinds) {
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
    // Zeros, so that no gemm reads uninitialized memory.
    RETURN_IF_ERROR(stream->MemZero(&scratch, bytes));
    for (const Kind& kind : all) {
      if (!kind.wanted) continue;
      se::blas::GemmCall call =
          WarmUpCall(kind.type, kind.c_type, kind.allow_tf32, scratch);
      RETURN_IF_ERROR(blas->PrepareGemm(stream, call, 0));
      RETURN_IF_ERROR(blas->Gemm(stream, call));
    }
    return stream->BlockHostUntilDone();
  }();
  absl::Status freed = executor->Deallocate(&scratch);
  RETURN_IF_ERROR(status);
  return freed;
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

LibraryGemms LibraryGemmsOf(const gpu::ExecutionPlan& plan,
                            const gpu::GemmEmission& emission,
                            bool allow_tf32) {
  LibraryGemms gemms;
  absl::flat_hash_set<std::string> seen;
  AddLibraryGemms(plan, emission, allow_tf32, gemms, seen);
  return gemms;
}

absl::StatusOr<int64_t> WarmUpBlas(se::StreamExecutor* executor,
                                   se::blas::BlasSupport* blas,
                                   const LibraryGemms& gemms) {
  if (!gemms.kinds.any()) return 0;
  ASSIGN_OR_RETURN(std::unique_ptr<se::Stream> stream,
                   executor->CreateStream());
  RETURN_IF_ERROR(RunEachKind(executor, blas, stream.get(), gemms.kinds));
  int64_t nodes = 0;
  for (const se::blas::GemmCall& call : gemms.calls) {
    ASSIGN_OR_RETURN(std::unique_ptr<se::CapturedGraph> graph,
                     se::TraceIntoGraph(stream.get(), [&](se::Stream* s) {
                       return blas->Gemm(s, call);
                     }));
    nodes += graph->num_nodes();
  }
  return nodes;
}

}  // namespace xla_lite
