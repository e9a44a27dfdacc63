#ifndef XLA_LITE_HLO_HLO_INSTRUCTION_H_
#define XLA_LITE_HLO_HLO_INSTRUCTION_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "xla_lite/hlo/hlo_collective_attributes.h"
#include "xla_lite/hlo/hlo_opcode.h"
#include "xla_lite/hlo/hlo_window.h"
#include "xla_lite/hlo/literal.h"
#include "xla_lite/shape.h"

namespace xla_lite {

class HloComputation;

enum class ComparisonDirection { kEq, kNe, kLt, kLe, kGt, kGe };
const char* ComparisonDirectionString(ComparisonDirection direction);

// compare's type=: how elements are ordered. Without it the element type
// decides (FLOAT for floating point, SIGNED for signed integers, UNSIGNED
// for unsigned integers and pred), as in XLA.
enum class ComparisonType { kFloat, kTotalOrder, kSigned, kUnsigned };
const char* ComparisonTypeString(ComparisonType type);

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

// pad's padding per dimension (XLA's PaddingConfig): elements of the
// padding value added before and after the operand's (a negative edge
// removes elements) and between each two neighbours.
struct PaddingDimension {
  int64_t edge_low = 0, edge_high = 0, interior = 0;
};

// gather's dimension numbers, with XLA's names and meaning. The output's
// dimensions are offset_dims (positions within a slice) and batch
// dimensions (the others, one per start_indices dimension other than
// index_vector_dim, in order). The slice for a batch index starts at
// start_indices[batch index, :] along the operand dimensions
// start_index_map, and at the batch index itself along
// operand_batching_dims (paired with start_indices_batching_dims).
// collapsed_slice_dims and operand_batching_dims are slice dimensions of
// size 1 that the output leaves out. index_vector_dim may equal the rank of
// start_indices (an implicit trailing dimension of size 1).
struct GatherDimensionNumbers {
  std::vector<int64_t> offset_dims;
  std::vector<int64_t> collapsed_slice_dims;
  std::vector<int64_t> start_index_map;
  std::vector<int64_t> operand_batching_dims;
  std::vector<int64_t> start_indices_batching_dims;
  int64_t index_vector_dim = 0;
};

// scatter's dimension numbers, the mirror image of gather's: updates
// dimensions are update_window_dims (positions within a window) and scatter
// dimensions (one per scatter_indices dimension other than
// index_vector_dim); scatter_dims_to_operand_dims plays start_index_map,
// inserted_window_dims collapsed_slice_dims, and input_batching_dims with
// scatter_indices_batching_dims the batching pairs.
struct ScatterDimensionNumbers {
  std::vector<int64_t> update_window_dims;
  std::vector<int64_t> inserted_window_dims;
  std::vector<int64_t> scatter_dims_to_operand_dims;
  std::vector<int64_t> input_batching_dims;
  std::vector<int64_t> scatter_indices_batching_dims;
  int64_t index_vector_dim = 0;
};

// The operand dimensions a gather's slice keeps in the output, ascending:
// offset_dims[k] is the output dimension of the k-th. All but
// collapsed_slice_dims and operand_batching_dims.
std::vector<int64_t> GatherOffsetOperandDims(const GatherDimensionNumbers& d,
                                             int64_t operand_rank);
// The operand dimensions a scatter's update window spans, ascending:
// update_window_dims[k] is the updates dimension of the k-th. All but
// inserted_window_dims and input_batching_dims.
std::vector<int64_t> ScatterWindowOperandDims(const ScatterDimensionNumbers& d,
                                              int64_t operand_rank);

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
  // kCompare. comparison_type() is empty when the text gave no type=.
  ComparisonDirection comparison_direction() const { return direction_; }
  void set_comparison_direction(ComparisonDirection d) { direction_ = d; }
  const std::optional<ComparisonType>& comparison_type() const {
    return comparison_type_;
  }
  void set_comparison_type(std::optional<ComparisonType> t) {
    comparison_type_ = t;
  }
  // kGather: dimension numbers and slice_sizes (one per operand dimension).
  const GatherDimensionNumbers& gather_dimension_numbers() const {
    return gather_;
  }
  GatherDimensionNumbers* mutable_gather_dimension_numbers() {
    return &gather_;
  }
  const std::vector<int64_t>& gather_slice_sizes() const {
    return slice_sizes_;
  }
  void set_gather_slice_sizes(std::vector<int64_t> s) {
    slice_sizes_ = std::move(s);
  }
  // kDynamicSlice: dynamic_slice_sizes, one per operand dimension. Kept
  // where gather keeps its slice_sizes: no opcode has both.
  const std::vector<int64_t>& dynamic_slice_sizes() const {
    return slice_sizes_;
  }
  void set_dynamic_slice_sizes(std::vector<int64_t> s) {
    slice_sizes_ = std::move(s);
  }
  // kScatter: dimension numbers; the combiner is to_apply().
  const ScatterDimensionNumbers& scatter_dimension_numbers() const {
    return scatter_;
  }
  ScatterDimensionNumbers* mutable_scatter_dimension_numbers() {
    return &scatter_;
  }
  // kGather and kScatter: promises about the indices that allow faster
  // code; the values computed do not depend on them.
  bool indices_are_sorted() const { return indices_are_sorted_; }
  void set_indices_are_sorted(bool v) { indices_are_sorted_ = v; }
  bool unique_indices() const { return unique_indices_; }
  void set_unique_indices(bool v) { unique_indices_ = v; }
  // kSlice.
  const std::vector<SliceDimension>& slice_dimensions() const {
    return slice_;
  }
  void set_slice_dimensions(std::vector<SliceDimension> s) {
    slice_ = std::move(s);
  }
  // kConvolution (one dimension per spatial dimension), kReduceWindow and
  // kSelectAndScatter (one per operand dimension).
  const Window& window() const { return window_; }
  void set_window(Window w) { window_ = std::move(w); }
  // kConvolution: dim_labels, feature_group_count and batch_group_count.
  const ConvolutionDimensionNumbers& convolution_dimension_numbers() const {
    return convolution_;
  }
  void set_convolution_dimension_numbers(ConvolutionDimensionNumbers d) {
    convolution_ = std::move(d);
  }
  int64_t feature_group_count() const { return feature_group_count_; }
  void set_feature_group_count(int64_t n) { feature_group_count_ = n; }
  int64_t batch_group_count() const { return batch_group_count_; }
  void set_batch_group_count(int64_t n) { batch_group_count_ = n; }
  // kSelectAndScatter: select= (T, T) -> pred; its scatter= is to_apply().
  HloComputation* select() const { return select_; }
  void set_select(HloComputation* c) { select_ = c; }
  // Collectives: replica groups, channel, permutation pairs.
  const CollectiveAttributes& collective_attributes() const {
    return collective_;
  }
  CollectiveAttributes* mutable_collective_attributes() { return &collective_; }
  // kCustomCall: custom_call_target and frontend_attributes={k="v",...}
  // (kept in order; the values with their escapes, as written).
  const std::string& custom_call_target() const { return custom_call_target_; }
  void set_custom_call_target(std::string t) {
    custom_call_target_ = std::move(t);
  }
  using FrontendAttributes = std::vector<std::pair<std::string, std::string>>;
  const FrontendAttributes& frontend_attributes() const {
    return frontend_attributes_;
  }
  void set_frontend_attributes(FrontendAttributes a) {
    frontend_attributes_ = std::move(a);
  }
  // The value of frontend attribute `key`, or nullptr.
  const std::string* FrontendAttribute(const std::string& key) const;

