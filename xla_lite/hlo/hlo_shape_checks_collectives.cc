// Shape rules of the collectives, replica-id, partition-id and custom-call.
// How many devices a run has is not known here, so the groups are checked
// only for what holds on any run (ids >= 0, none repeated, equal sizes);
// CollectiveDeviceGroups checks them against the run's devices.

#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "xla_lite/hlo/hlo_shape_checker.h"

namespace xla_lite::verifier_internal {
namespace {

// The size of every group, or 0 when replica_groups is empty (all
// devices: known only at run time).
absl::StatusOr<int64_t> GroupSize(const Checker& c) {
  const auto& groups = c.instr().collective_attributes().replica_groups;
  absl::flat_hash_set<int64_t> seen;
  for (const std::vector<int64_t>& group : groups) {
    if (group.empty() || group.size() != groups[0].size()) {
      return c.Error(absl::StrCat(
          "expected replica groups of one non-zero size, got sizes ",
          groups[0].size(), " and ", group.size()));
    }
    for (int64_t id : group) {
      if (id < 0 || !seen.insert(id).second) {
        return c.Error(absl::StrCat(
            "expected distinct replica group ids >= 0, got ", id,
            id < 0 ? "" : " twice"));
      }
    }
  }
  return groups.empty() ? 0 : static_cast<int64_t>(groups[0].size());
}

// all-gather grows `dimensions` by the group size, reduce-scatter shrinks
// it by that much.
absl::Status CheckGatherOrScatter(const Checker& c, bool gather) {
  RETURN_IF_ERROR(c.OperandCount(1));
  RETURN_IF_ERROR(c.AllArrays());
  const Shape& operand = c.operand_shape(0);
  const std::vector<int64_t>& dims = c.instr().dimensions();
  if (dims.size() != 1 || dims[0] < 0 || dims[0] >= operand.rank()) {
    return c.Error(absl::StrCat("expected one dimension in [0, ",
                                operand.rank(), "), got ", Dims(dims)));
  }
  ASSIGN_OR_RETURN(int64_t group_size, GroupSize(c));
  const int64_t d = dims[0];
  const Shape& result = c.instr().shape();
  if (result.rank() != operand.rank()) return c.Result(operand);
  const int64_t small = gather ? operand.dimensions(d) : result.dimensions(d);
  const int64_t large = gather ? result.dimensions(d) : operand.dimensions(d);
  if (group_size == 0) {
    // Any whole number of pieces.
    if (small == 0 || large % small != 0) {
      return c.Error(absl::StrCat("expected dimension ", d, " of ",
                                  gather ? "the result" : "the operand",
                                  " a multiple of ", small, ", got ", large));
    }
    group_size = large / small;
  }
  std::vector<int64_t> expected = operand.dimensions();
  if (gather) {
    expected[d] *= group_size;
  } else if (expected[d] % group_size != 0) {
    return c.Error(absl::StrCat("expected dimension ", d, " (", expected[d],
                                ") divisible by the group size ", group_size));
  } else {
    expected[d] /= group_size;
  }
  if (!gather) {
    RETURN_IF_ERROR(c.ScalarBinaryComputation(c.instr().to_apply(),
                                              operand.element_type()));
  }
  return c.Result(Shape::Array(operand.element_type(), expected));
}

}  // namespace

absl::Status CheckCollective(const Checker& c) {
  const HloInstruction& instr = c.instr();
  switch (instr.opcode()) {
    case HloOpcode::kAllReduce:
      if (instr.operand_count() != 1) {
        return c.Unimplemented(absl::StrCat("all-reduce of ",
                                            instr.operand_count(),
                                            " operands; only one is supported"));
      }
      RETURN_IF_ERROR(c.AllArrays());
      RETURN_IF_ERROR(GroupSize(c).status());
      RETURN_IF_ERROR(c.ScalarBinaryComputation(
          instr.to_apply(), c.operand_shape(0).element_type()));
      return c.Result(c.operand_shape(0));
    case HloOpcode::kAllGather:
      return CheckGatherOrScatter(c, /*gather=*/true);
    case HloOpcode::kReduceScatter:
      return CheckGatherOrScatter(c, /*gather=*/false);
    case HloOpcode::kCollectivePermute:
      RETURN_IF_ERROR(c.OperandCount(1));
      RETURN_IF_ERROR(c.AllArrays());
      return c.Result(c.operand_shape(0));
    case HloOpcode::kReplicaId:
    case HloOpcode::kPartitionId:
      RETURN_IF_ERROR(c.OperandCount(0));
      return c.Result(Shape::Array(PrimitiveType::U32, {}));
    case HloOpcode::kCustomCall:
      // Its meaning is its target's; passes that know the target check it.
      return absl::OkStatus();
    default:
      return c.Error("expected a collective");
  }
}

}  // namespace xla_lite::verifier_internal
