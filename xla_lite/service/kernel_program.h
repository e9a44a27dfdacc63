#ifndef XLA_LITE_SERVICE_KERNEL_PROGRAM_H_
#define XLA_LITE_SERVICE_KERNEL_PROGRAM_H_

// The one lowering of a fusion: a small straight-line expression program
// over element indices. The CUDA emitter prints it as C and the host
// interpreter evaluates it, so both platforms run the same fused
// computation and differ only in that last step.
//
// Every value is computed per element. Index values are linear (row-major)
// element indices into some array; data values are scalars of an element
// type. Broadcast, transpose, reshape, slice, reverse and iota are pure
// index arithmetic, so they cost no memory traffic inside a fusion;
// concatenate and pad select between operands by an index predicate, and
// gather computes an index from values it loads (kDynamicIndex).
//
// No op may ever read out of bounds, on either back end: the host
// interpreter evaluates every op of a program for every element (a lane
// at a time, eagerly), and CUDA C does too but for the sides of lazy
// selects (lazy_selects.h), so an index feeding a load a select may not
// take is clamped into its array all the same.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "xla_lite/hlo/hlo_instruction.h"
#include "xla_lite/hlo/hlo_opcode.h"
#include "xla_lite/primitive_util.h"
#include "xla_lite/service/elemental_ops.h"

namespace xla_lite::gpu {

// Maps linear indices over `sources` (each over a row-major shape) to a
// linear index over `target`: target coordinate t is
// offset + scale * (coordinate `dim` of source `source`), or just offset
// when source is -1; then divided by `divisor` (truncating) and clamped
// into [0, limit) when limit > 0. The last two serve concatenate and pad,
// whose operands are read at clamped coordinates where another operand
// (or the padding value) is selected.
struct IndexRemap {
  struct Dim {
    int source = -1;
    int64_t dim = 0;
    int64_t scale = 1;
    int64_t offset = 0;
    int64_t divisor = 1;
    int64_t limit = 0;

    bool IsAffine() const { return divisor == 1 && limit <= 0; }
    // The target coordinate for source coordinate `c`.
    int64_t Apply(int64_t c) const;
  };
  std::vector<std::vector<int64_t>> sources;
  std::vector<int64_t> target;
  std::vector<Dim> dims;  // One per target dimension.

  // The target index for `sources` (one linear index per source).
  int64_t Apply(const std::vector<int64_t>& sources) const;
  // True when the result always equals source 0's index.
  bool IsIdentity() const;
  // True when every dimension is affine (see Dim::IsAffine).
  bool IsAffine() const;
  // True when no target dimension reads a source: the same index for
  // every element (a scalar's only element, say).
  bool IsConstant() const;
  std::string ToString() const;
};

// kIndexInBounds: whether each listed coordinate of an index over `dims`
// lies in [lo, hi) on the stride (c - lo) % stride == 0.
struct IndexBounds {
  struct Bound {
    int64_t dim = 0;
    int64_t lo = 0;
    int64_t hi = 0;
    int64_t stride = 1;
  };
  std::vector<int64_t> dims;
  std::vector<Bound> bounds;

