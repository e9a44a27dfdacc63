#include "xla_lite/service/fusion_plan.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "glog/logging.h"
#include "xla_lite/service/elemental_lowering.h"
#include "xla_lite/service/hlo_rewrite_util.h"

namespace xla_lite::gpu {
namespace {

bool IsTranscendental(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kExp:
    case HloOpcode::kExpm1:
    case HloOpcode::kLog:
    case HloOpcode::kLog1p:
    case HloOpcode::kLogistic:
    case HloOpcode::kTanh:
    case HloOpcode::kSin:
    case HloOpcode::kCos:
    case HloOpcode::kPower:
    case HloOpcode::kSqrt:
    case HloOpcode::kRsqrt:
    case HloOpcode::kDivide:
    case HloOpcode::kRemainder:
      return true;
    default:
      return false;
  }
}

absl::Status Unsupported(const HloInstruction& instr, absl::string_view why) {
  return absl::UnimplementedError(
      absl::StrCat("instruction ", instr.name(), " (",
                   HloOpcodeString(instr.opcode()), "): ", why));
}

// Which element types each elementwise opcode takes.
absl::Status CheckElementwiseTypes(const HloInstruction& instr) {
  PrimitiveType type = instr.operand(instr.opcode() == HloOpcode::kSelect ? 1 : 0)
                           ->shape()
                           .element_type();
  bool is_float = primitive_util::IsFloatingPointType(type);
  bool is_pred = type == PrimitiveType::PRED;
  HloOpcode opcode = instr.opcode();
  switch (opcode) {
    case HloOpcode::kNot:
    case HloOpcode::kAnd:
    case HloOpcode::kOr:
    case HloOpcode::kXor:
      if (is_float) return Unsupported(instr, "needs pred or integer operands");
      return absl::OkStatus();
    case HloOpcode::kAbs:
    case HloOpcode::kNegate:
    case HloOpcode::kSign:
    case HloOpcode::kSubtract:
    case HloOpcode::kDivide:
    case HloOpcode::kRemainder:
    case HloOpcode::kPower:
      if (is_pred) return Unsupported(instr, "pred operands are not supported");
      return absl::OkStatus();
    case HloOpcode::kCompare:
    case HloOpcode::kSelect:
    case HloOpcode::kClamp:
    case HloOpcode::kConvert:
    case HloOpcode::kCopy:
    case HloOpcode::kAdd:
    case HloOpcode::kMultiply:
    case HloOpcode::kMaximum:
    case HloOpcode::kMinimum:
      return absl::OkStatus();
    default:
      if (IsElementwiseUnary(opcode) && !is_float) {
        return Unsupported(instr, "needs floating-point operands");
      }
      return absl::OkStatus();
  }
}

absl::Status CheckSupported(const HloInstruction& instr, bool is_root) {
  const xla_lite::Shape& shape = instr.shape();
  switch (instr.opcode()) {
    case HloOpcode::kParameter:
    case HloOpcode::kConstant:
      return absl::OkStatus();
    case HloOpcode::kTuple:
      if (!is_root) return Unsupported(instr, "tuples are only supported as the entry root");
      return absl::OkStatus();
    case HloOpcode::kDot:
      return absl::OkStatus();  // Gemm lowering checks types and shapes.
    default:
      break;
  }
  if (!shape.IsArray()) return Unsupported(instr, "tuple-shaped values are not supported");
  if (!IsSupportedKernelType(shape.element_type())) {
    return Unsupported(instr, absl::StrCat("element type ", shape.ToString(),
                                           " is not supported in kernels "
                                           "(f32, bf16, f16, s32, pred are)"));
  }
  if (IsFusible(instr)) {
    for (const HloInstruction* operand : instr.operands()) {
      if (!IsSupportedKernelType(operand->shape().element_type())) {
        return Unsupported(instr, absl::StrCat("operand ", operand->name(), " of type ",
                                               operand->shape().ToString(),
                                               " is not supported in kernels"));
      }
    }
    return IsElementwise(instr.opcode()) ? CheckElementwiseTypes(instr)
                                         : absl::OkStatus();
  }
  if (instr.opcode() == HloOpcode::kReduce) {
    if (instr.operand_count() != 2 || !MatchReducer(instr.to_apply())) {
      return Unsupported(instr,
                         "only reduces of one array whose computation is a "
                         "single add, multiply, maximum, minimum, and or or "
                         "of its two parameters are supported");
    }
    return absl::OkStatus();
  }
  return Unsupported(instr, "this op is not supported by the xla_lite compiler");
}

int OwnCost(const HloInstruction& instr) {
  if (!IsElementwise(instr.opcode())) return 0;  // Index remapping.
  return IsTranscendental(instr.opcode()) ? 4 : 1;
}

}  // namespace

bool IsFusible(const HloInstruction& instr) {
  switch (instr.opcode()) {
    case HloOpcode::kBroadcast:
    case HloOpcode::kTranspose:
    case HloOpcode::kReshape:
    case HloOpcode::kSlice:
    case HloOpcode::kReverse:
    case HloOpcode::kIota:
      return true;
    default:
      return IsElementwise(instr.opcode());
  }
}

GemmOperand ResolveGemmOperand(const HloInstruction* operand) {
  GemmOperand resolved;
  int64_t rank = operand->shape().rank();
  if (operand->opcode() == HloOpcode::kTranspose && rank >= 2) {
    std::vector<int64_t> swap;
    for (int64_t d = 0; d < rank - 2; ++d) swap.push_back(d);
    swap.push_back(rank - 1);
    swap.push_back(rank - 2);
    if (operand->dimensions() == swap) {
      resolved.transposed = true;
      operand = operand->operand(0);
    }
  }
  resolved.source = StripReshapes(operand);
  return resolved;
}

