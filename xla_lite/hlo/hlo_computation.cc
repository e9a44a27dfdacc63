#include "xla_lite/hlo/hlo_computation.h"

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "glog/logging.h"
#include "xla_lite/hlo/hlo_module.h"

namespace xla_lite {
namespace {

// Appends `start` and everything it reaches to `order`, operands first.
// Iterative, so long chains cannot overflow the stack.
void PostOrderFrom(HloInstruction* start,
                   absl::flat_hash_set<const HloInstruction*>* visited,
                   std::vector<HloInstruction*>* order) {
  if (visited->contains(start)) return;
  // Each entry is an instruction and the index of its next operand to visit.
  std::vector<std::pair<HloInstruction*, int64_t>> stack = {{start, 0}};
  visited->insert(start);
  while (!stack.empty()) {
    auto& [instr, next] = stack.back();
    if (next < instr->operand_count()) {
      HloInstruction* operand = instr->mutable_operand(next++);
      if (visited->insert(operand).second) stack.push_back({operand, 0});
      continue;
    }
    order->push_back(instr);
    stack.pop_back();
  }
}

}  // namespace

HloComputation::HloComputation(std::string name) : name_(std::move(name)) {}

HloInstruction* HloComputation::AddInstruction(
    std::unique_ptr<HloInstruction> instruction) {
  CHECK(instruction != nullptr);
  HloInstruction* instr = instruction.get();
  instr->parent_ = this;
  if (instr->opcode() == HloOpcode::kParameter) {
    int64_t number = instr->parameter_number();
    CHECK_GE(number, 0) << "parameter " << instr->name() << " has no number";
    if (number >= static_cast<int64_t>(parameters_.size())) {
      parameters_.resize(number + 1, nullptr);
    }
    CHECK(parameters_[number] == nullptr)
        << "parameter " << number << " added twice to " << name_;
    parameters_[number] = instr;
  }
  instructions_.push_back(std::move(instruction));
  return instr;
}

absl::Status HloComputation::RemoveInstruction(HloInstruction* instruction) {
  if (instruction->user_count() > 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot remove ", instruction->name(), " from ", name_,
                     ": it still has ", instruction->user_count(), " users"));
  }
  if (instruction == root_) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot remove ", instruction->name(), ": it is the root of ", name_));
  }
  auto it = std::find_if(
      instructions_.begin(), instructions_.end(),
      [instruction](const auto& owned) { return owned.get() == instruction; });
  if (it == instructions_.end()) {
    return absl::NotFoundError(absl::StrCat(
        instruction->name(), " is not an instruction of ", name_));
  }
  for (HloInstruction* operand : instruction->operands_) {
    auto& users = operand->users_;
    users.erase(std::remove(users.begin(), users.end(), instruction),
                users.end());
  }
  if (instruction->opcode() == HloOpcode::kParameter) {
    parameters_[instruction->parameter_number()] = nullptr;
  }
  instructions_.erase(it);
  return absl::OkStatus();
}

void HloComputation::RemoveDeadInstructions() {
  if (root_ == nullptr) return;
  absl::flat_hash_set<const HloInstruction*> live;
  std::vector<HloInstruction*> order;
  PostOrderFrom(root_, &live, &order);
  std::vector<std::unique_ptr<HloInstruction>> kept;
  std::vector<HloInstruction*> dead;
  for (auto& owned : instructions_) {
    HloInstruction* instr = owned.get();
    if (live.contains(instr) || instr->opcode() == HloOpcode::kParameter) {
      kept.push_back(std::move(owned));
    } else {
      dead.push_back(instr);
    }
  }
  // A live instruction's operands are live, so only dead instructions (and
  // kept parameters) list dead users; unlink them before they are freed.
  for (HloInstruction* instr : dead) {
    for (HloInstruction* operand : instr->operands_) {
      auto& users = operand->users_;
      users.erase(std::remove(users.begin(), users.end(), instr), users.end());
    }
  }
  VLOG(1) << name_ << ": removed " << dead.size() << " dead instructions";
  instructions_ = std::move(kept);  // frees the dead ones
}

std::vector<HloInstruction*> HloComputation::instructions() const {
  std::vector<HloInstruction*> result;
  result.reserve(instructions_.size());
  for (const auto& owned : instructions_) result.push_back(owned.get());
  return result;
}

std::vector<HloInstruction*> HloComputation::MakeInstructionPostOrder() const {
  std::vector<HloInstruction*> order;
  // Unreached parameters go first so that the root stays last.
  if (root_ != nullptr) {
    absl::flat_hash_set<const HloInstruction*> reached;
    std::vector<HloInstruction*> from_root;
    PostOrderFrom(root_, &reached, &from_root);
    for (HloInstruction* parameter : parameters_) {
      if (parameter != nullptr && !reached.contains(parameter)) {
        order.push_back(parameter);
      }
    }
    order.insert(order.end(), from_root.begin(), from_root.end());
  } else {
    for (HloInstruction* parameter : parameters_) {
      if (parameter != nullptr) order.push_back(parameter);
    }
  }
  return order;
}

std::string HloComputation::ToString() const {
  bool is_entry = parent_ != nullptr && parent_->entry_computation() == this;
  std::string text = absl::StrCat(is_entry ? "ENTRY " : "", "%", name_, " {\n");
  // Every instruction, operands before users, in insertion order where
  // that already holds (it does for parsed modules), so the text parses.
  absl::flat_hash_set<const HloInstruction*> visited;
  std::vector<HloInstruction*> order;
  for (const auto& owned : instructions_) {
    PostOrderFrom(owned.get(), &visited, &order);
  }
  for (const HloInstruction* instr : order) {
    absl::StrAppend(&text, "  ", instr == root_ ? "ROOT " : "",
                    instr->ToString(), "\n");
  }
  absl::StrAppend(&text, "}\n");
  return text;
}

}  // namespace xla_lite
