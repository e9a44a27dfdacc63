#include "xla_lite/service/hlo_rewrite_util.h"

#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"

namespace xla_lite {

NameUniquer::NameUniquer(const HloModule& module) {
  for (const HloComputation* computation : module.computations()) {
    for (const HloInstruction* instr : computation->instructions()) {
      used_.insert(instr->name());
    }
  }
}

std::string NameUniquer::Get(const std::string& base) {
  if (used_.insert(base).second) return base;
  for (int64_t i = 1;; ++i) {
    std::string name = absl::StrCat(base, ".", i);
    if (used_.insert(name).second) return name;
  }
}

HloInstruction* AddInstruction(HloComputation* computation, HloOpcode opcode,
                               Shape shape,
                               absl::Span<HloInstruction* const> operands,
                               std::string name) {
  HloInstruction* instr = computation->AddInstruction(
      std::make_unique<HloInstruction>(opcode, std::move(shape),
                                       std::move(name)));
  for (HloInstruction* operand : operands) instr->AppendOperand(operand);
  return instr;
}

HloInstruction* CloneInstruction(HloComputation* computation,
                                 const HloInstruction& source,
                                 absl::Span<HloInstruction* const> operands,
                                 std::string name) {
  auto clone = std::make_unique<HloInstruction>(source.opcode(), source.shape(),
                                                std::move(name));
  clone->set_parameter_number(source.parameter_number());
  clone->set_literal(source.literal());
  clone->set_dimensions(source.dimensions());
  clone->set_iota_dimension(source.iota_dimension());
  clone->set_tuple_index(source.tuple_index());
  clone->set_dot_dimension_numbers(source.dot_dimension_numbers());
  clone->set_operand_precision(source.operand_precision());
  clone->set_comparison_direction(source.comparison_direction());
  clone->set_comparison_type(source.comparison_type());
  *clone->mutable_gather_dimension_numbers() = source.gather_dimension_numbers();
  clone->set_gather_slice_sizes(source.gather_slice_sizes());
  *clone->mutable_scatter_dimension_numbers() =
      source.scatter_dimension_numbers();
  clone->set_indices_are_sorted(source.indices_are_sorted());
  clone->set_unique_indices(source.unique_indices());
  clone->set_slice_dimensions(source.slice_dimensions());
  clone->set_window(source.window());
  clone->set_convolution_dimension_numbers(
      source.convolution_dimension_numbers());
  clone->set_feature_group_count(source.feature_group_count());
  clone->set_batch_group_count(source.batch_group_count());
  clone->set_select(source.select());
  *clone->mutable_collective_attributes() = source.collective_attributes();
  clone->set_custom_call_target(source.custom_call_target());
  clone->set_frontend_attributes(source.frontend_attributes());
  clone->set_padding(source.padding());
  clone->set_to_apply(source.to_apply());
  clone->set_called_computations(source.called_computations());
  clone->set_source_line(source.source_line());
  HloInstruction* instr = computation->AddInstruction(std::move(clone));
  for (HloInstruction* operand : operands) instr->AppendOperand(operand);
  return instr;
}

HloInstruction* AddReshape(HloComputation* computation, HloInstruction* operand,
                           std::vector<int64_t> dimensions, std::string name) {
  Shape shape =
      Shape::Array(operand->shape().element_type(), std::move(dimensions));
  return AddInstruction(computation, HloOpcode::kReshape, std::move(shape),
                        {operand}, std::move(name));
}

HloInstruction* AddTranspose(HloComputation* computation,
                             HloInstruction* operand,
                             std::vector<int64_t> permutation,
                             std::string name) {
  std::vector<int64_t> dims;
  for (int64_t d : permutation) dims.push_back(operand->shape().dimensions(d));
  HloInstruction* instr = AddInstruction(
      computation, HloOpcode::kTranspose,
      Shape::Array(operand->shape().element_type(), std::move(dims)), {operand},
      std::move(name));
  instr->set_dimensions(std::move(permutation));
  return instr;
}

HloInstruction* AddBroadcast(HloComputation* computation,
                             HloInstruction* operand, const Shape& shape,
                             std::vector<int64_t> dimensions,
                             std::string name) {
  HloInstruction* instr =
      AddInstruction(computation, HloOpcode::kBroadcast,
                     Shape::Array(operand->shape().element_type(),
                                  shape.dimensions()),
                     {operand}, std::move(name));
  instr->set_dimensions(std::move(dimensions));
  return instr;
}

const HloInstruction* StripReshapes(const HloInstruction* instruction) {
  while (instruction->opcode() == HloOpcode::kReshape) {
    instruction = instruction->operand(0);
  }
  return instruction;
}

HloInstruction* StripReshapes(HloInstruction* instruction) {
  while (instruction->opcode() == HloOpcode::kReshape) {
    instruction = instruction->mutable_operand(0);
  }
  return instruction;
}

std::optional<HloOpcode> MatchReducer(const HloComputation* computation) {
  if (computation == nullptr || computation->num_parameters() != 2) {
    return std::nullopt;
  }
  const HloInstruction* root = computation->root_instruction();
  switch (root->opcode()) {
    case HloOpcode::kAdd:
    case HloOpcode::kMultiply:
    case HloOpcode::kMaximum:
    case HloOpcode::kMinimum:
    case HloOpcode::kAnd:
    case HloOpcode::kOr:
      break;
    default:
      return std::nullopt;
  }
  const HloInstruction* a = root->operand(0);
  const HloInstruction* b = root->operand(1);
  // These opcodes are commutative, so either operand order is the same op.
  if (a->opcode() != HloOpcode::kParameter ||
      b->opcode() != HloOpcode::kParameter ||
      a->parameter_number() == b->parameter_number()) {
    return std::nullopt;
  }
  return root->opcode();
}

std::vector<HloComputation*> ExecutedComputations(const HloModule& module) {
  std::vector<HloComputation*> order;
  if (module.entry_computation() == nullptr) return order;
  absl::flat_hash_set<const HloComputation*> seen;
  order.push_back(module.entry_computation());
  seen.insert(order.back());
  for (size_t next = 0; next < order.size(); ++next) {
    for (const HloInstruction* instr : order[next]->instructions()) {
      if (instr->opcode() != HloOpcode::kWhile &&
          instr->opcode() != HloOpcode::kConditional) {
        continue;
      }
      for (HloComputation* callee : instr->called_computations()) {
        if (seen.insert(callee).second) order.push_back(callee);
      }
    }
  }
  return order;
}

bool IsIdentityPermutation(absl::Span<const int64_t> permutation) {
  for (int64_t i = 0; i < permutation.size(); ++i) {
    if (permutation[i] != i) return false;
  }
  return true;
}

}  // namespace xla_lite
