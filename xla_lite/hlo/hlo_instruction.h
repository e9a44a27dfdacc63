#ifndef XLA_LITE_HLO_HLO_INSTRUCTION_H_
#define XLA_LITE_HLO_HLO_INSTRUCTION_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "xla_lite/hlo/hlo_opcode.h"
#include "xla_lite/hlo/literal.h"
#include "xla_lite/shape.h"

namespace xla_lite {

class HloComputation;

enum class ComparisonDirection { kEq, kNe, kLt, kLe, kGt, kGe };
const char* ComparisonDirectionString(ComparisonDirection direction);

struct DotDimensionNumbers {
  std::vector<int64_t> lhs_contracting_dimensions;
  std::vector<int64_t> rhs_contracting_dimensions;
  std::vector<int64_t> lhs_batch_dimensions;
  std::vector<int64_t> rhs_batch_dimensions;
};

// operand_precision={highest,default}: kept so the compiler can refuse
// reduced precision when asked for the highest.
enum class PrecisionConfig { kDefault, kHigh, kHighest };

struct SliceDimension {
  int64_t start = 0, limit = 0, stride = 1;
};

// One operation of a computation. Instructions are owned by their
// computation; operands and users are plain pointers into the same
// computation. Attributes an opcode does not use stay empty.
class HloInstruction {
 public:
  HloInstruction(HloOpcode opcode, Shape shape, std::string name);
  HloInstruction(const HloInstruction&) = delete;
  HloInstruction& operator=(const HloInstruction&) = delete;

  HloOpcode opcode() const { return opcode_; }
  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }
  const Shape& shape() const { return shape_; }
  Shape* mutable_shape() { return &shape_; }
  HloComputation* parent() const { return parent_; }

  // Operands; AppendOperand also records this instruction as a user.
  int64_t operand_count() const { return operands_.size(); }
  const HloInstruction* operand(int64_t i) const { return operands_.at(i); }
  HloInstruction* mutable_operand(int64_t i) { return operands_.at(i); }
  const std::vector<HloInstruction*>& operands() const { return operands_; }
  void AppendOperand(HloInstruction* operand);
  // Replaces every occurrence of `old_operand` among the operands.
  void ReplaceOperandWith(HloInstruction* old_operand,
                          HloInstruction* new_operand);
  // Users, each listed once, in the order they were added.
  const std::vector<HloInstruction*>& users() const { return users_; }
  int64_t user_count() const { return users_.size(); }
  // Makes every user use `replacement` instead; the computation's root
  // moves too when this instruction was it.
  void ReplaceAllUsesWith(HloInstruction* replacement);

  // kParameter.
  int64_t parameter_number() const { return parameter_number_; }
  void set_parameter_number(int64_t n) { parameter_number_ = n; }
  // kConstant.
  const Literal& literal() const { return literal_; }
  void set_literal(Literal literal) { literal_ = std::move(literal); }
  // dimensions={...}: broadcast (operand dimension i maps to output
  // dimension dimensions[i]), transpose (output dimension i is operand
  // dimension dimensions[i]), reduce (the dimensions reduced away),
  // reverse, and concatenate (one entry).
  const std::vector<int64_t>& dimensions() const { return dimensions_; }
  int64_t dimensions(int64_t i) const { return dimensions_.at(i); }
  void set_dimensions(std::vector<int64_t> d) { dimensions_ = std::move(d); }
  // kIota.
  int64_t iota_dimension() const { return iota_dimension_; }
  void set_iota_dimension(int64_t d) { iota_dimension_ = d; }
  // kGetTupleElement.
  int64_t tuple_index() const { return tuple_index_; }
  void set_tuple_index(int64_t i) { tuple_index_ = i; }
  // kDot.
  const DotDimensionNumbers& dot_dimension_numbers() const { return dot_; }
  void set_dot_dimension_numbers(DotDimensionNumbers d) { dot_ = std::move(d); }
  // operand_precision, one per operand when given; empty means default.
  const std::vector<PrecisionConfig>& operand_precision() const {
    return precision_;
  }
  void set_operand_precision(std::vector<PrecisionConfig> p) {
    precision_ = std::move(p);
  }
  // kCompare.
  ComparisonDirection comparison_direction() const { return direction_; }
  void set_comparison_direction(ComparisonDirection d) { direction_ = d; }
  // kSlice.
  const std::vector<SliceDimension>& slice_dimensions() const {
    return slice_;
  }
  void set_slice_dimensions(std::vector<SliceDimension> s) {
    slice_ = std::move(s);
  }
  // The computation a kReduce or kCall applies (to_apply=), or a kFusion's
  // fused computation (calls=). Owned by the module.
  HloComputation* to_apply() const { return to_apply_; }
  void set_to_apply(HloComputation* c) { to_apply_ = c; }
  HloComputation* fused_computation() const { return to_apply_; }

  bool IsRoot() const;
  // One line of HLO text: "%name = f32[2]{0} add(f32[2]{0} %a, ...), ..."
  // without the operand shapes, in the parser's own syntax, so that
  // printing and parsing round-trip.
  std::string ToString() const;

 private:
  friend class HloComputation;

  HloOpcode opcode_;
  Shape shape_;
  std::string name_;
  HloComputation* parent_ = nullptr;
  std::vector<HloInstruction*> operands_;
  std::vector<HloInstruction*> users_;

  int64_t parameter_number_ = -1;
  Literal literal_;
  std::vector<int64_t> dimensions_;
  int64_t iota_dimension_ = 0;
  int64_t tuple_index_ = 0;
  DotDimensionNumbers dot_;
  std::vector<PrecisionConfig> precision_;
  ComparisonDirection direction_ = ComparisonDirection::kEq;
  std::vector<SliceDimension> slice_;
  HloComputation* to_apply_ = nullptr;
};

}  // namespace xla_lite

#endif  // XLA_LITE_HLO_HLO_INSTRUCTION_H_
