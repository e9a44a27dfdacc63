#include "xla_lite/runtime/while_thunk.h"

#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "glog/logging.h"

namespace xla_lite::gpu {

absl::StatusOr<int64_t> ReadDeviceScalar(const Thunk::ExecuteParams& params,
                                         const BufferAllocation::Slice& slice) {
  if (slice.size() != 1 && slice.size() != 4) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a predicate or branch index is a pred (1 byte) or s32 (4 bytes), "
        "got ",
        slice.size(), " bytes"));
  }
  se::DeviceAddressBase source =
      params.buffer_allocations->GetDeviceAddress(slice);
  uint8_t bytes[4] = {0, 0, 0, 0};
  RETURN_IF_ERROR(params.stream->Memcpy(bytes, source, slice.size()));
  RETURN_IF_ERROR(params.stream->BlockHostUntilDone());
  if (slice.size() == 1) return bytes[0] != 0 ? 1 : 0;
  int32_t value;
  std::memcpy(&value, bytes, sizeof(value));
  return value;
}

WhileThunk::WhileThunk(std::string name, BufferAllocation::Slice predicate,
                       std::unique_ptr<SequentialThunk> condition,
                       std::unique_ptr<SequentialThunk> body)
    : Thunk(Kind::kWhile, std::move(name)),
      predicate_(predicate),
      condition_(std::move(condition)),
      body_(std::move(body)) {}

absl::Status WhileThunk::Initialize(const InitializeParams& params) {
  RETURN_IF_ERROR(condition_->Initialize(params));
  return body_->Initialize(params);
}

int64_t WhileThunk::MaxIterations(const DebugOptions* options) {
  const int64_t limit =
      options == nullptr ? 0 : options->xla_gpu_max_loop_iterations();
  return limit > 0 ? limit : kDefaultMaxIterations;
}

absl::Status WhileThunk::ExecuteOnStream(const ExecuteParams& params) {
  const int64_t max_iterations = MaxIterations(params.debug_options);
  for (int64_t trip = 0;; ++trip) {
    RETURN_IF_ERROR(condition_->ExecuteOnStream(params));
    ASSIGN_OR_RETURN(int64_t keep_going, ReadDeviceScalar(params, predicate_));
    if (keep_going == 0) {
      VLOG(3) << name() << ": " << trip << " iterations";
      return absl::OkStatus();
    }
    if (trip >= max_iterations) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "while loop ", name(), " is still running after ", trip,
          " iterations (xla_gpu_max_loop_iterations=", max_iterations,
          "): a trip count from an input, or a condition that never turns "
          "false?"));
    }
    if (params.stats != nullptr) ++params.stats->loop_iterations;
    RETURN_IF_ERROR(body_->ExecuteOnStream(params));
  }
}

bool WhileThunk::IsRecordable() const {
  return condition_->AllRecordable() && body_->AllRecordable();
}

absl::StatusOr<const se::CommandBuffer::Command*> WhileThunk::Record(
    const RecordParams& params, se::CommandBuffer* command_buffer,
    se::CommandBuffer::Dependencies dependencies) {
  // Nested thunks trace into their own graphs each time they are recorded:
  // the trace cache is keyed by this thunk, not theirs.
  RecordParams nested = params;
  nested.trace_cache = nullptr;
  return command_buffer->CreateWhile(
      params.buffer_allocations->GetDeviceAddress(predicate_),
      MaxIterations(params.debug_options),
      [&](se::CommandBuffer& cb) { return condition_->RecordNested(nested, cb); },
      [&](se::CommandBuffer& cb) { return body_->RecordNested(nested, cb); },
      dependencies);
}

absl::Status WhileThunk::UpdateRecorded(
    const RecordParams& params, se::CommandBuffer* command_buffer,
    const se::CommandBuffer::Command* command) {
  RecordParams nested = params;
  nested.trace_cache = nullptr;
  return command_buffer->UpdateWhile(
      command, params.buffer_allocations->GetDeviceAddress(predicate_),
      [&](se::CommandBuffer& cb) { return condition_->UpdateNested(nested, cb); },
      [&](se::CommandBuffer& cb) { return body_->UpdateNested(nested, cb); });
}

BufferUses WhileThunk::buffer_uses() const {
  BufferUses uses = condition_->buffer_uses();
  BufferUses body = body_->buffer_uses();
  uses.insert(uses.end(), body.begin(), body.end());
  uses.push_back(BufferUse::Read(predicate_));
  return uses;
}

}  // namespace xla_lite::gpu
