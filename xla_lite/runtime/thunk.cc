#include "xla_lite/runtime/thunk.h"

#include "absl/strings/str_format.h"

namespace xla_lite::gpu {

absl::StatusOr<const se::CommandBuffer::Command*> Thunk::Record(
    const RecordParams& params, se::CommandBuffer* command_buffer,
    se::CommandBuffer::Dependencies dependencies) {
  return absl::UnimplementedError(absl::StrFormat(
      "%s cannot be recorded into a command buffer", ToString()));
}

absl::Status Thunk::UpdateRecorded(const RecordParams& params,
                                   se::CommandBuffer* command_buffer,
                                   const se::CommandBuffer::Command* command) {
  return absl::UnimplementedError(absl::StrFormat(
      "%s cannot be recorded into a command buffer", ToString()));
}

std::string Thunk::ToString() const {
  return absl::StrFormat("%s(%s)", ThunkKindName(kind_), name_);
}

const char* ThunkKindName(Thunk::Kind kind) {
  switch (kind) {
    case Thunk::Kind::kKernel:
      return "kernel";
    case Thunk::Kind::kGemm:
      return "gemm";
    case Thunk::Kind::kConvolution:
      return "convolution";
    case Thunk::Kind::kMemcpy:
      return "memcpy";
    case Thunk::Kind::kMemset:
      return "memset";
    case Thunk::Kind::kSequential:
      return "sequential";
    case Thunk::Kind::kCommandBuffer:
      return "command_buffer";
    case Thunk::Kind::kWhile:
      return "while";
    case Thunk::Kind::kConditional:
      return "conditional";
    case Thunk::Kind::kCollective:
      return "collective";
  }
  return "invalid";
}

std::optional<DebugOptions::CommandBufferCmdType> CommandBufferCmdTypeOf(
    Thunk::Kind kind) {
  switch (kind) {
    case Thunk::Kind::kKernel:
      return DebugOptions::FUSION;
    case Thunk::Kind::kGemm:
      return DebugOptions::CUBLAS;
    case Thunk::Kind::kConvolution:
      return DebugOptions::CUDNN;
    case Thunk::Kind::kMemcpy:
      return DebugOptions::MEMCPY;
    case Thunk::Kind::kMemset:
      return DebugOptions::MEMSET;
    case Thunk::Kind::kCollective:
      return DebugOptions::COLLECTIVES;
    case Thunk::Kind::kWhile:
      return DebugOptions::WHILE;
    case Thunk::Kind::kConditional:
      return DebugOptions::CONDITIONAL;
    case Thunk::Kind::kSequential:
    case Thunk::Kind::kCommandBuffer:
      return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace xla_lite::gpu
