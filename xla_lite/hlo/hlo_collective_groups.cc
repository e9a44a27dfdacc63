#include "xla_lite/hlo/hlo_collective_groups.h"

#include <string>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace xla_lite {
namespace {

absl::Status GroupError(const HloInstruction& instr, absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat(InstructionErrorPrefix(instr), what));
}

// The ids groups name in `mode` range over [0, domain).
int64_t IdDomain(CollectiveGroupMode mode, const DeviceTopology& t) {
  switch (mode) {
    case CollectiveGroupMode::kCrossReplica:
    case CollectiveGroupMode::kCrossReplicaAndPartition:
      return t.num_replicas;
    case CollectiveGroupMode::kCrossPartition:
      return t.num_partitions;
    case CollectiveGroupMode::kFlattenedId:
      return t.device_count();
  }
  return 0;
}

absl::Status CheckIds(const HloInstruction& instr,
                      const std::vector<std::vector<int64_t>>& groups,
                      int64_t domain) {
  absl::flat_hash_set<int64_t> seen;
  for (const std::vector<int64_t>& group : groups) {
    if (group.size() != groups[0].size()) {
      return GroupError(instr, absl::StrCat("replica groups of unequal sizes ",
                                            groups[0].size(), " and ",
                                            group.size()));
    }
    for (int64_t id : group) {
      if (id < 0 || id >= domain) {
        return GroupError(instr, absl::StrCat("replica group id ", id,
                                              " out of range [0, ", domain,
                                              ") for this run"));
      }
      if (!seen.insert(id).second) {
        return GroupError(instr, absl::StrCat("id ", id,
                                              " in more than one group"));
      }
    }
  }
  if (static_cast<int64_t>(seen.size()) != domain) {
    return GroupError(instr, absl::StrCat("replica groups name ", seen.size(),
                                          " of the ", domain,
                                          " ids of this run; every id must "
                                          "be in one group"));
  }
  return absl::OkStatus();
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
  const CollectiveGroupMode mode = GroupModeOf(instr);
  const int64_t domain = IdDomain(mode, topology);
  std::vector<std::vector<int64_t>> groups =
      instr.collective_attributes().replica_groups;
  if (groups.empty()) {
    groups.emplace_back();
    for (int64_t id = 0; id < domain; ++id) groups[0].push_back(id);
  }
  if (auto status = CheckIds(instr, groups, domain); !status.ok()) {
    return status;
  }
  const int64_t partitions = topology.num_partitions;
  std::vector<std::vector<int64_t>> devices;
  switch (mode) {
    case CollectiveGroupMode::kFlattenedId:
      return groups;
    case CollectiveGroupMode::kCrossReplica:
      for (int64_t p = 0; p < partitions; ++p) {
        for (const auto& group : groups) {
          devices.emplace_back();
          for (int64_t r : group) devices.back().push_back(r * partitions + p);
        }
      }
      return devices;
    default:
      for (const auto& group : groups) {
        devices.emplace_back();
        for (int64_t r : group) {
          for (int64_t p = 0; p < partitions; ++p) {
            devices.back().push_back(r * partitions + p);
          }
        }
      }
      return devices;
  }
}

absl::StatusOr<std::vector<std::pair<int64_t, int64_t>>> CollectivePermutePairs(
    const HloInstruction& instr, const DeviceTopology& topology) {
  const CollectiveGroupMode mode = GroupModeOf(instr);
  const int64_t domain = IdDomain(mode, topology);
  absl::flat_hash_set<int64_t> sources, targets;
  for (const auto& [source, target] :
       instr.collective_attributes().source_target_pairs) {
    for (int64_t id : {source, target}) {
      if (id < 0 || id >= domain) {
        return GroupError(instr, absl::StrCat("source_target_pairs id ", id,
                                              " out of range [0, ", domain,
                                              ") for this run"));
      }
    }
    if (!sources.insert(source).second || !targets.insert(target).second) {
      return GroupError(instr, absl::StrCat("pair {", source, ",", target,
                                            "} repeats a source or target"));
    }
  }
  // Each pair applies within every replica (partition ids) or every
  // partition (replica ids).
  std::vector<std::pair<int64_t, int64_t>> pairs;
  const int64_t copies = mode == CollectiveGroupMode::kCrossPartition
                             ? topology.num_replicas
                             : topology.num_partitions;
  for (int64_t c = 0; c < copies; ++c) {
    for (const auto& [s, t] :
         instr.collective_attributes().source_target_pairs) {
      if (mode == CollectiveGroupMode::kCrossPartition) {
        pairs.emplace_back(c * topology.num_partitions + s,
                           c * topology.num_partitions + t);
      } else {
        pairs.emplace_back(s * topology.num_partitions + c,
                           t * topology.num_partitions + c);
      }
    }
  }
  return pairs;
}

}  // namespace xla_lite
