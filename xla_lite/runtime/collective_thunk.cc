#include "xla_lite/runtime/collective_thunk.h"

#include <optional>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "glog/logging.h"
#include "stream_executor/command_buffer.h"
#include "xla_lite/runtime/buffer_allocations.h"
#include "xla_lite/runtime/collective_cliques.h"

namespace xla_lite::gpu {
namespace {

int64_t Position(const std::vector<int64_t>& group, int64_t device) {
  for (size_t i = 0; i < group.size(); ++i) {
    if (group[i] == device) return i;
  }
  return -1;
}

}  // namespace

const char* CollectiveOpName(CollectiveConfig::Op op) {
  switch (op) {
    case CollectiveConfig::Op::kAllReduce:
      return "all-reduce";
    case CollectiveConfig::Op::kAllGather:
      return "all-gather";
    case CollectiveConfig::Op::kReduceScatter:
      return "reduce-scatter";
    case CollectiveConfig::Op::kCollectivePermute:
      return "collective-permute";
  }
  return "?";
}

CollectiveThunk::CollectiveThunk(std::string name, CollectiveConfig config,
                                 BufferAllocation::Slice source,
                                 BufferAllocation::Slice destination)
    : Thunk(Kind::kCollective, std::move(name)),
      config_(std::move(config)),
      source_(source),
      destination_(destination) {
  const int64_t width = se::CollectiveDataTypeSize(config_.type);
  CHECK_EQ(source_.size(), config_.source_elements * width) << this->name();
  CHECK_EQ(destination_.size(), config_.destination_elements * width)
      << this->name();
}

BufferUses CollectiveThunk::buffer_uses() const {
  return {BufferUse::Read(source_), BufferUse::Write(destination_)};
}

// A group of one: the reduction of one value is the value, a gather of
// one piece is the piece, a permutation sends to itself or nobody.
absl::Status CollectiveThunk::RunAlone(se::Stream* stream,
                                       se::DeviceAddressBase source,
                                       se::DeviceAddressBase destination) const {
  if (config_.source_elements != config_.destination_elements) {
    return absl::InvalidArgumentError(absl::StrCat(
        name(), ": ", CollectiveOpName(config_.op),
        " changes the element count, so it needs several devices"));
  }
  if (config_.op == CollectiveConfig::Op::kCollectivePermute) {
    bool to_self = false;
    for (const auto& [s, t] : config_.source_target_pairs) {
      to_self |= s == 0 && t == 0;
    }
    if (!to_self) return stream->MemZero(&destination, destination.size());
  }
  if (source.opaque() == destination.opaque()) return absl::OkStatus();
  return stream->Memcpy(&destination, source, destination.size());
}

absl::Status CollectiveThunk::Run(const CollectiveExecuteParams* collectives,
                                  se::Stream* stream,
                                  se::DeviceAddressBase source,
                                  se::DeviceAddressBase destination) const {
  if (collectives == nullptr || collectives->cliques == nullptr) {
    return RunAlone(stream, source, destination);
  }
  CollectiveCliques& cliques = *collectives->cliques;
  const int64_t device = collectives->device_id;
  std::vector<int64_t> group;
  std::optional<int> from, to;
  if (config_.op == CollectiveConfig::Op::kCollectivePermute) {
    // Everyone takes part, so the communicator is the one of all devices.
    for (int64_t d = 0; d < cliques.topology().device_count(); ++d) {
      group.push_back(d);
    }
    ASSIGN_OR_RETURN(auto pairs,
                     ResolvePermutePairs(config_.mode,
                                         config_.source_target_pairs,
                                         cliques.topology()));
    for (const auto& [s, t] : pairs) {
      if (t == device) from = s;
      if (s == device) to = t;
    }
  } else {
    ASSIGN_OR_RETURN(auto groups,
                     ResolveDeviceGroups(config_.mode, config_.replica_groups,
                                         cliques.topology()));
    for (auto& g : groups) {
      if (Position(g, device) >= 0) group = std::move(g);
    }
  }
  ASSIGN_OR_RETURN(se::Communicator * comm, cliques.Get(group, device));
  VLOG(5) << name() << ": " << CollectiveOpName(config_.op) << " rank "
          << comm->rank() << " of " << comm->world_size();
  switch (config_.op) {
    case CollectiveConfig::Op::kAllReduce:
      return comm->AllReduce(source, destination, config_.type,
                             config_.source_elements, config_.reduction,
                             stream);
    case CollectiveConfig::Op::kAllGather:
      return comm->AllGather(source, destination, config_.type,
                             config_.source_elements, stream);
    case CollectiveConfig::Op::kReduceScatter:
      return comm->ReduceScatter(source, destination, config_.type,
                                 config_.destination_elements,
                                 config_.reduction, stream);
    case CollectiveConfig::Op::kCollectivePermute:
      return comm->CollectivePermute(
          source, destination, config_.type, config_.source_elements,
          from.has_value() ? std::optional<int>(Position(group, *from))
                           : std::nullopt,
          to.has_value() ? std::optional<int>(Position(group, *to))
                         : std::nullopt,
          stream);
  }
  return absl::InternalError("unknown collective");
}

absl::Status CollectiveThunk::ExecuteOnStream(const ExecuteParams& params) {
  const BufferAllocations& buffers = *params.buffer_allocations;
  return Run(params.collectives, params.stream,
             buffers.GetDeviceAddress(source_),
             buffers.GetDeviceAddress(destination_));
}

absl::StatusOr<std::unique_ptr<se::CapturedGraph>> CollectiveThunk::Trace(
    const RecordParams& params) const {
  const BufferAllocations& buffers = *params.buffer_allocations;
  se::DeviceAddressBase source = buffers.GetDeviceAddress(source_);
  se::DeviceAddressBase destination = buffers.GetDeviceAddress(destination_);
  return se::TraceIntoGraph(params.stream, [&](se::Stream* stream) {
    return Run(params.collectives, stream, source, destination);
  });
}

absl::StatusOr<const se::CommandBuffer::Command*> CollectiveThunk::Record(
    const RecordParams& params, se::CommandBuffer* command_buffer,
    se::CommandBuffer::Dependencies dependencies) {
  ASSIGN_OR_RETURN(std::unique_ptr<se::CapturedGraph> graph, Trace(params));
  return command_buffer->CreateChild(*graph, dependencies);
}

absl::Status CollectiveThunk::UpdateRecorded(
    const RecordParams& params, se::CommandBuffer* command_buffer,
    const se::CommandBuffer::Command* command) {
  ASSIGN_OR_RETURN(std::unique_ptr<se::CapturedGraph> graph, Trace(params));
  return command_buffer->UpdateChild(command, *graph);
}

}  // namespace xla_lite::gpu
