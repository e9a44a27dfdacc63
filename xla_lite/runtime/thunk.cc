#include "xla_lite/runtime/thunk.h"

#include "absl/strings/str_format.h"

namespace xla_lite::gpu {

std::string Thunk::ToString() const {
  return absl::StrFormat("%s(%s)", ThunkKindName(kind_), name_);
}

const char* ThunkKindName(Thunk::Kind kind) {
  switch (kind) {
    case Thunk::Kind::kKernel:
      return "kernel";
    case Thunk::Kind::kGemm:
      return "gemm";
    case Thunk::Kind::kMemcpy:
      return "memcpy";
    case Thunk::Kind::kMemset:
      return "memset";
    case Thunk::Kind::kSequential:
      return "sequential";
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
    case Thunk::Kind::kMemcpy:
      return DebugOptions::MEMCPY;
    case Thunk::Kind::kMemset:
      return DebugOptions::MEMSET;
    case Thunk::Kind::kSequential:
      return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace xla_lite::gpu
