#include "xla_lite/service/call_inliner.h"

#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "glog/logging.h"
#include "xla_lite/service/hlo_rewrite_util.h"

namespace xla_lite {
namespace {

bool IsCall(const HloInstruction& instr) {
  return instr.opcode() == HloOpcode::kCall ||
         instr.opcode() == HloOpcode::kFusion;
}

absl::Status InlineOne(HloInstruction* call, NameUniquer& names) {
  HloComputation* caller = call->parent();
  const HloComputation* callee = call->to_apply();
  if (callee == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(call->name(), ": call without a computation"));
  }
  if (callee->num_parameters() != call->operand_count()) {
    return absl::InvalidArgumentError(absl::StrCat(
        call->name(), ": calls ", callee->name(), " with ",
        call->operand_count(), " operands; it has ", callee->num_parameters(),
        " parameters"));
  }
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> clones;
  for (HloInstruction* instr : callee->MakeInstructionPostOrder()) {
    if (instr->opcode() == HloOpcode::kParameter) {
      clones[instr] = call->mutable_operand(instr->parameter_number());
      continue;
    }
    std::vector<HloInstruction*> operands;
    for (const HloInstruction* operand : instr->operands()) {
      operands.push_back(clones.at(operand));
    }
    clones[instr] =
        CloneInstruction(caller, *instr, operands, names.Get(instr->name()));
  }
  call->ReplaceAllUsesWith(clones.at(callee->root_instruction()));
  return caller->RemoveInstruction(call);
}

// Inlines every call of `computation`, calls in inlined bodies included.
absl::StatusOr<int64_t> InlineCallsOf(HloComputation* computation,
                                      NameUniquer& names) {
  // A call chain deeper than this is recursion, which HLO does not allow.
  constexpr int kMaxDepth = 256;
  int64_t inlined = 0;
  for (int depth = 0, changed = 1; changed; ++depth) {
    if (depth > kMaxDepth) {
      return absl::InvalidArgumentError(absl::StrCat(
          computation->name(), ": calls nest deeper than ", kMaxDepth,
          " levels (recursive computations?)"));
    }
    changed = 0;
    for (HloInstruction* instr : computation->MakeInstructionPostOrder()) {
      if (!IsCall(*instr)) continue;
      RETURN_IF_ERROR(InlineOne(instr, names));
      ++inlined;
      changed = 1;
    }
  }
  if (inlined > 0) computation->RemoveDeadInstructions();
  return inlined;
}

}  // namespace

absl::Status InlineCalls(HloModule* module) {
  NameUniquer names(*module);
  int64_t inlined = 0;
  // An inlined body may bring loops whose computations hold calls: sweep
  // again until a sweep inlines nothing (computations are finite and not
  // recursive, so it ends).
  for (int64_t more = 1; more > 0;) {
    more = 0;
    for (HloComputation* computation : ExecutedComputations(*module)) {
      ASSIGN_OR_RETURN(int64_t count, InlineCallsOf(computation, names));
      more += count;
    }
    inlined += more;
  }
  module->entry_computation()->RemoveDeadInstructions();
  module->RemoveUnusedComputations();
  VLOG(1) << module->name() << ": inlined " << inlined << " calls";
  return absl::OkStatus();
}

}  // namespace xla_lite
