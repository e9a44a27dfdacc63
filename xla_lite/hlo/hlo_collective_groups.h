#ifndef XLA_LITE_HLO_HLO_COLLECTIVE_GROUPS_H_
#define XLA_LITE_HLO_HLO_COLLECTIVE_GROUPS_H_

#include <cstdint>
#include <utility>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "xla_lite/collective_groups.h"
#include "xla_lite/hlo/hlo_instruction.h"

namespace xla_lite {

// The mode of `instr`'s ids (XLA's GetCollectiveOpGroupMode).
CollectiveGroupMode GroupModeOf(const HloInstruction& instr);

// The groups of global device ids `instr` (all-reduce, all-gather,
// reduce-scatter) combines (ResolveDeviceGroups); errors name the
// instruction and its line.
absl::StatusOr<std::vector<std::vector<int64_t>>> CollectiveDeviceGroups(
    const HloInstruction& instr, const DeviceTopology& topology);

// collective-permute's (source, target) pairs as global device ids; each
// source and each target at most once.
absl::StatusOr<std::vector<std::pair<int64_t, int64_t>>> CollectivePermutePairs(
    const HloInstruction& instr, const DeviceTopology& topology);

// "<source>:<line>: instruction 'name' (opcode): " for errors about it.
std::string InstructionErrorPrefix(const HloInstruction& instr);

}  // namespace xla_lite

#endif  // XLA_LITE_HLO_HLO_COLLECTIVE_GROUPS_H_
