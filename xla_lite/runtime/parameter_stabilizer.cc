#include "xla_lite/runtime/parameter_stabilizer.h"

#include "base/status_macros.h"
#include "glog/logging.h"

namespace xla_lite::gpu {

ParameterStabilizer::ParameterStabilizer(
    std::vector<BufferAllocation::Index> allocations, std::vector<bool> written)
    : allocations_(std::move(allocations)),
      written_(std::move(written)),
      stabilized_(allocations_.size(), false) {
  CHECK_EQ(allocations_.size(), written_.size());
}

bool ParameterStabilizer::Enabled(const Thunk::ExecuteParams& params) {
  return params.stable_buffers != nullptr && params.debug_options != nullptr &&
         params.debug_options
                 ->xla_gpu_command_buffer_parameter_stabilization() !=
             DebugOptions::PARAMETER_STABILIZATION_NONE;
}

void ParameterStabilizer::RememberWarmup(const BufferAllocations& buffers) {
  warmup_.clear();
  for (BufferAllocation::Index index : allocations_) {
    warmup_.push_back(buffers.GetDeviceAddress(index));
  }
}

absl::StatusOr<ParameterStabilizer::Plan> ParameterStabilizer::Prepare(
    const Thunk::ExecuteParams& params,
    absl::Span<const se::DeviceAddressBase> held) {
  Plan plan;
  if (!Enabled(params)) return plan;
  absl::Span<const se::DeviceAddressBase> reference =
      held.empty() ? absl::MakeConstSpan(warmup_) : held;
  std::vector<se::DeviceAddressBase> buffers =
      params.buffer_allocations->buffers();
  bool replaced = false;
  for (int64_t p = 0; p < allocations_.size(); ++p) {
    BufferAllocation::Index index = allocations_[p];
    if (!params.stable_buffers->IsEntryParameter(index)) continue;
    se::DeviceAddressBase caller = buffers[index];
    if (!stabilized_[p] && (p >= reference.size() || caller == reference[p])) {
      continue;
    }
    ASSIGN_OR_RETURN(se::DeviceAddressBase stable,
                     params.stable_buffers->Get(index));
    if (!stabilized_[p]) {
      VLOG(1) << "allocation " << index << " moved from "
              << reference[p].ToString() << " to " << caller.ToString()
              << "; stabilized at " << stable.ToString();
      stabilized_[p] = true;
    }
    replaced = true;
    buffers[index] = stable;
    if (caller == stable) continue;
    RETURN_IF_ERROR(params.stream->Memcpy(&stable, caller, caller.size()));
    if (params.stats != nullptr) {
      ++params.stats->stabilization_copies;
      params.stats->stabilization_copy_bytes += caller.size();
    }
    if (written_[p]) plan.copy_backs.emplace_back(stable, caller);
  }
  if (replaced) {
    plan.buffers.emplace(std::move(buffers),
                         params.buffer_allocations->device_ordinal());
  }
  return plan;
}

absl::Status ParameterStabilizer::CopyBack(const Plan& plan,
                                           const Thunk::ExecuteParams& params) {
  for (auto [stable, caller] : plan.copy_backs) {
    RETURN_IF_ERROR(params.stream->Memcpy(&caller, stable, caller.size()));
    if (params.stats != nullptr) {
      ++params.stats->stabilization_copy_backs;
      params.stats->stabilization_copy_back_bytes += caller.size();
    }
  }
  return absl::OkStatus();
}

}  // namespace xla_lite::gpu