  bool Contains(int64_t index) const;
  std::string ToString() const;
};

// kDynamicIndex and kDynamicInBounds: start indices loaded as s32 values.
// Value k moves the index by clamp(v_k, 0, max) * factor (gather clamps a
// start so its slice fits, as XLA does); kDynamicInBounds is whether
// every v_k lies in [0, max] (scatter drops a window that does not fit).
struct DynamicTerm {
  int64_t factor = 1;
  int64_t max = 0;
};

enum class ExprKind {
  // Index values.
  kIndex,        // The element index of the kernel (reduce: the output's).
  kReduceIndex,  // Reduce kernels: the index of the element being reduced.
  kIndexRemap,   // operands: one index per remap source.
  // operand 0 (an index) + sum over k of clamp(operand k + 1, 0,
  // dynamic[k].max) * dynamic[k].factor; operands k + 1 are s32 values.
  kDynamicIndex,
  // Data values.
  // Reduce kernels: the reduction's result, for the epilogue. Loop programs
  // that are a gemm's epilogue: the product at the element's index.
  kReducedValue,
  kLoad,             // input[operand 0].
  kConstant,         // `value`, of `type`.
  kIndexToValue,     // operand 0 (an index) converted to `type` (iota).
  kUnary,            // function(operand 0), rounded to `type` (see excess).
  kBinary,           // function(operand 0, operand 1), rounded to `type`.
  kCompare,          // operand 0 <direction> operand 1, a pred.
  kSelect,           // operand 0 ? operand 1 : operand 2.
  kConvert,          // operand 0 converted to `type`.
  kIndexInBounds,    // bounds.Contains(operand 0), a pred.
  kDynamicInBounds,  // Every s32 operand k in [0, dynamic[k].max], a pred.
};

struct ExprOp {
  ExprKind kind = ExprKind::kIndex;
  PrimitiveType type = PrimitiveType::F32;   // Data ops: the result type.
  HloOpcode opcode = HloOpcode::kAdd;        // kUnary, kBinary.
  // kUnary, kBinary: what computes opcode for the operands' type (from the
  // op's row in elemental_ops), for both back ends.
  const ScalarFunction* function = nullptr;
  ComparisonDirection direction = ComparisonDirection::kEq;
  std::vector<int> operands;
  int input = -1;     // kLoad.
  double value = 0;   // kConstant.
  IndexRemap remap;   // kIndexRemap.
  IndexBounds bounds;                // kIndexInBounds.
  std::vector<DynamicTerm> dynamic;  // kDynamicIndex, kDynamicInBounds.
  // Set by KernelProgram::AllowExcessPrecision. kUnary and kBinary of bf16
  // or f16: the result stays in f32, not rounded to `type`. kConvert from
  // bf16 or f16: the operand, which may be such a result, is rounded to
  // its type before it is converted.
  bool excess = false;

  bool IsIndex() const {
    return kind == ExprKind::kIndex || kind == ExprKind::kReduceIndex ||
           kind == ExprKind::kIndexRemap || kind == ExprKind::kDynamicIndex;
  }
  // Identical ops compute identical values; the program keeps one.
  std::string Key() const;
  std::string ToString(int id) const;
};

// A buffer the kernel reads or writes, as a flat array.
struct KernelBuffer {
  PrimitiveType type = PrimitiveType::F32;
  int64_t element_count = 0;
};

// A value the kernel stores: ops[op] at each element index below
// element_count. Loop kernels may have several outputs, of different sizes.
struct KernelOutput {
  KernelBuffer buffer;
  int op = -1;
};

class KernelProgram {
 public:
  enum class Kind {
    // One thread per element index, up to the largest output.
    kLoop,
    // acc(o) = reducer(init, value(o, 0), value(o, 1), ...) over
    // reduced_elements values; one output, ops[outputs()[0].op] evaluated
    // with kReducedValue = acc(o): the reduced value itself, or an
    // elementwise epilogue of it.
    kReduce,
    // One thread per update element (kIndex) combines ops[outputs()[0].op]
    // into output 0 at scatter_target_op when scatter_valid_op holds:
    // out = combiner(out, update), or out = update without a combiner.
    // Output 0 already holds the scatter's operand.
    kScatter,
  };

  explicit KernelProgram(Kind kind) : kind_(kind) {}

  // Adds `op` (or finds the identical one already there); returns its id.
  int Add(ExprOp op);
  // XLA's excess precision (xla_allow_excess_precision): bf16 and f16
  // arithmetic keeps its f32 result until the value is stored or
  // converted, where it is rounded once, instead of rounding after every
  // op as the HLO's types say. A GELU's backward in bf16 rounds 21 times
  // per element otherwise, which made it compute-bound (25 us for 2M
  // elements on an H100, twice its f32 twin). Call once the program is
  // complete: it marks ops (ExprOp::excess) in place.
  void AllowExcessPrecision();
  int AddInput(KernelBuffer buffer);
  void AddOutput(KernelBuffer buffer, int op);

