#ifndef XLA_LITE_SERVICE_SHARD_MAP_PARTITIONER_H_
#define XLA_LITE_SERVICE_SHARD_MAP_PARTITIONER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "xla_lite/hlo/hlo_collective_groups.h"
#include "xla_lite/hlo/hlo_module.h"
#include "xla_lite/hlo/literal.h"

namespace xla_lite {

// How one global array is laid over the devices: for each dimension the
// number of pieces it is cut into (1: whole on every device). Device d
// holds piece d / (device_count / pieces) of a cut dimension, so a
// one-axis mesh cuts the batch in device order, as JAX does.
struct ArraySharding {
  std::vector<int64_t> pieces;
  bool replicated() const;
};

// What a global-view shard_map module (JAX's jit of shard_map or pmap:
// the per-device body called between custom-calls to
// xla.sdy.GlobalToLocalShape and xla.sdy.LocalToGlobalShape) becomes: the
// per-device program and how its parameters and results relate to the
// global ones.
struct ShardMapSignature {
  int64_t device_count = 1;
  DeviceTopology topology;  // one replica, device_count partitions
  std::vector<ArraySharding> in_shardings;
  std::vector<ArraySharding> out_shardings;
  std::vector<Shape> global_parameters;
  std::vector<Shape> global_results;
};

// True when the entry computation holds a GlobalToLocalShape custom-call.
bool IsShardMapModule(const HloModule& module);

// Rewrites `module` in place into the per-device program for
// `device_count` devices: entry parameters take their local shapes, the
// two custom-calls become tuples of what they converted (the call inliner
// and simplifier then remove them), and entry_computation_layout follows.
// A module without shard_map is left alone and gets a signature of
// replicated arrays. Each buffer_donor parameter p becomes a may-alias of
// result p when their shapes agree: JAX's training steps return the
// updated state where it came in, and the aliasing is what feeds it back
// step after step. INVALID_ARGUMENT naming the instruction and line when
// the structure differs from JAX's, when a sharded dimension does not
// divide by its pieces, or when the shardings disagree with the local
// shapes or with `device_count`; UNIMPLEMENTED for a mesh of more than one
// axis.
absl::StatusOr<ShardMapSignature> PartitionShardMapModule(
    HloModule* module, int64_t device_count);

// Device d's piece of each global argument.
absl::StatusOr<std::vector<std::vector<Literal>>> SplitGlobalArguments(
    const ShardMapSignature& signature, absl::Span<const Literal> global);

// The global results from every device's (device-major); a replicated
// result is device 0's, after checking that every device holds the same
// bits (INTERNAL naming the result and device otherwise).
absl::StatusOr<std::vector<Literal>> GatherGlobalResults(
    const ShardMapSignature& signature,
    absl::Span<const std::vector<Literal>> per_device);

}  // namespace xla_lite

#endif  // XLA_LITE_SERVICE_SHARD_MAP_PARTITIONER_H_
