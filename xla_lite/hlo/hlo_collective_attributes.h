#ifndef XLA_LITE_HLO_HLO_COLLECTIVE_ATTRIBUTES_H_
#define XLA_LITE_HLO_HLO_COLLECTIVE_ATTRIBUTES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace xla_lite {

// The attributes of all-reduce, all-gather, reduce-scatter and
// collective-permute, with XLA's names. Which ids `replica_groups` and
// `source_target_pairs` hold depends on the mode (see
// hlo_collective_groups.h): replica ids, partition ids, or global device
// ids (replica * num_partitions + partition).
struct CollectiveAttributes {
  // replica_groups={{0,1},{2,3}}, or the mesh form
  // replica_groups=mesh['x'=2,'y'=2] {'x'} stored as the groups it means
  // (devices numbered row-major over the mesh, one group per index of the
  // axes not named). Empty: one group of every participant.
  std::vector<std::vector<int64_t>> replica_groups;
  std::optional<int64_t> channel_id;
  bool use_global_device_ids = false;
  // collective-permute: {source, target} pairs.
  std::vector<std::pair<int64_t, int64_t>> source_target_pairs;
};

// The collective attributes in the parser's syntax (groups in list form),
// for HloInstruction::ToString.
std::vector<std::string> CollectiveAttributeStrings(
    const CollectiveAttributes& attrs, bool is_permute);

}  // namespace xla_lite

#endif  // XLA_LITE_HLO_HLO_COLLECTIVE_ATTRIBUTES_H_
