#ifndef XLA_LITE_HLO_HLO_EVALUATOR_INTERNAL_H_
#define XLA_LITE_HLO_HLO_EVALUATOR_INTERNAL_H_

// Pieces of the reference evaluator, split by kind of operation. Values are
// logical (row-major) arrays whatever the layouts in the text.

#include <cstdint>
#include <functional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "xla_lite/hlo/hlo_collective_groups.h"
#include "xla_lite/hlo/hlo_evaluator_rendezvous.h"
#include "xla_lite/hlo/hlo_instruction.h"
#include "xla_lite/hlo/literal.h"

namespace xla_lite::evaluator_internal {

// Row-major index <-> linear position.
std::vector<int64_t> MultiIndex(const std::vector<int64_t>& dimensions,
                                int64_t linear);
int64_t LinearIndex(const std::vector<int64_t>& dimensions,
                    const std::vector<int64_t>& index);
// Elements from one index to the next along each dimension, row-major.
std::vector<int64_t> RowMajorStrides(const std::vector<int64_t>& dims);

// Unary and binary elementwise ops, compare, select, clamp, convert:
// `operands` are the instruction's operand values, in order.
absl::StatusOr<Literal> EvaluateElementwise(
    const HloInstruction& instr, absl::Span<const Literal* const> operands);

// out[out_index] = a[a_index] `opcode` b[b_index] for an elementwise
// binary opcode, rounded to out's element type (a, b and out share it).
// Also what a reduce whose computation is a single binary op applies.
absl::Status ApplyBinaryElement(HloOpcode opcode, const Literal& a,
                                int64_t a_index, const Literal& b,
                                int64_t b_index, Literal* out,
                                int64_t out_index);

// broadcast, reshape, bitcast, copy, transpose, slice, concatenate,
// reverse, iota.
absl::StatusOr<Literal> EvaluateDataMovement(
    const HloInstruction& instr, absl::Span<const Literal* const> operands);

// dynamic-slice(operand, starts...) and dynamic-update-slice(operand,
// update, starts...): each start clamped so the window lies within the
// operand, as XLA does.
Literal EvaluateDynamicSlice(const HloInstruction& instr,
                             absl::Span<const Literal* const> operands);
Literal EvaluateDynamicUpdateSlice(const HloInstruction& instr,
                                   absl::Span<const Literal* const> operands);

// dot with any batch and contracting dimensions, accumulated in double
// (int64 for integers) and rounded once.
absl::StatusOr<Literal> EvaluateDot(const HloInstruction& instr,
                                    const Literal& lhs, const Literal& rhs);

// out[out_index] = f(a[a_index], b[b_index]) for the scalar computation f
// of a reduce or scatter (its to_apply); `out` may be `a`.
using ScalarCombiner = std::function<absl::Status(
    const Literal& a, int64_t a_index, const Literal& b, int64_t b_index,
    Literal* out, int64_t out_index)>;

// Where a gather's slice or a scatter's window starts in the operand, for
// one index into the indices array without its index_vector_dim (a "batch
// index"): indices[batch index, k] along to_operand[k], and the batch index
// itself along each operand batching dimension, whose partner is a
// dimension of the indices. Dimensions neither name start at 0.
class SliceStarts {
 public:
  SliceStarts(const Literal& indices, int64_t index_vector_dim,
              const std::vector<int64_t>& to_operand,
              const std::vector<int64_t>& operand_batching_dims,
              const std::vector<int64_t>& indices_batching_dims,
              int64_t operand_rank);

  // Unclamped: indices may point anywhere; the caller applies its op's rule.
  std::vector<int64_t> Start(const std::vector<int64_t>& batch_index) const;

 private:
  const Literal& indices_;
  const int64_t index_vector_dim_;
  const std::vector<int64_t>& to_operand_;
  const std::vector<int64_t>& operand_batching_dims_;
  // For each operand batching dimension, its position in a batch index.
  std::vector<int64_t> batch_positions_;
  const int64_t operand_rank_;
};

// gather: each start clamped so that the whole slice lies in the operand,
// as XLA does.
absl::StatusOr<Literal> EvaluateGather(const HloInstruction& instr,
                                       const Literal& operand,
                                       const Literal& indices);

// scatter of one operand: updates combined into a copy of the operand in
// row-major order of the updates; an update window that does not lie
// wholly within the operand is dropped, as XLA does.
absl::StatusOr<Literal> EvaluateScatter(const HloInstruction& instr,
                                        const Literal& operand,
                                        const Literal& indices,
                                        const Literal& updates,
                                        const ScalarCombiner& combine);

// Whether f(a[a_index], b[b_index]) holds for select-and-scatter's select.
using ScalarPredicate = std::function<absl::StatusOr<bool>(
    const Literal& a, int64_t a_index, const Literal& b, int64_t b_index)>;

// Where tap `taps` of the window placed at `out_index` falls in a base of
// `base_sizes` (one entry per window dimension): false when it falls on
// padding or on a hole of the base dilation, else the base index in
// `base_index`. Window reversal is the caller's business (it reverses the
// kernel, not the base).
bool WindowedBaseIndex(const Window& window,
                       absl::Span<const int64_t> base_sizes,
                       absl::Span<const int64_t> out_index,
                       absl::Span<const int64_t> taps,
                       std::vector<int64_t>* base_index);

// convolution with any dim_labels, window, feature and batch groups,
// accumulated in double and rounded once.
absl::StatusOr<Literal> EvaluateConvolution(const HloInstruction& instr,
                                            const Literal& lhs,
                                            const Literal& rhs);

// reduce-window of one operand: init combined with the window's elements
// in row-major order of the taps; taps on padding or holes are skipped.
absl::StatusOr<Literal> EvaluateReduceWindow(const HloInstruction& instr,
                                             const Literal& operand,
                                             const Literal& init,
                                             const ScalarCombiner& combine);

// select-and-scatter: a result of the operand's shape filled with init;
// for each source element in row-major order, the window's selected
// element (the first, replaced by each later one that select(selected,
// later) rejects) receives scatter(result, source).
absl::StatusOr<Literal> EvaluateSelectAndScatter(
    const HloInstruction& instr, const Literal& operand, const Literal& source,
    const Literal& init, const ScalarPredicate& select,
    const ScalarCombiner& scatter);
// The device an evaluation runs as, in a run of several.
struct DeviceContext {
  int64_t device = 0;
  DeviceTopology topology;
  // nullptr: a run of one device.
  EvaluatorRendezvous* rendezvous = nullptr;
  absl::Duration timeout = absl::Seconds(60);
  // How many collectives this device has reached.
  int64_t next_exchange = 0;
};

// all-reduce, all-gather, reduce-scatter, collective-permute (meeting the
// other devices through ctx.rendezvous), replica-id and partition-id.
// `combine` is all-reduce's and reduce-scatter's to_apply.
absl::StatusOr<Literal> EvaluateCollective(
    const HloInstruction& instr, absl::Span<const Literal* const> operands,
    DeviceContext& ctx, const ScalarCombiner& combine);
// pad: the padding value everywhere, operand element i at
// edge_low + i * (interior + 1) where that lies in the result.
absl::StatusOr<Literal> EvaluatePad(const HloInstruction& instr,
                                    const Literal& operand,
                                    const Literal& value);

}  // namespace xla_lite::evaluator_internal

#endif  // XLA_LITE_HLO_HLO_EVALUATOR_INTERNAL_H_