  Kind kind() const { return kind_; }
  const std::vector<ExprOp>& ops() const { return ops_; }
  const ExprOp& op(int id) const { return ops_.at(id); }
  const std::vector<KernelBuffer>& inputs() const { return inputs_; }
  const std::vector<KernelOutput>& outputs() const { return outputs_; }
  // The largest output's element count.
  int64_t MaxOutputElements() const;
  // Loop kernels: the outputs as groups that share work, each with its
  // element count, largest first. Outputs share a group when they have one
  // size and load a common input of more than one element (an optimizer's
  // parameter, its moments and its gradient); loads of scalars (a step
  // counter) do not join groups.
  std::vector<std::pair<int64_t, std::vector<int>>> OutputGroups() const;
  // Loop kernels: the elements of every group of OutputGroups (the sum of
  // their sizes).
  int64_t LoopExtent() const;

  // Reduce kernels. `reducer` combines two values of the value op's type;
  // `function` computes it.
  void SetReduction(int init_op, int value_op, HloOpcode reducer,
                    const ScalarFunction* function, int64_t reduced_elements);
  int init_op() const { return init_op_; }
  int value_op() const { return value_op_; }
  HloOpcode reducer() const { return reducer_; }
  const ScalarFunction& reducer_function() const { return *reducer_function_; }
  int64_t reduced_elements() const { return reduced_elements_; }

  // Scatter kernels: `combiner` computes the to_apply computation's op;
  // null assigns the update.
  void SetScatter(int target_op, int valid_op, HloOpcode combiner_opcode,
                  const ScalarFunction* combiner, int64_t update_elements);
  int scatter_target_op() const { return scatter_target_op_; }
  int scatter_valid_op() const { return scatter_valid_op_; }
  HloOpcode combiner_opcode() const { return combiner_opcode_; }
  const ScalarFunction* combiner() const { return combiner_; }
  int64_t update_elements() const { return update_elements_; }

  // Which ops depend on kReduceIndex (so run once per reduced element).
  std::vector<bool> InnerOps() const;
  // Which ops depend on kReducedValue (so run after the reduction).
  std::vector<bool> EpilogueOps() const;
  // Which ops depend on the element (kIndex, kReduceIndex, kReducedValue)
  // through some index that is not constant; the rest are the same for
  // every element, so a loop can compute them once, before it starts.
  std::vector<bool> ElementOps() const;
  // The ops `roots` need, in program order.
  std::vector<int> Closure(const std::vector<int>& roots) const;
  // Whether op `id` depends on a data value (an index computed from
  // loaded start indices), so that it cannot be evaluated statically.
  bool DependsOnData(int id) const;

  std::string ToString() const;

 private:
  Kind kind_;
  std::vector<ExprOp> ops_;
  absl::flat_hash_map<std::string, int> ids_;
  std::vector<KernelBuffer> inputs_;
  std::vector<KernelOutput> outputs_;
  int init_op_ = -1;
  int value_op_ = -1;
  HloOpcode reducer_ = HloOpcode::kAdd;
  const ScalarFunction* reducer_function_ = nullptr;
  int64_t reduced_elements_ = 0;
  int scatter_target_op_ = -1;
  int scatter_valid_op_ = -1;
  HloOpcode combiner_opcode_ = HloOpcode::kAdd;
  const ScalarFunction* combiner_ = nullptr;
  int64_t update_elements_ = 0;
};

// How a program's buffers map onto the kernel's parameters: an input and
// an output that are the same buffer (an in-place update) share one.
struct KernelParameters {
  std::vector<int> input_param;   // Per program input.
  std::vector<int> output_param;  // Per program output.
  std::vector<PrimitiveType> types;  // Per parameter.
  std::vector<bool> written;         // Per parameter.

  int count() const { return types.size(); }
};

// The linear index index op `op` of `program` computes when kIndex is
// `index` and kReduceIndex is `reduce_index`; `op` may not depend on data
// (KernelProgram::DependsOnData).
int64_t EvaluateIndex(const KernelProgram& program, int op, int64_t index,
                      int64_t reduce_index);

// Row-major strides of `dims`.
std::vector<int64_t> RowMajorStrides(const std::vector<int64_t>& dims);

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_SERVICE_KERNEL_PROGRAM_H_
