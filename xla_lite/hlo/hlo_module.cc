#include "xla_lite/hlo/hlo_module.h"

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "glog/logging.h"

namespace xla_lite {
namespace {

// Computations `computation` calls directly, in instruction order.
std::vector<HloComputation*> Callees(const HloComputation& computation) {
  std::vector<HloComputation*> callees;
  for (const HloInstruction* instr : computation.instructions()) {
    if (instr->select() != nullptr) callees.push_back(instr->select());
    if (instr->to_apply() != nullptr) callees.push_back(instr->to_apply());
  }
  return callees;
}

// Appends `computation` after everything it calls (transitively).
void CalleesFirst(HloComputation* computation,
                  absl::flat_hash_set<const HloComputation*>* visited,
                  std::vector<HloComputation*>* order) {
  if (!visited->insert(computation).second) return;
  for (HloComputation* callee : Callees(*computation)) {
    CalleesFirst(callee, visited, order);
  }
  order->push_back(computation);
}

std::string IndexString(const std::vector<int64_t>& index) {
  return absl::StrCat("{", absl::StrJoin(index, ","), "}");
}

}  // namespace

ComputationLayout ComputationLayoutOf(const HloComputation& computation) {
  ComputationLayout layout;
  for (const HloInstruction* parameter :
       computation.parameter_instructions()) {
    layout.parameter_shapes.push_back(parameter != nullptr ? parameter->shape()
                                                           : Shape());
  }
  if (computation.root_instruction() != nullptr) {
    layout.result_shape = computation.root_instruction()->shape();
  }
  return layout;
}

HloModule::HloModule(std::string name) : name_(std::move(name)) {}

HloComputation* HloModule::AddComputation(
    std::unique_ptr<HloComputation> computation) {
  CHECK(computation != nullptr);
  computation->parent_ = this;
  computations_.push_back(std::move(computation));
  return computations_.back().get();
}

HloComputation* HloModule::AddEntryComputation(
    std::unique_ptr<HloComputation> computation) {
  entry_ = AddComputation(std::move(computation));
  bool layout_set = !layout_.parameter_shapes.empty() ||
                    layout_.result_shape != Shape();
  if (!layout_set && entry_->root_instruction() != nullptr) {
    layout_ = ComputationLayoutOf(*entry_);
  }
  return entry_;
}

HloComputation* HloModule::GetComputation(const std::string& name) const {
  for (const auto& computation : computations_) {
    if (computation->name() == name) return computation.get();
  }
  return nullptr;
}

std::vector<HloComputation*> HloModule::computations() const {
  std::vector<HloComputation*> result;
  result.reserve(computations_.size());
  for (const auto& computation : computations_) {
    result.push_back(computation.get());
  }
  return result;
}

void HloModule::RemoveUnusedComputations() {
  if (entry_ == nullptr) return;
  absl::flat_hash_set<const HloComputation*> used;
  std::vector<HloComputation*> order;
  CalleesFirst(entry_, &used, &order);
  size_t before = computations_.size();
  computations_.erase(
      std::remove_if(computations_.begin(), computations_.end(),
                     [&used](const std::unique_ptr<HloComputation>& c) {
                       return !used.contains(c.get());
                     }),
      computations_.end());
  VLOG(1) << name_ << ": removed " << before - computations_.size()
          << " unused computations";
}

std::string HloModule::ToString() const {
  std::string text = absl::StrCat("HloModule ", name_);
  if (!aliases_.empty()) {
    absl::StrAppend(
        &text, ", input_output_alias={ ",
        absl::StrJoin(aliases_, ", ",
                      [](std::string* out, const HloInputOutputAlias& alias) {
                        absl::StrAppend(
                            out, IndexString(alias.output_index), ": (",
                            alias.parameter_number, ", ",
                            IndexString(alias.parameter_index), ", ",
                            alias.must_alias ? "must-alias" : "may-alias",
                            ")");
                      }),
        " }");
  }
  absl::StrAppend(
      &text, ", entry_computation_layout={(",
      absl::StrJoin(layout_.parameter_shapes, ", ",
                    [](std::string* out, const Shape& shape) {
                      absl::StrAppend(out, shape.ToString(true));
                    }),
      ")->", layout_.result_shape.ToString(true), "}\n");
  // Callees before callers: the parser wants computations defined first.
  absl::flat_hash_set<const HloComputation*> visited;
  std::vector<HloComputation*> order;
  for (const auto& computation : computations_) {
    CalleesFirst(computation.get(), &visited, &order);
  }
  for (const HloComputation* computation : order) {
    absl::StrAppend(&text, "\n", computation->ToString());
  }
  return text;
}

}  // namespace xla_lite
