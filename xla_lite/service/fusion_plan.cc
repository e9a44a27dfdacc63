#include "xla_lite/service/fusion_plan.h"

#include <algorithm>
#include <functional>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "glog/logging.h"
#include "xla_lite/service/elemental_ops.h"
#include "xla_lite/service/hlo_rewrite_util.h"

namespace xla_lite::gpu {
namespace {

// Control flow and the tuples around it: their values are buffers the plan
// builder tracks leaf by leaf (see execution_plan.h), never kernels.
bool IsControlFlowOrTuple(const HloInstruction& instr) {
  switch (instr.opcode()) {
    case HloOpcode::kWhile:
    case HloOpcode::kConditional:
    case HloOpcode::kTuple:
    case HloOpcode::kGetTupleElement:
      return true;
    case HloOpcode::kParameter:
      return instr.shape().IsTuple();
    default:
      return false;
  }
}

absl::Status CheckControlFlow(const HloInstruction& instr) {
  if (instr.opcode() != HloOpcode::kConditional) return absl::OkStatus();
  const Shape& selector = instr.operand(0)->shape();
  if (!selector.IsArray() || selector.rank() != 0 ||
      (selector.element_type() != PrimitiveType::PRED &&
       selector.element_type() != PrimitiveType::S32)) {
    return UnsupportedOpError(
        instr, selector.ToString(),
        "a conditional's selector is a pred[] or s32[] scalar");
  }
  return absl::OkStatus();
}

// Everything must be an op the table takes, or control flow and tuples.
absl::Status CheckSupported(const HloInstruction& instr) {
  if (IsControlFlowOrTuple(instr)) return CheckControlFlow(instr);
  return SupportedElementalOp(instr).status();
}

// What recomputing `instr` in another kernel costs (ops without a row are
// buffers: nothing).
int OwnCost(const HloInstruction& instr) {
  const ElementalOp* op = FindElementalOp(instr.opcode());
  return op == nullptr ? 0 : op->cost;
}

// What reading `operand`'s buffer in a kernel that computes `instr` costs:
// a stream from memory when every element of `instr` reads an element of
// its own (an operand at least as large); nothing when the operand is
// broadcast, or is a table smaller than what is gathered from it (read
// again and again, it stays in cache), or when `instr` is a scalar. Each
// reference counts, as ops do: a buffer that several parts of an
// expression read is charged for each, although the kernel loads each
// element once (counting distinct buffers instead changed the
// transformers' fusion in ways not yet measured).
int ReadCost(const HloInstruction& instr, const HloInstruction& operand) {
  return instr.shape().IsArray() && operand.shape().IsArray() &&
                 instr.shape().ElementCount() > 1 &&
                 operand.shape().ElementCount() >= instr.shape().ElementCount()
             ? FusionPlan::kReadCost
             : 0;
}

}  // namespace

bool ReadsMaterializedOperands(const HloInstruction& instr) {
  const ElementalOp* op = FindElementalOp(instr.opcode());
  return op != nullptr && op->lowering == OpLowering::kWindowKernel;
}

bool IsFusible(const HloInstruction& instr) {
  const ElementalOp* op = FindElementalOp(instr.opcode());
  return op != nullptr && (op->fusion == FusionKind::kElementwise ||
                           op->fusion == FusionKind::kDataMovement);
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
      if (user->opcode() == HloOpcode::kDot ||
          user->opcode() == HloOpcode::kTuple ||
          ReadsMaterializedOperands(*user)) {
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
    RETURN_IF_ERROR(CheckSupported(*instr));
  }
  FusionPlan plan;
  // Array values get buffers; tuple-shaped ones are their leaves' buffers,
  // which a tuple instruction's operands must have.
  std::function<void(const HloInstruction*)> materialize =
      [&plan, &materialize](const HloInstruction* instr) {
        if (instr->opcode() == HloOpcode::kTuple) {
          for (const HloInstruction* operand : instr->operands()) {
            materialize(operand);
          }
        } else if (instr->shape().IsArray()) {
          plan.materialized_.insert(StripReshapes(instr));
        }
      };
  for (const HloInstruction* instr : post_order) {
    switch (instr->opcode()) {
      case HloOpcode::kWhile:
      case HloOpcode::kConditional:
        // Loop state and branch operands are read from buffers; results
        // land in buffers.
        materialize(instr);
        for (const HloInstruction* operand : instr->operands()) {
          materialize(operand);
        }
        break;
      case HloOpcode::kTuple:
        for (const HloInstruction* operand : instr->operands()) {
          materialize(operand);
        }
        break;
      case HloOpcode::kGetTupleElement:
      case HloOpcode::kParameter:
      case HloOpcode::kReduce:
      case HloOpcode::kScatter:
        materialize(instr);
        break;
      case HloOpcode::kConstant:
        if (instr->shape().ElementCount() != 1) materialize(instr);
        break;
      case HloOpcode::kAllReduce:
      case HloOpcode::kAllGather:
      case HloOpcode::kReduceScatter:
      case HloOpcode::kCollectivePermute:
        // Communicators move whole buffers.
        materialize(instr);
        materialize(instr->operand(0));
        break;
      case HloOpcode::kDot:
        materialize(instr);
        materialize(ResolveGemmOperand(instr->operand(0)).source);
        materialize(ResolveGemmOperand(instr->operand(1)).source);
        break;
      default:
        if (ReadsMaterializedOperands(*instr)) {
          // Window kernels read their array operands from buffers; a
          // scalar init is a constant in the kernel.
          materialize(instr);
          for (const HloInstruction* operand : instr->operands()) {
            if (operand->shape().rank() > 0) materialize(operand);
          }
        }
        break;
    }
  }
  materialize(root);

  // Cost of each fusible value's expression, assuming the materialization
  // so far (more materialization only makes it cheaper).
  const int limit = kRecomputeCostLimit;
  absl::flat_hash_map<const HloInstruction*, int> cost;
  for (const HloInstruction* instr : post_order) {
    int total = OwnCost(*instr);
    for (const HloInstruction* operand : instr->operands()) {
      total += plan.IsMaterialized(operand) ? ReadCost(*instr, *operand)
                                            : cost[operand];
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
      // Dots and window kernels read materialized sources, never compute
      // their operands.
      if (user->opcode() == HloOpcode::kDot ||
          ReadsMaterializedOperands(*user)) {
        continue;
      }
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
    const HloOpcode opcode = instr->opcode();
    if ((plan.IsMaterialized(instr) && opcode != HloOpcode::kParameter &&
         opcode != HloOpcode::kConstant &&
         opcode != HloOpcode::kGetTupleElement) ||
        opcode == HloOpcode::kWhile || opcode == HloOpcode::kConditional) {
      plan.computed_.push_back(instr);
    }
  }
  VLOG(1) << entry.name() << ": " << plan.materialized_.size()
          << " materialized values, " << plan.computed_.size()
          << " computed by kernels or gemms";
  return plan;
}

}  // namespace xla_lite::gpu