void FusionPlan::FindAccumulations(
    const std::vector<HloInstruction*>& post_order) {
  for (const HloInstruction* value : post_order) {
    if (!IsMaterialized(value) || value->opcode() == HloOpcode::kParameter) {
      continue;
    }
    std::optional<GemmAccumulation> match = MatchGemmAccumulation(*value);
    if (!match.has_value() || !IsMaterialized(match->addend)) continue;
    // The gemm reads the dot's operands as they are stored, never the dot.
    materialized_.erase(match->dot);
    accumulations_[value] = *match;
  }
}

void FusionPlan::FindEpilogues(
    const std::vector<HloInstruction*>& post_order, const HloInstruction* root,
    const absl::flat_hash_map<const HloInstruction*,
                              std::vector<const HloInstruction*>>& kernels) {
  absl::flat_hash_set<const HloInstruction*> results;
  if (root->opcode() == HloOpcode::kTuple) {
    for (const HloInstruction* operand : root->operands()) {
      results.insert(StripReshapes(operand));
    }
  } else {
    results.insert(StripReshapes(root));
  }
  absl::flat_hash_set<const HloInstruction*> taken;
  for (const HloInstruction* reduce : post_order) {
    if (reduce->opcode() != HloOpcode::kReduce || results.contains(reduce)) {
      continue;
    }
    std::vector<const HloInstruction*> consumers;
    bool fusible = true;
    for (const HloInstruction* user : reduce->users()) {
      if (user->opcode() == HloOpcode::kDot || user->opcode() == HloOpcode::kTuple) {
        fusible = false;
        break;
      }
      for (const HloInstruction* k : kernels.at(user)) {
        if (std::find(consumers.begin(), consumers.end(), k) == consumers.end()) {
          consumers.push_back(k);
        }
      }
    }
    if (!fusible || consumers.size() != 1) continue;
    const HloInstruction* epilogue = consumers[0];
    if (!IsFusible(*epilogue) || taken.contains(epilogue) ||
        accumulations_.contains(epilogue) ||
        epilogue->shape().ElementCount() != reduce->shape().ElementCount()) {
      continue;
    }
    epilogues_[reduce] = epilogue;
    taken.insert(epilogue);
  }
}

absl::StatusOr<FusionPlan> FusionPlan::Create(const HloComputation& entry) {
  std::vector<HloInstruction*> post_order = entry.MakeInstructionPostOrder();
  const HloInstruction* root = entry.root_instruction();
  for (const HloInstruction* instr : post_order) {
    RETURN_IF_ERROR(CheckSupported(*instr, instr == root));
  }
  FusionPlan plan;
  auto materialize = [&plan](const HloInstruction* instr) {
    plan.materialized_.insert(StripReshapes(instr));
  };
  for (const HloInstruction* instr : post_order) {
    switch (instr->opcode()) {
      case HloOpcode::kParameter:
      case HloOpcode::kReduce:
        materialize(instr);
        break;
      case HloOpcode::kConstant:
        if (instr->shape().ElementCount() != 1) materialize(instr);
        break;
      case HloOpcode::kDot:
        materialize(instr);
        materialize(ResolveGemmOperand(instr->operand(0)).source);
        materialize(ResolveGemmOperand(instr->operand(1)).source);
        break;
      default:
        break;
    }
  }
  if (root->opcode() == HloOpcode::kTuple) {
    for (const HloInstruction* operand : root->operands()) materialize(operand);
  } else {
    materialize(root);
  }

  // Cost of each fusible value's expression, assuming the materialization
  // so far (more materialization only makes it cheaper).
  const int limit = kRecomputeCostLimit;
  absl::flat_hash_map<const HloInstruction*, int> cost;
  for (const HloInstruction* instr : post_order) {
    int total = OwnCost(*instr);
    for (const HloInstruction* operand : instr->operands()) {
      if (!plan.IsMaterialized(operand)) total += cost[operand];
    }
    cost[instr] = std::min(total, limit + 1);
  }
  // The kernels each value is computed in (at most two tracked: enough to
  // tell "several"), users before operands.
  absl::flat_hash_map<const HloInstruction*, std::vector<const HloInstruction*>>
      kernels;
  for (auto it = post_order.rbegin(); it != post_order.rend(); ++it) {
    const HloInstruction* instr = *it;
    std::vector<const HloInstruction*>& mine = kernels[instr];
    if (plan.IsMaterialized(instr)) {
      mine = {instr};
      continue;
    }
    for (const HloInstruction* user : instr->users()) {
      // Dots read materialized sources, never compute their operands.
      if (user->opcode() == HloOpcode::kDot) continue;
      for (const HloInstruction* k : kernels[user]) {
        if (mine.size() < 2 && std::find(mine.begin(), mine.end(), k) == mine.end()) {
          mine.push_back(k);
        }
      }
    }
    if (mine.size() > 1 && cost[instr] > limit &&
        instr->opcode() != HloOpcode::kReshape && IsFusible(*instr)) {
      plan.materialized_.insert(instr);
      mine = {instr};
    }
  }
  plan.FindAccumulations(post_order);
  plan.FindEpilogues(post_order, root, kernels);
  for (const HloInstruction* instr : post_order) {
    if (plan.IsMaterialized(instr) &&
        instr->opcode() != HloOpcode::kParameter &&
        instr->opcode() != HloOpcode::kConstant) {
      plan.computed_.push_back(instr);
    }
  }
  VLOG(1) << entry.name() << ": " << plan.materialized_.size()
          << " materialized values, " << plan.computed_.size()
          << " computed by kernels or gemms";
  return plan;
}

}  // namespace xla_lite::gpu
