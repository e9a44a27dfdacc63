// The evaluator's collectives: every device's operand is gathered through
// the rendezvous, and each device computes its own result from all of
// them, in group order, so every device of a group gets the same bits.

#include <cstring>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "xla_lite/hlo/hlo_collective_groups.h"
#include "xla_lite/hlo/hlo_evaluator_internal.h"

namespace xla_lite::evaluator_internal {
namespace {

const std::vector<int64_t>& GroupOf(
    const std::vector<std::vector<int64_t>>& groups, int64_t device) {
  for (const std::vector<int64_t>& group : groups) {
    for (int64_t d : group) {
      if (d == device) return group;
    }
  }
  return groups.front();  // unreachable: groups cover every device
}

// Bytes of one row-major array split along `dim`: `outer` runs of
// `inner_bytes` per unit of that dimension.
struct Split {
  int64_t outer = 1;
  int64_t inner_bytes = 0;
};
Split SplitAt(const Shape& shape, int64_t dim) {
  Split s;
  s.inner_bytes = primitive_util::ByteWidth(shape.element_type());
  for (int64_t d = 0; d < shape.rank(); ++d) {
    if (d < dim) s.outer *= shape.dimensions(d);
    if (d > dim) s.inner_bytes *= shape.dimensions(d);
  }
  return s;
}

// Copies `piece` (extent `size` along dim) into `whole` at `offset`, or
// back out when `into_whole` is false.
void CopyBlock(const Split& s, int64_t whole_extent, int64_t size,
               int64_t offset, Literal* whole, Literal* piece,
               bool into_whole) {
  for (int64_t o = 0; o < s.outer; ++o) {
    uint8_t* w = whole->mutable_bytes().data() +
                 (o * whole_extent + offset) * s.inner_bytes;
    uint8_t* p = piece->mutable_bytes().data() + o * size * s.inner_bytes;
    if (into_whole) {
      std::memcpy(w, p, size * s.inner_bytes);
    } else {
      std::memcpy(p, w, size * s.inner_bytes);
    }
  }
}

absl::StatusOr<Literal> Reduce(const std::vector<Literal>& values,
                               const std::vector<int64_t>& group,
                               const ScalarCombiner& combine) {
  Literal acc = values[group[0]];
  for (size_t k = 1; k < group.size(); ++k) {
    const Literal& next = values[group[k]];
    for (int64_t i = 0; i < acc.element_count(); ++i) {
      RETURN_IF_ERROR(combine(acc, i, next, i, &acc, i));
    }
  }
  return acc;
}

int64_t PositionIn(const std::vector<int64_t>& group, int64_t device) {
  for (size_t k = 0; k < group.size(); ++k) {
    if (group[k] == device) return k;
  }
  return 0;
}

absl::StatusOr<Literal> Combine(const HloInstruction& instr,
                                const std::vector<Literal>& values,
                                const DeviceContext& ctx,
                                const ScalarCombiner& combine) {
  if (instr.opcode() == HloOpcode::kCollectivePermute) {
    ASSIGN_OR_RETURN(auto pairs, CollectivePermutePairs(instr, ctx.topology));
    for (const auto& [source, target] : pairs) {
      if (target == ctx.device) return values[source];
    }
    return Literal(instr.shape());  // not a target: zeros, as in XLA
  }
  ASSIGN_OR_RETURN(auto groups, CollectiveDeviceGroups(instr, ctx.topology));
  const std::vector<int64_t>& group = GroupOf(groups, ctx.device);
  if (instr.opcode() == HloOpcode::kAllReduce) {
    return Reduce(values, group, combine);
  }
  const int64_t dim = instr.dimensions(0);
  const int64_t count = group.size();
  if (instr.opcode() == HloOpcode::kAllGather) {
    Literal out(instr.shape());
    if (instr.shape().dimensions(dim) !=
        values[group[0]].shape().dimensions(dim) * count) {
      return absl::InvalidArgumentError(absl::StrCat(
          "result ", instr.shape().ToString(), " is not ", count,
          " operands gathered along dimension ", dim));
    }
    const Split s = SplitAt(values[group[0]].shape(), dim);
    const int64_t size = values[group[0]].shape().dimensions(dim);
    for (int64_t k = 0; k < count; ++k) {
      Literal piece = values[group[k]];
      CopyBlock(s, size * count, size, k * size, &out, &piece, true);
    }
    return out;
  }
  // reduce-scatter: this device's block of the reduced value.
  ASSIGN_OR_RETURN(Literal reduced, Reduce(values, group, combine));
  const int64_t size = instr.shape().dimensions(dim);
  if (size * count != reduced.shape().dimensions(dim)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "operand dimension ", dim, " is not ", count, " blocks of ", size));
  }
  Literal out(instr.shape());
  CopyBlock(SplitAt(instr.shape(), dim), size * count, size,
            PositionIn(group, ctx.device) * size, &reduced, &out, false);
  return out;
}

}  // namespace

absl::StatusOr<Literal> EvaluateCollective(const HloInstruction& instr,
                                           absl::Span<const Literal* const> operands,
                                           DeviceContext& ctx,
                                           const ScalarCombiner& combine) {
  const int64_t partitions = ctx.topology.num_partitions;
  if (instr.opcode() == HloOpcode::kReplicaId) {
    return Literal::CreateR0(PrimitiveType::U32, ctx.device / partitions);
  }
  if (instr.opcode() == HloOpcode::kPartitionId) {
    return Literal::CreateR0(PrimitiveType::U32, ctx.device % partitions);
  }
  if (ctx.rendezvous == nullptr) {
    // One device: every group is this device alone.
    EvaluatorRendezvous single(1);
    DeviceContext alone = ctx;
    alone.rendezvous = &single;
    return EvaluateCollective(instr, operands, alone, combine);
  }
  ASSIGN_OR_RETURN(auto values,
                   ctx.rendezvous->Exchange(ctx.next_exchange++, ctx.device,
                                            instr.name(), *operands[0],
                                            ctx.timeout));
  return Combine(instr, *values, ctx, combine);
}

}  // namespace xla_lite::evaluator_internal
