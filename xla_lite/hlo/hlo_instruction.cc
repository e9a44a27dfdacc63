#include "xla_lite/hlo/hlo_padding.h"
#include "xla_lite/hlo/hlo_instruction.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "glog/logging.h"
#include "xla_lite/hlo/hlo_computation.h"
#include "xla_lite/hlo/hlo_module.h"

namespace xla_lite {
namespace {

void RemoveUser(HloInstruction* user, std::vector<HloInstruction*>* users) {
  users->erase(std::remove(users->begin(), users->end(), user), users->end());
}

void AddUniqueUser(HloInstruction* user, std::vector<HloInstruction*>* users) {
  if (std::find(users->begin(), users->end(), user) == users->end()) {
    users->push_back(user);
  }
}

const char* PrecisionString(PrecisionConfig precision) {
  switch (precision) {
    case PrecisionConfig::kDefault:
      return "default";
    case PrecisionConfig::kHigh:
      return "high";
    case PrecisionConfig::kHighest:
      return "highest";
  }
  return "default";
}

// 0..rank-1 without the dimensions of `a` and `b`.
std::vector<int64_t> DimensionsOutside(int64_t rank,
                                       const std::vector<int64_t>& a,
                                       const std::vector<int64_t>& b) {
  std::vector<int64_t> kept;
  for (int64_t d = 0; d < rank; ++d) {
    if (std::find(a.begin(), a.end(), d) == a.end() &&
        std::find(b.begin(), b.end(), d) == b.end()) {
      kept.push_back(d);
    }
  }
  return kept;
}

std::string Braced(const std::vector<int64_t>& values) {
  return absl::StrCat("{", absl::StrJoin(values, ","), "}");
}

std::string SliceString(const std::vector<SliceDimension>& slice) {
  return absl::StrCat(
      "{",
      absl::StrJoin(slice, ", ",
                    [](std::string* out, const SliceDimension& d) {
                      absl::StrAppend(out, "[", d.start, ":", d.limit);
                      if (d.stride != 1) absl::StrAppend(out, ":", d.stride);
                      absl::StrAppend(out, "]");
                    }),
      "}");
}

void AppendDims(absl::string_view key, const std::vector<int64_t>& dims,
                std::vector<std::string>* attrs) {
  attrs->push_back(absl::StrCat(key, "=", Braced(dims)));
}

// Batching dimensions are printed only when there are some, as XLA does.
void AppendGatherAttributes(const HloInstruction& instr,
                            std::vector<std::string>* attrs) {
  const GatherDimensionNumbers& d = instr.gather_dimension_numbers();
  AppendDims("offset_dims", d.offset_dims, attrs);
  AppendDims("collapsed_slice_dims", d.collapsed_slice_dims, attrs);
  AppendDims("start_index_map", d.start_index_map, attrs);
  if (!d.operand_batching_dims.empty()) {
    AppendDims("operand_batching_dims", d.operand_batching_dims, attrs);
  }
  if (!d.start_indices_batching_dims.empty()) {
    AppendDims("start_indices_batching_dims", d.start_indices_batching_dims,
               attrs);
  }
  attrs->push_back(absl::StrCat("index_vector_dim=", d.index_vector_dim));
  AppendDims("slice_sizes", instr.gather_slice_sizes(), attrs);
}

void AppendScatterAttributes(const HloInstruction& instr,
                             std::vector<std::string>* attrs) {
  const ScatterDimensionNumbers& d = instr.scatter_dimension_numbers();
  AppendDims("update_window_dims", d.update_window_dims, attrs);
  AppendDims("inserted_window_dims", d.inserted_window_dims, attrs);
  AppendDims("scatter_dims_to_operand_dims", d.scatter_dims_to_operand_dims,
             attrs);
  if (!d.input_batching_dims.empty()) {
    AppendDims("input_batching_dims", d.input_batching_dims, attrs);
  }
  if (!d.scatter_indices_batching_dims.empty()) {
    AppendDims("scatter_indices_batching_dims", d.scatter_indices_batching_dims,
               attrs);
  }
  attrs->push_back(absl::StrCat("index_vector_dim=", d.index_vector_dim));
  if (instr.unique_indices()) attrs->push_back("unique_indices=true");
}

void AppendCompareAttributes(const HloInstruction& instr,
                             std::vector<std::string>* attrs) {
  attrs->push_back(absl::StrCat(
      "direction=", ComparisonDirectionString(instr.comparison_direction())));
  if (instr.comparison_type().has_value()) {
    attrs->push_back(
        absl::StrCat("type=", ComparisonTypeString(*instr.comparison_type())));
  }
}

// while's condition and body, conditional's branches: a pred-selected
// conditional prints XLA's true/false form, an indexed one the list.
void AppendCalledComputations(const HloInstruction& instr,
                              std::vector<std::string>* attrs) {
  const std::vector<HloComputation*>& called = instr.called_computations();
  if (called.empty()) return;
  if (instr.opcode() == HloOpcode::kWhile && called.size() == 2) {
    attrs->push_back(absl::StrCat("condition=%", called[0]->name()));
    attrs->push_back(absl::StrCat("body=%", called[1]->name()));
    return;
  }
  const bool pred_form =
      called.size() == 2 && instr.operand_count() > 0 &&
      instr.operand(0)->shape().IsArray() &&
      instr.operand(0)->shape().element_type() == PrimitiveType::PRED;
  if (pred_form) {
    attrs->push_back(absl::StrCat("true_computation=%", called[0]->name()));
    attrs->push_back(absl::StrCat("false_computation=%", called[1]->name()));
    return;
  }
  attrs->push_back(absl::StrCat(
      "branch_computations={",
      absl::StrJoin(called, ", ",
                    [](std::string* out, const HloComputation* c) {
                      absl::StrAppend(out, "%", c->name());
                    }),
      "}"));
}

// Group counts only when not 1, as XLA prints them.
void AppendWindowAttributes(const HloInstruction& instr,
                            std::vector<std::string>* attrs) {
  if (!instr.window().empty()) {
    attrs->push_back(
        absl::StrCat("window={", WindowToString(instr.window()), "}"));
  }
  if (instr.opcode() == HloOpcode::kSelectAndScatter &&
      instr.select() != nullptr) {
    attrs->push_back(absl::StrCat("select=%", instr.select()->name()));
  }
  if (instr.opcode() != HloOpcode::kConvolution) return;
  attrs->push_back(absl::StrCat(
      "dim_labels=", DimLabelsToString(instr.convolution_dimension_numbers())));
  if (instr.feature_group_count() != 1) {
    attrs->push_back(
        absl::StrCat("feature_group_count=", instr.feature_group_count()));
  }
  if (instr.batch_group_count() != 1) {
    attrs->push_back(
        absl::StrCat("batch_group_count=", instr.batch_group_count()));
  }
}

// The attributes after the operand list, in the parser's syntax.
std::vector<std::string> AttributeStrings(const HloInstruction& instr) {
  std::vector<std::string> attrs;
  switch (instr.opcode()) {
    case HloOpcode::kBroadcast:
    case HloOpcode::kTranspose:
    case HloOpcode::kReduce:
    case HloOpcode::kReverse:
    case HloOpcode::kConcatenate:
    case HloOpcode::kAllGather:
    case HloOpcode::kReduceScatter:
      attrs.push_back(absl::StrCat("dimensions=", Braced(instr.dimensions())));
      break;
    case HloOpcode::kIota:
      attrs.push_back(absl::StrCat("iota_dimension=", instr.iota_dimension()));
      break;
    case HloOpcode::kGetTupleElement:
      attrs.push_back(absl::StrCat("index=", instr.tuple_index()));
      break;
    case HloOpcode::kCompare:
      AppendCompareAttributes(instr, &attrs);
      break;
    case HloOpcode::kGather:
      AppendGatherAttributes(instr, &attrs);
      break;
    case HloOpcode::kScatter:
      AppendScatterAttributes(instr, &attrs);
      break;
    case HloOpcode::kDynamicSlice:
      AppendDims("dynamic_slice_sizes", instr.dynamic_slice_sizes(), &attrs);
      break;
    case HloOpcode::kSlice:
      attrs.push_back(
          absl::StrCat("slice=", SliceString(instr.slice_dimensions())));
      break;
    case HloOpcode::kConvolution:
    case HloOpcode::kReduceWindow:
    case HloOpcode::kSelectAndScatter:
      AppendWindowAttributes(instr, &attrs);
      break;
    case HloOpcode::kPad:
      attrs.push_back(absl::StrCat("padding=", PaddingString(instr.padding())));
      break;
    case HloOpcode::kDot: {
      const DotDimensionNumbers& dnums = instr.dot_dimension_numbers();
      if (!dnums.lhs_batch_dimensions.empty()) {
        attrs.push_back(absl::StrCat("lhs_batch_dims=",
                                     Braced(dnums.lhs_batch_dimensions)));
      }
      attrs.push_back(absl::StrCat("lhs_contracting_dims=",
                                   Braced(dnums.lhs_contracting_dimensions)));
      if (!dnums.rhs_batch_dimensions.empty()) {
        attrs.push_back(absl::StrCat("rhs_batch_dims=",
                                     Braced(dnums.rhs_batch_dimensions)));
      }
      attrs.push_back(absl::StrCat("rhs_contracting_dims=",
                                   Braced(dnums.rhs_contracting_dimensions)));
      break;
    }
    default:
      break;
  }
  if (!instr.operand_precision().empty()) {
    attrs.push_back(absl::StrCat(
        "operand_precision={",
        absl::StrJoin(instr.operand_precision(), ",",
                      [](std::string* out, PrecisionConfig p) {
                        absl::StrAppend(out, PrecisionString(p));
                      }),
        "}"));
  }
  if (instr.to_apply() != nullptr) {
    const char* key = instr.opcode() == HloOpcode::kFusion ? "calls=%"
                      : instr.opcode() == HloOpcode::kSelectAndScatter
                          ? "scatter=%"
                          : "to_apply=%";
    attrs.push_back(absl::StrCat(key, instr.to_apply()->name()));
  }
  AppendCalledComputations(instr, &attrs);
  if (instr.indices_are_sorted()) attrs.push_back("indices_are_sorted=true");
  if (IsCollective(instr.opcode())) {
    for (std::string& attr : CollectiveAttributeStrings(
             instr.collective_attributes(),
             instr.opcode() == HloOpcode::kCollectivePermute)) {
      attrs.push_back(std::move(attr));
    }
  }
  if (instr.opcode() == HloOpcode::kCustomCall) {
    attrs.push_back(
        absl::StrCat("custom_call_target=\"", instr.custom_call_target(), "\""));
  }
  if (!instr.frontend_attributes().empty()) {
    attrs.push_back(absl::StrCat(
        "frontend_attributes={",
        absl::StrJoin(instr.frontend_attributes(), ",",
                      [](std::string* out,
                         const std::pair<std::string, std::string>& kv) {
                        absl::StrAppend(out, kv.first, "=\"", kv.second, "\"");
                      }),
        "}"));
  }
  return attrs;
}

}  // namespace

const char* ComparisonDirectionString(ComparisonDirection direction) {
  switch (direction) {
    case ComparisonDirection::kEq:
      return "EQ";
    case ComparisonDirection::kNe:
      return "NE";
    case ComparisonDirection::kLt:
      return "LT";
    case ComparisonDirection::kLe:
      return "LE";
    case ComparisonDirection::kGt:
      return "GT";
    case ComparisonDirection::kGe:
      return "GE";
  }
  return "EQ";
}

std::vector<int64_t> GatherOffsetOperandDims(const GatherDimensionNumbers& d,
                                             int64_t operand_rank) {
  return DimensionsOutside(operand_rank, d.collapsed_slice_dims,
                           d.operand_batching_dims);
}

std::vector<int64_t> ScatterWindowOperandDims(const ScatterDimensionNumbers& d,
                                              int64_t operand_rank) {
  return DimensionsOutside(operand_rank, d.inserted_window_dims,
                           d.input_batching_dims);
}

const char* ComparisonTypeString(ComparisonType type) {
  switch (type) {
    case ComparisonType::kFloat:
      return "FLOAT";
    case ComparisonType::kTotalOrder:
      return "TOTALORDER";
    case ComparisonType::kSigned:
      return "SIGNED";
    case ComparisonType::kUnsigned:
      return "UNSIGNED";
  }
  return "FLOAT";
}

HloInstruction::HloInstruction(HloOpcode opcode, Shape shape, std::string name)
    : opcode_(opcode), shape_(std::move(shape)), name_(std::move(name)) {}

void HloInstruction::AppendOperand(HloInstruction* operand) {
  CHECK(operand != nullptr) << "null operand for " << name_;
  operands_.push_back(operand);
  AddUniqueUser(this, &operand->users_);
}

void HloInstruction::ReplaceOperandWith(HloInstruction* old_operand,
                                        HloInstruction* new_operand) {
  CHECK(new_operand != nullptr) << "null operand for " << name_;
  if (old_operand == new_operand) return;
  bool replaced = false;
  for (HloInstruction*& operand : operands_) {
    if (operand == old_operand) {
      operand = new_operand;
      replaced = true;
    }
  }
  if (!replaced) return;
  RemoveUser(this, &old_operand->users_);
  AddUniqueUser(this, &new_operand->users_);
}

void HloInstruction::ReplaceAllUsesWith(HloInstruction* replacement) {
  CHECK(replacement != nullptr) << "null replacement for " << name_;
  if (replacement == this) return;
  // ReplaceOperandWith edits users_, so walk a copy.
  std::vector<HloInstruction*> users = users_;
  for (HloInstruction* user : users) user->ReplaceOperandWith(this, replacement);
  if (IsRoot()) parent_->set_root_instruction(replacement);
}

std::vector<HloComputation*> HloInstruction::AllCalledComputations() const {
  std::vector<HloComputation*> all;
  if (to_apply_ != nullptr) all.push_back(to_apply_);
  if (select_ != nullptr) all.push_back(select_);
  all.insert(all.end(), called_.begin(), called_.end());
  return all;
}

const std::string* HloInstruction::FrontendAttribute(
    const std::string& key) const {
  for (const auto& [k, v] : frontend_attributes_) {
    if (k == key) return &v;
  }
  return nullptr;
}

std::string HloInstruction::SourceLocation() const {
  if (source_line_ <= 0 || parent_ == nullptr || parent_->parent() == nullptr ||
      parent_->parent()->source_name().empty()) {
    return "";
  }
  return absl::StrCat(parent_->parent()->source_name(), ":", source_line_);
}

bool HloInstruction::IsRoot() const {
  return parent_ != nullptr && parent_->root_instruction() == this;
}

std::string HloInstruction::ToString() const {
  std::string text = absl::StrCat("%", name_, " = ", shape_.ToString(true),
                                  " ", HloOpcodeString(opcode_), "(");
  if (opcode_ == HloOpcode::kParameter) {
    absl::StrAppend(&text, parameter_number_);
  } else if (opcode_ == HloOpcode::kConstant) {
    absl::StrAppend(&text, literal_.ValuesToString());
  } else {
    absl::StrAppend(&text, absl::StrJoin(operands_, ", ",
                                         [](std::string* out,
                                            const HloInstruction* operand) {
                                           absl::StrAppend(out, "%",
                                                           operand->name());
                                         }));
  }
  absl::StrAppend(&text, ")");
  for (const std::string& attr : AttributeStrings(*this)) {
    absl::StrAppend(&text, ", ", attr);
  }
  return text;
}

}  // namespace xla_lite
