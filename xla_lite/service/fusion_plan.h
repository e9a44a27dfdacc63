#ifndef XLA_LITE_SERVICE_FUSION_PLAN_H_
#define XLA_LITE_SERVICE_FUSION_PLAN_H_

#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "xla_lite/hlo/hlo_computation.h"
#include "xla_lite/hlo/hlo_instruction.h"
#include "xla_lite/service/gemm_accumulation.h"

namespace xla_lite::gpu {

// A gemm operand as the gemm reads it: the bytes of `source` (a
// materialized value, reached through reshapes), holding the dot operand
// with its two minor dimensions swapped when `transposed`.
struct GemmOperand {
  const HloInstruction* source = nullptr;
  bool transposed = false;
};
// Looks through one transpose of the two minor dimensions and through
// reshapes, which cost a gemm nothing.
GemmOperand ResolveGemmOperand(const HloInstruction* operand);

// Which values of a computation (the entry, or a loop's condition or body,
// or a conditional's branch) get a buffer of their own
// ("materialized"); everything else is computed inside the kernels that
// use it. The rules:
//  - parameters, array constants, dots (gemms), reduces and scatters
//    (their own kernels) are materialized; scalar constants are inlined
//    into kernels; a scatter's operand, when fusible, is computed by the
//    kernel that fills the scatter's buffer before the updates land;
//  - what a gemm reads is materialized (after looking through reshapes and
//    a minor transpose, see ResolveGemmOperand), and so is every result;
//  - reshapes are never materialized: a reshape of a materialized value is
//    a view of its buffer (values are row-major), otherwise it is fused;
//  - a fusible value (elementwise, broadcast, transpose, slice, reverse,
//    iota, concatenate, gather) used by several kernels is recomputed in each
//    when it is cheap, i.e. its fused expression costs at most
//    kRecomputeCostLimit (1 per arithmetic op, 4 per transcendental, 0 for
//    index remapping, kReadCost per read of a buffer it streams), and is
//    materialized (one extra kernel, one extra buffer) otherwise. Reads count
//    because a chain of cheap adds over many buffers (a transformer's residual
//    stream) would otherwise be recomputed, every buffer read again, in every
//    kernel that uses it;
//  - a value that adds a scaled dot (or its minor transpose) to another
//    materialized value (GemmAccumulation) is computed by the gemm itself,
//    with beta = 1 over a copy of the addend or over the addend in place;
//    the dot is then not materialized;
//  - control flow reads and writes buffers: the array operands and results
//    of while and conditional, the operands of tuples, and array
//    get-tuple-elements (views of a leaf) are materialized; tuple-shaped
//    values are their leaves' buffers (the plan builder tracks them);
//  - a reduction whose only consumer is one elementwise result of its own
//    size may take that result as its epilogue (EpilogueOf): the reduce
//    kernel then stores the result, and the reduction stays in registers
//    (the plan builder falls back to two kernels when the epilogue reads
//    the reduction at other elements).
class FusionPlan {
 public:
  static constexpr int kRecomputeCostLimit = 16;
  // A buffer streamed from memory, in arithmetic ops. Recomputing a value
  // in k kernels reads its R buffers k times; materializing it reads them
  // once, then writes and reads one buffer k times and launches one kernel
  // more. With a launch worth about two buffers of a transformer's
  // activations, recomputing in two kernels pays up to about four reads.
  static constexpr int kReadCost = 4;

  // UNIMPLEMENTED naming the instruction when the computation has an op or
  // type the compiler does not support.
  static absl::StatusOr<FusionPlan> Create(const HloComputation& entry);

  bool IsMaterialized(const HloInstruction* instr) const {
    return materialized_.contains(instr);
  }
  // Materialized values computed by a loop kernel, a reduce kernel or a
  // gemm, and the whiles and conditionals, in post order.
  const std::vector<const HloInstruction*>& computed() const {
    return computed_;
  }
  // How the gemm that computes `value` accumulates into its addend, or null
  // when `value` is not computed that way.
  const GemmAccumulation* AccumulationOf(const HloInstruction* value) const {
    auto it = accumulations_.find(value);
    return it == accumulations_.end() ? nullptr : &it->second;
  }
  // The elementwise value that `reduce` may compute as its epilogue, or null.
  const HloInstruction* EpilogueOf(const HloInstruction* reduce) const {
    auto it = epilogues_.find(reduce);
    return it == epilogues_.end() ? nullptr : it->second;
  }

 private:
  void FindAccumulations(const std::vector<HloInstruction*>& post_order);
  void FindEpilogues(
      const std::vector<HloInstruction*>& post_order,
      const HloInstruction* root,
      const absl::flat_hash_map<const HloInstruction*,
                                std::vector<const HloInstruction*>>& kernels);

  absl::flat_hash_set<const HloInstruction*> materialized_;
  std::vector<const HloInstruction*> computed_;
  absl::flat_hash_map<const HloInstruction*, const HloInstruction*> epilogues_;
  absl::flat_hash_map<const HloInstruction*, GemmAccumulation> accumulations_;
};

// Whether `instr` can be computed inside a loop kernel.
bool IsFusible(const HloInstruction& instr);
// Whether `instr` is a kernel of its own that reads its array operands from
// buffers (convolution, reduce-window, select-and-scatter).
bool ReadsMaterializedOperands(const HloInstruction& instr);

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_SERVICE_FUSION_PLAN_H_
