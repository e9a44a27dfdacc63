#ifndef XLA_LITE_SERVICE_ELEMENTAL_LOWERING_INTERNAL_H_
#define XLA_LITE_SERVICE_ELEMENTAL_LOWERING_INTERNAL_H_

// The lowering that elemental_lowering.cc (elementwise ops, index
// remapping, loop and reduce kernels) and elemental_lowering_indexing.cc
// (gather, scatter, concatenate, pad) share. Private to the service.

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "xla_lite/hlo/hlo_instruction.h"
#include "xla_lite/service/elemental_lowering.h"
#include "xla_lite/service/elemental_ops.h"
#include "xla_lite/service/kernel_program.h"

namespace xla_lite::gpu::elemental_internal {

// Gather's and scatter's dimension numbers in common terms: `instr`'s
// window dimensions (offset_dims / update_window_dims) hold the operand's
// window_operand_dims; its other dimensions are batch dimensions, one per
// dimension of the start indices other than index_vector_dim.
struct IndexingDims {
  const HloInstruction* indices = nullptr;
  int64_t index_vector_dim = 0;
  std::vector<int64_t> to_operand;
  std::vector<int64_t> operand_batching_dims;
  std::vector<int64_t> indices_batching_dims;
  std::vector<int64_t> window_dims;
  std::vector<int64_t> window_operand_dims;
  std::vector<int64_t> operand_dims;
  std::vector<int64_t> max_start;  // Per operand dimension.
};

// Lowers instructions at index values into one program, sharing what is
// computed twice at the same index.
class Lowering {
 public:
  Lowering(KernelProgram* program, const IsMaterializedFn& is_materialized)
      : program_(program), is_materialized_(is_materialized) {}

  // The value of `instr` at `index` (an index op over instr's shape). The
  // root of a kernel is computed even though it is materialized.
  absl::StatusOr<int> Lower(const HloInstruction* instr, int index,
                            bool is_root = false);

  int IndexOp(ExprKind kind) {
    ExprOp op;
    op.kind = kind;
    return program_->Add(std::move(op));
  }
  int Remap(int index, IndexRemap remap) {
    if (remap.IsIdentity()) return index;
    ExprOp op;
    op.kind = ExprKind::kIndexRemap;
    op.operands = {index};
    op.remap = std::move(remap);
    return program_->Add(std::move(op));
  }
  int Remap(std::vector<int> indices, IndexRemap remap) {
    ExprOp op;
    op.kind = ExprKind::kIndexRemap;
    op.operands = std::move(indices);
    op.remap = std::move(remap);
    return program_->Add(std::move(op));
  }

  std::vector<const HloInstruction*> TakeInputs() { return std::move(inputs_); }

  // What a gather's output element, or a scatter's update element, at
  // `index` (over `instr`'s shape) reaches: the operand index without the
  // start indices (`static_index`) and the loaded starts, one per entry of
  // `to_operand`.
  struct StartIndexing {
    int static_index = -1;
    std::vector<int> starts;
    std::vector<DynamicTerm> terms;
  };
  absl::StatusOr<StartIndexing> LowerStartIndexing(
      const HloInstruction* instr, const IndexingDims& dims, int index);
  int DynamicOp(ExprKind kind, std::vector<int> operands,
                std::vector<DynamicTerm> terms) {
    ExprOp op;
    op.kind = kind;
    op.type = kind == ExprKind::kDynamicInBounds ? PrimitiveType::PRED
                                                  : PrimitiveType::F32;
    op.operands = std::move(operands);
    op.dynamic = std::move(terms);
    return program_->Add(std::move(op));
  }

  // Roots of a multi-output kernel, whose element index is `index`.
  void SetRoots(absl::Span<const HloInstruction* const> roots, int index) {
    roots_.insert(roots.begin(), roots.end());
    root_index_ = index;
  }

  // `reduce`, read at `index`, is the op `value` (a fused reduction).
  void SetReducedValue(const HloInstruction* reduce, int index, int value) {
    reduction_ = reduce;
    reduced_index_ = index;
    reduced_value_ = value;
  }

 private:
  // One value being lowered. Lower walks an explicit stack of these, not
  // the C++ stack: a chain of 20,000 elementwise ops is a valid program.
  struct Frame {
    const HloInstruction* instr;
    int index;
    bool is_root;
    const ElementalOp* row = nullptr;  // null: redirected to its root self
    std::vector<int> values;           // of the operands lowered so far
  };
  struct Child {
    const HloInstruction* instr;
    int index;
    bool is_root = false;
  };

  // The value when no operand needs lowering (buffers, memo hits, ...).
  absl::StatusOr<std::optional<int>> Resolve(Frame& frame);
  // The next operand `frame` needs, or nullopt once it has them all.
  absl::StatusOr<std::optional<Child>> NextChild(const Frame& frame);
  absl::StatusOr<int> Finish(const Frame& frame);
  absl::StatusOr<std::optional<int>> LowerLeaf(const HloInstruction* instr,
                                               const ElementalOp& row,
                                               int index);
  absl::StatusOr<Child> IndexRemapChild(const HloInstruction* instr,
                                        int index);
  absl::StatusOr<int> LowerElementwise(const HloInstruction* instr,
                                       const ElementalOp& row,
                                       std::vector<int> operands);
  absl::StatusOr<int> LowerClamp(const HloInstruction& clamp,
                                 const std::vector<int>& operands);
  // gather, concatenate and pad: leaves of the walk that lower their own
  // operands (elemental_lowering_indexing.cc).
  absl::StatusOr<int> LowerGather(const HloInstruction* gather, int index);
  absl::StatusOr<int> LowerConcatenate(const HloInstruction* concat,
                                       int index);
  absl::StatusOr<int> LowerPad(const HloInstruction* pad, int index);
  int Select(PrimitiveType type, int predicate, int on_true, int on_false) {
    ExprOp select;
    select.kind = ExprKind::kSelect;
    select.type = type;
    select.operands = {predicate, on_true, on_false};
    return program_->Add(std::move(select));
  }
  // Whether coordinate `dim` of `index` (over `dims`) is at least `lo`.
  int AtLeast(int index, const std::vector<int64_t>& dims, int64_t dim,
              int64_t lo);
  int Load(const HloInstruction* instr, int index);
  // Index into `operand` for element `index` of `instr` (rank-0 operands of
  // elementwise ops are implicitly broadcast).
  int OperandIndex(const HloInstruction* instr, const HloInstruction* operand,
                   int index);

  KernelProgram* program_;
  const IsMaterializedFn& is_materialized_;
  absl::flat_hash_map<std::pair<const HloInstruction*, int>, int> memo_;
  absl::flat_hash_map<const HloInstruction*, int> input_of_;
  std::vector<const HloInstruction*> inputs_;
  absl::flat_hash_set<const HloInstruction*> roots_;
  int root_index_ = -1;
  const HloInstruction* reduction_ = nullptr;
  int reduced_index_ = -1;
  int reduced_value_ = -1;
};

// A remap from `from`'s shape to `to`'s with every target dimension 0.
IndexRemap SingleSource(const HloInstruction* from, const HloInstruction* to);

}  // namespace xla_lite::gpu::elemental_internal

#endif  // XLA_LITE_SERVICE_ELEMENTAL_LOWERING_INTERNAL_H_
