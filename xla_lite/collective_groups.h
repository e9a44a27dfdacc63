#ifndef XLA_LITE_COLLECTIVE_GROUPS_H_
#define XLA_LITE_COLLECTIVE_GROUPS_H_

// Which devices a collective combines, from the ids its replica_groups or
// source_target_pairs name. Shared by the HLO layer (verifier, evaluator)
// and the runtime (collective thunks), which must agree exactly.

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace xla_lite {

// The devices a program runs on: num_replicas copies of a program
// partitioned num_partitions ways. Device d is replica d / num_partitions,
// partition d % num_partitions (XLA's global device id). A shard_map
// program runs as partitions of one replica; pmap's as replicas.
struct DeviceTopology {
  int64_t num_replicas = 1;
  int64_t num_partitions = 1;
  int64_t device_count() const { return num_replicas * num_partitions; }
};

// XLA's modes: what the ids of replica_groups are.
enum class CollectiveGroupMode {
  kCrossReplica,              // no channel_id: replica ids, per partition
  kCrossPartition,            // collective-permute with a channel_id
  kCrossReplicaAndPartition,  // channel_id: replica ids, all partitions
  kFlattenedId,               // channel_id + use_global_device_ids
};

// The groups of global device ids: every device in exactly one group, the
// groups of equal size, in the order given. Empty `groups` is one group
// of every id. INVALID_ARGUMENT (without saying which instruction) when an
// id is out of range for `topology`, repeated, or missing.
absl::StatusOr<std::vector<std::vector<int64_t>>> ResolveDeviceGroups(
    CollectiveGroupMode mode, const std::vector<std::vector<int64_t>>& groups,
    const DeviceTopology& topology);

// collective-permute's (source, target) pairs as global device ids; each
// source and each target at most once.
absl::StatusOr<std::vector<std::pair<int64_t, int64_t>>> ResolvePermutePairs(
    CollectiveGroupMode mode,
    const std::vector<std::pair<int64_t, int64_t>>& pairs,
    const DeviceTopology& topology);

}  // namespace xla_lite

#endif  // XLA_LITE_COLLECTIVE_GROUPS_H_
