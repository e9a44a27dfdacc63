#include "xla_lite/hlo/hlo_verifier.h"

#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "glog/logging.h"
#include "xla_lite/hlo/hlo_shape_checks.h"

namespace xla_lite {
namespace {

std::string IndexString(const std::vector<int64_t>& index) {
  return absl::StrCat("{", absl::StrJoin(index, ","), "}");
}

// The subshape at a tuple path, or null when the path leaves the shape.
const Shape* Subshape(const Shape& shape, const std::vector<int64_t>& index) {
  const Shape* current = &shape;
  for (int64_t i : index) {
    if (!current->IsTuple() || i < 0 || i >= current->tuple_shapes_size()) {
      return nullptr;
    }
    current = &current->tuple_shapes(i);
  }
  return current;
}

absl::Status VerifyComputation(const HloModule& module,
                               const HloComputation& computation) {
  auto error = [&computation](absl::string_view message) {
    return absl::InvalidArgumentError(
        absl::StrCat("computation '", computation.name(), "': ", message));
  };
  if (computation.root_instruction() == nullptr) return error("has no root");
  for (int64_t i = 0; i < computation.num_parameters(); ++i) {
    if (computation.parameter_instruction(i) == nullptr) {
      return error(absl::StrCat("expected parameter numbers 0 to ",
                                computation.num_parameters() - 1,
                                " without gaps, parameter ", i, " is missing"));
    }
  }
  absl::flat_hash_set<const HloInstruction*> own;
  absl::flat_hash_set<std::string> names;
  for (const HloInstruction* instr : computation.instructions()) {
    own.insert(instr);
    if (!names.insert(instr->name()).second) {
      return error(absl::StrCat("duplicate instruction name '", instr->name(),
                                "'"));
    }
  }
  if (!own.contains(computation.root_instruction())) {
    return error("root is not one of its instructions");
  }
  for (const HloInstruction* instr : computation.instructions()) {
    for (const HloInstruction* operand : instr->operands()) {
      if (!own.contains(operand)) {
        return error(absl::StrCat("instruction '", instr->name(),
                                  "' uses '", operand->name(),
                                  "' of another computation"));
      }
    }
    for (const HloComputation* callee : {instr->to_apply(), instr->select()}) {
      if (callee != nullptr &&
          module.GetComputation(callee->name()) != callee) {
        return error(absl::StrCat("instruction '", instr->name(), "' calls '",
                                  callee->name(), "', not in the module"));
      }
    }
    RETURN_IF_ERROR(verifier_internal::CheckInstructionShape(*instr));
  }
  return absl::OkStatus();
}

absl::Status VerifyEntryLayout(const HloModule& module) {
  const HloComputation& entry = *module.entry_computation();
  const ComputationLayout& layout = module.entry_computation_layout();
  if (static_cast<int64_t>(layout.parameter_shapes.size()) !=
      entry.num_parameters()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "entry_computation_layout: expected ", entry.num_parameters(),
        " parameter shapes (the parameters of '", entry.name(), "'), got ",
        layout.parameter_shapes.size()));
  }
  for (int64_t i = 0; i < entry.num_parameters(); ++i) {
    const HloInstruction* param = entry.parameter_instruction(i);
    if (!layout.parameter_shapes[i].Compatible(param->shape())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "entry_computation_layout: expected parameter ", i, " to be ",
          param->shape().ToString(), " (as '", param->name(), "'), got ",
          layout.parameter_shapes[i].ToString()));
    }
  }
  const Shape& root = entry.root_instruction()->shape();
  if (!layout.result_shape.Compatible(root)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "entry_computation_layout: expected result ", root.ToString(),
        " (the root of '", entry.name(), "'), got ",
        layout.result_shape.ToString()));
  }
  return absl::OkStatus();
}

absl::Status VerifyAliases(const HloModule& module) {
  const HloComputation& entry = *module.entry_computation();
  const Shape& result = entry.root_instruction()->shape();
  absl::flat_hash_set<std::string> outputs;
  for (const HloInputOutputAlias& alias : module.input_output_aliases()) {
    const std::string where = absl::StrCat(
        "input_output_alias ", IndexString(alias.output_index), ": (",
        alias.parameter_number, ", ", IndexString(alias.parameter_index), ")");
    const Shape* output = Subshape(result, alias.output_index);
    if (output == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": expected an output index within ", result.ToString()));
    }
    if (!outputs.insert(IndexString(alias.output_index)).second) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": output aliased twice"));
    }
    if (alias.parameter_number < 0 ||
        alias.parameter_number >= entry.num_parameters()) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": expected a parameter number in [0, ",
          entry.num_parameters(), ")"));
    }
    const Shape& param_shape =
        entry.parameter_instruction(alias.parameter_number)->shape();
    const Shape* param = Subshape(param_shape, alias.parameter_index);
    if (param == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": expected a parameter index within ",
          param_shape.ToString()));
    }
    if (!param->Compatible(*output)) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": expected equal shapes, got output ", output->ToString(),
          " and parameter ", param->ToString()));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status VerifyHloModule(const HloModule& module) {
  if (module.entry_computation() == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("module '", module.name(), "' has no entry computation"));
  }
  absl::flat_hash_set<std::string> names;
  for (const HloComputation* computation : module.computations()) {
    if (!names.insert(computation->name()).second) {
      return absl::InvalidArgumentError(absl::StrCat(
          "duplicate computation name '", computation->name(), "'"));
    }
    RETURN_IF_ERROR(VerifyComputation(module, *computation));
  }
  RETURN_IF_ERROR(VerifyEntryLayout(module));
  RETURN_IF_ERROR(VerifyAliases(module));
  VLOG(1) << "verified module " << module.name();
  return absl::OkStatus();
}

}  // namespace xla_lite
