#include "xla_lite/collective_groups.h"

#include <string>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace xla_lite {
namespace {

absl::Status GroupError(absl::string_view what) {
  return absl::InvalidArgumentError(what);
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

absl::Status CheckIds(const std::vector<std::vector<int64_t>>& groups,
                      int64_t domain) {
  absl::flat_hash_set<int64_t> seen;
  for (const std::vector<int64_t>& group : groups) {
    if (group.size() != groups[0].size()) {
      return GroupError(absl::StrCat("replica groups of unequal sizes ",
                                            groups[0].size(), " and ",
                                            group.size()));
    }
    for (int64_t id : group) {
      if (id < 0 || id >= domain) {
        return GroupError(absl::StrCat("replica group id ", id,
                                              " out of range [0, ", domain,
                                              ") for this run"));
      }
      if (!seen.insert(id).second) {
        return GroupError(absl::StrCat("id ", id,
                                              " in more than one group"));
      }
    }
  }
  if (static_cast<int64_t>(seen.size()) != domain) {
    return GroupError(absl::StrCat("replica groups name ", seen.size(),
                                          " of the ", domain,
                                          " ids of this run; every id must "
                                          "be in one group"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<std::vector<int64_t>>> ResolveDeviceGroups(
    CollectiveGroupMode mode, const std::vector<std::vector<int64_t>>& given,
    const DeviceTopology& topology) {
  const int64_t domain = IdDomain(mode, topology);
  std::vector<std::vector<int64_t>> groups = given;
  if (groups.empty()) {
    groups.emplace_back();
    for (int64_t id = 0; id < domain; ++id) groups[0].push_back(id);
  }
  if (auto status = CheckIds(groups, domain); !status.ok()) {
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

absl::StatusOr<std::vector<std::pair<int64_t, int64_t>>> ResolvePermutePairs(
    CollectiveGroupMode mode,
    const std::vector<std::pair<int64_t, int64_t>>& given,
    const DeviceTopology& topology) {
  const int64_t domain = IdDomain(mode, topology);
  absl::flat_hash_set<int64_t> sources, targets;
  for (const auto& [source, target] : given) {
    for (int64_t id : {source, target}) {
      if (id < 0 || id >= domain) {
        return GroupError(absl::StrCat("source_target_pairs id ", id,
                                              " out of range [0, ", domain,
                                              ") for this run"));
      }
    }
    if (!sources.insert(source).second || !targets.insert(target).second) {
      return GroupError(absl::StrCat("pair {", source, ",", target,
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
    for (const auto& [s, t] : given) {
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
