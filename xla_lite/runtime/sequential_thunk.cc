#include "xla_lite/runtime/sequential_thunk.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "glog/logging.h"

namespace xla_lite::gpu {
namespace {

absl::Status Annotate(const absl::Status& status, const Thunk& thunk) {
  return absl::Status(status.code(),
                      absl::StrCat(thunk.ToString(), ": ", status.message()));
}

bool IsContainer(Thunk::Kind kind) {
  return kind == Thunk::Kind::kSequential ||
         kind == Thunk::Kind::kCommandBuffer || kind == Thunk::Kind::kWhile ||
         kind == Thunk::Kind::kConditional;
}

}  // namespace

SequentialThunk::SequentialThunk(std::string name, ThunkSequence thunks)
    : Thunk(Kind::kSequential, std::move(name)), thunks_(std::move(thunks)) {}

absl::Status SequentialThunk::Initialize(const InitializeParams& params) {
  for (const auto& thunk : thunks_) {
    absl::Status status = thunk->Initialize(params);
    if (!status.ok()) return Annotate(status, *thunk);
  }
  return absl::OkStatus();
}

absl::Status SequentialThunk::ExecuteOnStream(const ExecuteParams& params) {
  for (const auto& thunk : thunks_) {
    VLOG(5) << "execute " << thunk->ToString();
    absl::Status status = thunk->ExecuteOnStream(params);
    if (!status.ok()) return Annotate(status, *thunk);
    // Containers count their own leaves.
    if (params.stats != nullptr && !IsContainer(thunk->kind())) {
      ++params.stats->thunks_executed;
    }
  }
  return absl::OkStatus();
}

BufferUses SequentialThunk::buffer_uses() const {
  BufferUses uses;
  for (const auto& thunk : thunks_) {
    BufferUses inner = thunk->buffer_uses();
    uses.insert(uses.end(), inner.begin(), inner.end());
  }
  return uses;
}

}  // namespace xla_lite::gpu
