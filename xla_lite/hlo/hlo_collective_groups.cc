#include "xla_lite/hlo/hlo_collective_groups.h"

#include <string>

#include "absl/strings/str_cat.h"

namespace xla_lite {
namespace {

template <typename T>
absl::StatusOr<T> Annotated(const HloInstruction& instr,
                            absl::StatusOr<T> result) {
  if (result.ok()) return result;
  return absl::Status(result.status().code(),
                      absl::StrCat(InstructionErrorPrefix(instr),
                                   result.status().message()));
}

}  // namespace

std::string InstructionErrorPrefix(const HloInstruction& instr) {
  std::string where = instr.SourceLocation();
  if (!where.empty()) absl::StrAppend(&where, ": ");
  return absl::StrCat(where, "instruction '", instr.name(), "' (",
                      HloOpcodeString(instr.opcode()), "): ");
}

CollectiveGroupMode GroupModeOf(const HloInstruction& instr) {
  const CollectiveAttributes& a = instr.collective_attributes();
  if (!a.channel_id.has_value()) return CollectiveGroupMode::kCrossReplica;
  if (instr.opcode() == HloOpcode::kCollectivePermute) {
    return CollectiveGroupMode::kCrossPartition;
  }
  return a.use_global_device_ids ? CollectiveGroupMode::kFlattenedId
                                 : CollectiveGroupMode::kCrossReplicaAndPartition;
}

absl::StatusOr<std::vector<std::vector<int64_t>>> CollectiveDeviceGroups(
    const HloInstruction& instr, const DeviceTopology& topology) {
  return Annotated(instr, ResolveDeviceGroups(
                              GroupModeOf(instr),
                              instr.collective_attributes().replica_groups,
                              topology));
}

absl::StatusOr<std::vector<std::pair<int64_t, int64_t>>> CollectivePermutePairs(
    const HloInstruction& instr, const DeviceTopology& topology) {
  return Annotated(instr, ResolvePermutePairs(
                              GroupModeOf(instr),
                              instr.collective_attributes().source_target_pairs,
                              topology));
}

}  // namespace xla_lite
