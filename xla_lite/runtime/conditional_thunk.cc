#include "xla_lite/runtime/conditional_thunk.h"

#include <functional>
#include <utility>
#include <vector>

#include "base/status_macros.h"
#include "glog/logging.h"
#include "xla_lite/runtime/while_thunk.h"

namespace xla_lite::gpu {

ConditionalThunk::ConditionalThunk(
    std::string name, BufferAllocation::Slice selector,
    std::vector<std::unique_ptr<SequentialThunk>> branches)
    : Thunk(Kind::kConditional, std::move(name)),
      selector_(selector),
      branches_(std::move(branches)) {
  CHECK(!branches_.empty()) << this->name() << ": a conditional needs a branch";
  CHECK(selector_.size() == 4 || branches_.size() == 2)
      << this->name() << ": a pred selector picks one of 2 branches";
}

absl::Status ConditionalThunk::Initialize(const InitializeParams& params) {
  for (const auto& branch : branches_) {
    RETURN_IF_ERROR(branch->Initialize(params));
  }
  return absl::OkStatus();
}

int64_t ConditionalThunk::BranchFor(int64_t selector_value) const {
  const int64_t count = branches_.size();
  if (selector_.size() == 1) return selector_value != 0 ? 0 : 1;
  return selector_value >= 0 && selector_value < count ? selector_value
                                                       : count - 1;
}

absl::Status ConditionalThunk::ExecuteOnStream(const ExecuteParams& params) {
  ASSIGN_OR_RETURN(int64_t value, ReadDeviceScalar(params, selector_));
  const int64_t branch = BranchFor(value);
  VLOG(3) << name() << ": selector " << value << ", branch " << branch;
  if (params.stats != nullptr) ++params.stats->conditional_branches;
  return branches_[branch]->ExecuteOnStream(params);
}

bool ConditionalThunk::IsRecordable() const {
  for (const auto& branch : branches_) {
    if (!branch->AllRecordable()) return false;
  }
  return true;
}

namespace {

using BranchRecorder = std::function<absl::Status(se::CommandBuffer&)>;

// One function per branch that records it into, or (`update`) updates it
// in, its nested command buffer. Nested thunks trace into their own graphs
// each time: the trace cache in `params` is keyed by the conditional.
std::vector<BranchRecorder> BranchRecorders(
    const std::vector<std::unique_ptr<SequentialThunk>>& branches,
    const Thunk::RecordParams& params, bool update) {
  Thunk::RecordParams nested = params;
  nested.trace_cache = nullptr;
  std::vector<BranchRecorder> recorders;
  for (const auto& branch : branches) {
    recorders.push_back(
        [nested, update, b = branch.get()](se::CommandBuffer& cb) {
          return update ? b->UpdateNested(nested, cb)
                        : b->RecordNested(nested, cb);
        });
  }
  return recorders;
}

}  // namespace

absl::StatusOr<const se::CommandBuffer::Command*> ConditionalThunk::Record(
    const RecordParams& params, se::CommandBuffer* command_buffer,
    se::CommandBuffer::Dependencies dependencies) {
  std::vector<BranchRecorder> record =
      BranchRecorders(branches_, params, /*update=*/false);
  std::vector<se::CommandBuffer::NestedRecorder> recorders(record.begin(),
                                                           record.end());
  return command_buffer->CreateCase(
      params.buffer_allocations->GetDeviceAddress(selector_), recorders,
      dependencies);
}

absl::Status ConditionalThunk::UpdateRecorded(
    const RecordParams& params, se::CommandBuffer* command_buffer,
    const se::CommandBuffer::Command* command) {
  std::vector<BranchRecorder> update =
      BranchRecorders(branches_, params, /*update=*/true);
  std::vector<se::CommandBuffer::NestedRecorder> recorders(update.begin(),
                                                           update.end());
  return command_buffer->UpdateCase(
      command, params.buffer_allocations->GetDeviceAddress(selector_),
      recorders);
}

BufferUses ConditionalThunk::buffer_uses() const {
  BufferUses uses = {BufferUse::Read(selector_)};
  for (const auto& branch : branches_) {
    BufferUses inner = branch->buffer_uses();
    uses.insert(uses.end(), inner.begin(), inner.end());
  }
  return uses;
}

}  // namespace xla_lite::gpu
