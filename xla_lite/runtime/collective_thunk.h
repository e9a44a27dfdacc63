#ifndef XLA_LITE_RUNTIME_COLLECTIVE_THUNK_H_
#define XLA_LITE_RUNTIME_COLLECTIVE_THUNK_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "stream_executor/collectives/communicator.h"
#include "xla_lite/collective_groups.h"
#include "xla_lite/runtime/buffer_allocation.h"
#include "xla_lite/runtime/thunk.h"

namespace xla_lite::gpu {

// What one collective instruction does, without HLO: the ids its groups
// name are resolved into devices at run time against the run's topology,
// so one compiled program runs on any number of devices.
struct CollectiveConfig {
  enum class Op { kAllReduce, kAllGather, kReduceScatter, kCollectivePermute };
  Op op = Op::kAllReduce;
  se::CollectiveDataType type = se::CollectiveDataType::kF32;
  se::ReductionKind reduction = se::ReductionKind::kSum;
  CollectiveGroupMode mode = CollectiveGroupMode::kCrossReplica;
  std::vector<std::vector<int64_t>> replica_groups;
  std::vector<std::pair<int64_t, int64_t>> source_target_pairs;
  // Elements of the operand (source) and of the result (destination).
  int64_t source_elements = 0;
  int64_t destination_elements = 0;
};
const char* CollectiveOpName(CollectiveConfig::Op op);

// One collective on the compute stream through the run's communicator of
// this device's group (RunOptions::collectives). Without a run of several
// devices, every group is this device alone: all-reduce and the others
// are copies. In a command buffer the communicator's calls become a traced
// child graph (NCCL supports stream capture), recorded on every rank
// together because every rank records the same step.
class CollectiveThunk : public Thunk {
 public:
  // CHECK-fails when a slice's size disagrees with the config's elements.
  CollectiveThunk(std::string name, CollectiveConfig config,
                  BufferAllocation::Slice source,
                  BufferAllocation::Slice destination);

  absl::Status ExecuteOnStream(const ExecuteParams& params) override;
  BufferUses buffer_uses() const override;

  bool IsRecordable() const override { return true; }
  absl::StatusOr<const se::CommandBuffer::Command*> Record(
      const RecordParams& params, se::CommandBuffer* command_buffer,
      se::CommandBuffer::Dependencies dependencies) override;
  absl::Status UpdateRecorded(
      const RecordParams& params, se::CommandBuffer* command_buffer,
      const se::CommandBuffer::Command* command) override;

  const CollectiveConfig& config() const { return config_; }

 private:
  // Enqueues the collective on `stream` for these addresses.
  absl::Status Run(const CollectiveExecuteParams* collectives,
                   se::Stream* stream, se::DeviceAddressBase source,
                   se::DeviceAddressBase destination) const;
  absl::Status RunAlone(se::Stream* stream, se::DeviceAddressBase source,
                        se::DeviceAddressBase destination) const;
  absl::StatusOr<std::unique_ptr<se::CapturedGraph>> Trace(
      const RecordParams& params) const;

  const CollectiveConfig config_;
  const BufferAllocation::Slice source_, destination_;
};

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_RUNTIME_COLLECTIVE_THUNK_H_
