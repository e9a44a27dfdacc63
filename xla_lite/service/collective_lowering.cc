#include "xla_lite/service/collective_lowering.h"

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "xla_lite/hlo/hlo_collective_groups.h"
#include "xla_lite/hlo/hlo_computation.h"
#include "xla_lite/primitive_util.h"
#include "xla_lite/service/elemental_ops.h"

namespace xla_lite::gpu {
namespace {

absl::StatusOr<se::CollectiveDataType> DataTypeOf(const HloInstruction& instr) {
  const PrimitiveType type = instr.shape().element_type();
  switch (type) {
    case PrimitiveType::F32:
      return se::CollectiveDataType::kF32;
    case PrimitiveType::BF16:
      return se::CollectiveDataType::kBF16;
    case PrimitiveType::S32:
      return se::CollectiveDataType::kS32;
    default:
      return UnsupportedOpError(instr,
                                primitive_util::LowercasePrimitiveTypeName(type),
                                "collectives carry f32, bf16 and s32");
  }
}

// The reduction of a to_apply that is one binary op of its parameters.
absl::StatusOr<se::ReductionKind> ReductionOf(const HloInstruction& instr) {
  const HloComputation* to_apply = instr.to_apply();
  const HloInstruction* root = to_apply->root_instruction();
  const bool binary_of_parameters =
      root->operand_count() == 2 &&
      root->operand(0)->opcode() == HloOpcode::kParameter &&
      root->operand(1)->opcode() == HloOpcode::kParameter &&
      root->operand(0) != root->operand(1);
  if (binary_of_parameters) {
    switch (root->opcode()) {
      case HloOpcode::kAdd:
        return se::ReductionKind::kSum;
      case HloOpcode::kMultiply:
        return se::ReductionKind::kProduct;
      case HloOpcode::kMaximum:
        return se::ReductionKind::kMax;
      case HloOpcode::kMinimum:
        return se::ReductionKind::kMin;
      default:
        break;
    }
  }
  return UnsupportedOpError(
      instr, primitive_util::LowercasePrimitiveTypeName(
                 instr.shape().element_type()),
      absl::StrCat("to_apply '", to_apply->name(),
                   "' is not one add, multiply, maximum or minimum"));
}

absl::Status CheckContiguousPieces(const HloInstruction& instr,
                                   const Shape& whole) {
  const int64_t dim = instr.dimensions(0);
  for (int64_t d = 0; d < dim; ++d) {
    if (whole.dimensions(d) != 1) {
      return UnsupportedOpError(
          instr, primitive_util::LowercasePrimitiveTypeName(
                     whole.element_type()),
          absl::StrCat("pieces along dimension ", dim, " of ",
                       whole.ToString(), " are not contiguous"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<CollectiveConfig> LowerCollective(const HloInstruction& instr) {
  CollectiveConfig config;
  ASSIGN_OR_RETURN(config.type, DataTypeOf(instr));
  config.mode = GroupModeOf(instr);
  config.replica_groups = instr.collective_attributes().replica_groups;
  config.source_target_pairs = instr.collective_attributes().source_target_pairs;
  config.source_elements = instr.operand(0)->shape().ElementCount();
  config.destination_elements = instr.shape().ElementCount();
  switch (instr.opcode()) {
    case HloOpcode::kAllReduce: {
      config.op = CollectiveConfig::Op::kAllReduce;
      ASSIGN_OR_RETURN(config.reduction, ReductionOf(instr));
      break;
    }
    case HloOpcode::kAllGather:
      config.op = CollectiveConfig::Op::kAllGather;
      RETURN_IF_ERROR(CheckContiguousPieces(instr, instr.shape()));
      break;
    case HloOpcode::kReduceScatter: {
      config.op = CollectiveConfig::Op::kReduceScatter;
      ASSIGN_OR_RETURN(config.reduction, ReductionOf(instr));
      RETURN_IF_ERROR(CheckContiguousPieces(instr, instr.operand(0)->shape()));
      break;
    }
    case HloOpcode::kCollectivePermute:
      config.op = CollectiveConfig::Op::kCollectivePermute;
      break;
    default:
      return UnsupportedOpError(instr, "", "not a collective");
  }
  return config;
}

}  // namespace xla_lite::gpu