  // kPad: one per operand dimension.
  const std::vector<PaddingDimension>& padding() const { return padding_; }
  void set_padding(std::vector<PaddingDimension> p) { padding_ = std::move(p); }
  // The computation a kReduce, kReduceWindow, kScatter or kCall applies
  // (to_apply=), or a kFusion's fused computation (calls=). Owned by the
  // module.
  HloComputation* to_apply() const { return to_apply_; }
  void set_to_apply(HloComputation* c) { to_apply_ = c; }
  HloComputation* fused_computation() const { return to_apply_; }

  // The computations a kWhile or kConditional runs, owned by the module:
  // a while's {condition, body}; a conditional's branches in index order
  // (true_computation= is branch 0 and false_computation= branch 1, as in
  // XLA, so a pred selects branch !pred). Empty for other opcodes.
  const std::vector<HloComputation*>& called_computations() const {
    return called_;
  }
  void set_called_computations(std::vector<HloComputation*> c) {
    called_ = std::move(c);
  }
  HloComputation* while_condition() const { return called_.at(0); }
  HloComputation* while_body() const { return called_.at(1); }
  int64_t branch_count() const { return called_.size(); }
  HloComputation* branch_computation(int64_t i) const { return called_.at(i); }
  // Every computation this instruction applies: to_apply(), select() and
  // the called computations.
  std::vector<HloComputation*> AllCalledComputations() const;

  // The line of the HLO text this instruction was parsed from; 0 when it
  // was made by code.
  int source_line() const { return source_line_; }
  void set_source_line(int line) { source_line_ = line; }
  // "<source name>:<line>" of a parsed instruction in a module, so errors
  // found after parsing point at the text; "" otherwise.
  std::string SourceLocation() const;

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
  std::optional<ComparisonType> comparison_type_;
  std::vector<SliceDimension> slice_;
  std::vector<PaddingDimension> padding_;
  GatherDimensionNumbers gather_;
  std::vector<int64_t> slice_sizes_;
  ScatterDimensionNumbers scatter_;
  bool indices_are_sorted_ = false;
  bool unique_indices_ = false;
  Window window_;
  ConvolutionDimensionNumbers convolution_;
  int64_t feature_group_count_ = 1;
  int64_t batch_group_count_ = 1;
  HloComputation* select_ = nullptr;
  CollectiveAttributes collective_;
  std::string custom_call_target_;
  FrontendAttributes frontend_attributes_;
  HloComputation* to_apply_ = nullptr;
  std::vector<HloComputation*> called_;
  int source_line_ = 0;
};

}  // namespace xla_lite

#endif  // XLA_LITE_HLO_HLO_INSTRUCTION_H_
