#include "xla_lite/hlo/hlo_instruction.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "glog/logging.h"
#include "xla_lite/hlo/hlo_computation.h"

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

// The attributes after the operand list, in the parser's syntax.
std::vector<std::string> AttributeStrings(const HloInstruction& instr) {
  std::vector<std::string> attrs;
  switch (instr.opcode()) {
    case HloOpcode::kBroadcast:
    case HloOpcode::kTranspose:
    case HloOpcode::kReduce:
    case HloOpcode::kReverse:
    case HloOpcode::kConcatenate:
      attrs.push_back(absl::StrCat("dimensions=", Braced(instr.dimensions())));
      break;
    case HloOpcode::kIota:
      attrs.push_back(absl::StrCat("iota_dimension=", instr.iota_dimension()));
      break;
    case HloOpcode::kGetTupleElement:
      attrs.push_back(absl::StrCat("index=", instr.tuple_index()));
      break;
    case HloOpcode::kCompare:
      attrs.push_back(absl::StrCat(
          "direction=", ComparisonDirectionString(instr.comparison_direction())));
      break;
    case HloOpcode::kSlice:
      attrs.push_back(
          absl::StrCat("slice=", SliceString(instr.slice_dimensions())));
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
    const char* key =
        instr.opcode() == HloOpcode::kFusion ? "calls=%" : "to_apply=%";
    attrs.push_back(absl::StrCat(key, instr.to_apply()->name()));
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
