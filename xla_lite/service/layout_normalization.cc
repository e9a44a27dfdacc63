#include "xla_lite/service/layout_normalization.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "glog/logging.h"
#include "xla_lite/service/hlo_rewrite_util.h"

namespace xla_lite {
namespace {

// Logical dimension numbers from most major to most minor.
std::vector<int64_t> MajorToMinor(const Shape& shape) {
  const std::vector<int64_t>& minor_to_major = shape.minor_to_major();
  if (minor_to_major.size() != shape.rank()) {
    std::vector<int64_t> order;
    for (int64_t d = 0; d < shape.rank(); ++d) order.push_back(d);
    return order;
  }
  return std::vector<int64_t>(minor_to_major.rbegin(), minor_to_major.rend());
}

void SetDefaultLayouts(Shape* shape) {
  if (shape->IsArray()) {
    shape->SetDefaultLayout();
    return;
  }
  // Tuples: rebuild from normalized elements.
  std::vector<Shape> elements = shape->tuple_shapes();
  for (Shape& element : elements) SetDefaultLayouts(&element);
  *shape = Shape::Tuple(std::move(elements));
}

// Parameter `p` arrives in `layout`: read it as the physical array and
// transpose it to the logical one for every user.
void NormalizeParameter(HloInstruction* parameter, const Shape& layout,
                        NameUniquer& names) {
  std::vector<int64_t> order = MajorToMinor(layout);
  if (IsIdentityPermutation(order)) return;
  HloComputation* entry = parameter->parent();
  std::vector<HloInstruction*> users = parameter->users();
  bool was_root = parameter->IsRoot();
  *parameter->mutable_shape() =
      Shape::Array(layout.element_type(), PhysicalShape(layout).dimensions());
  // Logical dimension d is physical dimension position_of[d].
  std::vector<int64_t> position_of(order.size());
  for (int64_t j = 0; j < order.size(); ++j) position_of[order[j]] = j;
  HloInstruction* logical =
      AddTranspose(entry, parameter, position_of,
                   names.Get(parameter->name() + ".logical"));
  for (HloInstruction* user : users) {
    user->ReplaceOperandWith(parameter, logical);
  }
  if (was_root) entry->set_root_instruction(logical);
}

// The value stored as a result of `layout`: transposed into physical order.
HloInstruction* PhysicalResult(HloInstruction* value, const Shape& layout,
                               NameUniquer& names) {
  std::vector<int64_t> order = MajorToMinor(layout);
  if (IsIdentityPermutation(order)) return value;
  return AddTranspose(value->parent(), value, order,
                      names.Get(value->name() + ".physical"));
}

absl::Status NormalizeResults(HloModule* module, NameUniquer& names) {
  HloComputation* entry = module->entry_computation();
  HloInstruction* root = entry->root_instruction();
  const Shape& result = module->entry_computation_layout().result_shape;
  if (result.IsArray()) {
    entry->set_root_instruction(PhysicalResult(root, result, names));
    return absl::OkStatus();
  }
  if (root->opcode() != HloOpcode::kTuple) {
    // A while or conditional returned as it is: its elements, gathered
    // into a tuple the results can be read from.
    std::vector<HloInstruction*> elements;
    for (int64_t i = 0; i < root->shape().tuple_shapes_size(); ++i) {
      HloInstruction* element =
          AddInstruction(entry, HloOpcode::kGetTupleElement,
                         root->shape().tuple_shapes(i), {root},
                         names.Get(absl::StrCat(root->name(), ".", i)));
      element->set_tuple_index(i);
      elements.push_back(element);
    }
    root = AddInstruction(entry, HloOpcode::kTuple, root->shape(), elements,
                          names.Get(root->name() + ".results"));
    entry->set_root_instruction(root);
  }
  for (int64_t i = 0; i < root->operand_count(); ++i) {
    const Shape& element = result.tuple_shapes(i);
    if (!element.IsArray()) {
      return absl::UnimplementedError(absl::StrCat(
          module->name(), ": result element ", i,
          " is a nested tuple; results must be a flat tuple of arrays"));
    }
    HloInstruction* value = root->mutable_operand(i);
    HloInstruction* physical = PhysicalResult(value, element, names);
    if (physical == value) continue;
    // Replace only this position: the value may appear at others too.
    std::vector<HloInstruction*> operands = root->operands();
    operands[i] = physical;
    HloInstruction* tuple = CloneInstruction(entry, *root, operands,
                                             names.Get(root->name()));
    entry->set_root_instruction(tuple);
    root = tuple;
  }
  return absl::OkStatus();
}

}  // namespace

Shape PhysicalShape(const Shape& shape) {
  std::vector<int64_t> dims;
  for (int64_t d : MajorToMinor(shape)) dims.push_back(shape.dimensions(d));
  return Shape(shape.element_type(), std::move(dims));
}

absl::Status NormalizeLayouts(HloModule* module) {
  NameUniquer names(*module);
  HloComputation* entry = module->entry_computation();
  for (HloComputation* computation : module->computations()) {
    for (HloInstruction* instr : computation->instructions()) {
      SetDefaultLayouts(instr->mutable_shape());
    }
  }
  const ComputationLayout& layout = module->entry_computation_layout();
  for (int64_t p = 0; p < entry->num_parameters(); ++p) {
    HloInstruction* parameter = entry->parameter_instruction(p);
    if (parameter == nullptr) continue;
    if (p >= layout.parameter_shapes.size() ||
        !layout.parameter_shapes[p].IsArray() ||
        !parameter->shape().IsArray()) {
      return absl::InvalidArgumentError(absl::StrCat(
          module->name(), ": parameter ", p, " (", parameter->name(),
          ") is a tuple; entry parameters must be arrays"));
    }
    NormalizeParameter(parameter, layout.parameter_shapes[p], names);
  }
  RETURN_IF_ERROR(NormalizeResults(module, names));
  entry->RemoveDeadInstructions();
  return absl::OkStatus();
}

}  // namespace xla_lite
