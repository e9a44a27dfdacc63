// Data movement that selects or computes indices: gather and scatter
// (start indices loaded from their operand), concatenate and pad
// (coordinate predicates over clamped operand reads).

#include <algorithm>
#include <utility>
#include <vector>

#include "base/status_macros.h"
#include "xla_lite/service/elemental_lowering.h"
#include "xla_lite/service/elemental_lowering_internal.h"
#include "xla_lite/service/elemental_ops.h"

namespace xla_lite::gpu {
namespace elemental_internal {

absl::StatusOr<Lowering::StartIndexing> Lowering::LowerStartIndexing(
    const HloInstruction* instr, const IndexingDims& dims, int index) {
  const std::vector<int64_t>& instr_dims = instr->shape().dimensions();
  std::vector<int64_t> batch_dims;
  for (int64_t i = 0; i < instr_dims.size(); ++i) {
    if (std::find(dims.window_dims.begin(), dims.window_dims.end(), i) ==
        dims.window_dims.end()) {
      batch_dims.push_back(i);
    }
  }
  // A dimension of the indices, less index_vector_dim, is a batch dimension.
  auto batch_dim_of = [&](int64_t indices_dim) {
    return batch_dims.at(indices_dim < dims.index_vector_dim ? indices_dim
                                                             : indices_dim - 1);
  };
  StartIndexing result;
  IndexRemap base;
  base.sources = {instr_dims};
  base.target = dims.operand_dims;
  base.dims.resize(dims.operand_dims.size());
  for (int64_t k = 0; k < dims.window_dims.size(); ++k) {
    base.dims[dims.window_operand_dims[k]] = {0, dims.window_dims[k], 1, 0};
  }
  for (int64_t i = 0; i < dims.operand_batching_dims.size(); ++i) {
    base.dims[dims.operand_batching_dims[i]] = {
        0, batch_dim_of(dims.indices_batching_dims[i]), 1, 0};
  }
  result.static_index = Remap(index, std::move(base));
  const std::vector<int64_t>& indices_dims = dims.indices->shape().dimensions();
  const std::vector<int64_t> strides = RowMajorStrides(dims.operand_dims);
  for (int64_t k = 0; k < dims.to_operand.size(); ++k) {
    IndexRemap at;
    at.sources = {instr_dims};
    at.target = indices_dims;
    at.dims.resize(indices_dims.size());
    for (int64_t j = 0; j < indices_dims.size(); ++j) {
      at.dims[j] = j == dims.index_vector_dim
                       ? IndexRemap::Dim{-1, 0, 1, k}
                       : IndexRemap::Dim{0, batch_dim_of(j), 1, 0};
    }
    ASSIGN_OR_RETURN(int start, Lower(dims.indices, Remap(index, std::move(at))));
    result.starts.push_back(start);
    const int64_t d = dims.to_operand[k];
    result.terms.push_back({strides[d], dims.max_start[d]});
  }
  return result;
}

absl::StatusOr<int> Lowering::LowerGather(const HloInstruction* gather,
                                          int index) {
  const GatherDimensionNumbers& d = gather->gather_dimension_numbers();
  const HloInstruction* operand = gather->operand(0);
  IndexingDims dims;
  dims.indices = gather->operand(1);
  dims.index_vector_dim = d.index_vector_dim;
  dims.to_operand = d.start_index_map;
  dims.operand_batching_dims = d.operand_batching_dims;
  dims.indices_batching_dims = d.start_indices_batching_dims;
  dims.window_dims = d.offset_dims;
  dims.operand_dims = operand->shape().dimensions();
  dims.window_operand_dims =
      GatherOffsetOperandDims(d, dims.operand_dims.size());
  for (int64_t t = 0; t < dims.operand_dims.size(); ++t) {
    dims.max_start.push_back(dims.operand_dims[t] -
                             gather->gather_slice_sizes().at(t));
  }
  ASSIGN_OR_RETURN(StartIndexing indexing,
                   LowerStartIndexing(gather, dims, index));
  std::vector<int> operands = {indexing.static_index};
  operands.insert(operands.end(), indexing.starts.begin(),
                  indexing.starts.end());
  int at = indexing.starts.empty()
               ? indexing.static_index
               : DynamicOp(ExprKind::kDynamicIndex, std::move(operands),
                           std::move(indexing.terms));
  return Lower(operand, at);
}

int Lowering::AtLeast(int index, const std::vector<int64_t>& dims, int64_t dim,
                      int64_t lo) {
  ExprOp op;
  op.kind = ExprKind::kIndexInBounds;
  op.type = PrimitiveType::PRED;
  op.operands = {index};
  op.bounds.dims = dims;
  op.bounds.bounds = {{dim, lo, dims[dim], 1}};
  return program_->Add(std::move(op));
}

absl::StatusOr<int> Lowering::LowerConcatenate(const HloInstruction* concat,
                                               int index) {
  const int64_t dim = concat->dimensions(0);
  const std::vector<int64_t>& dims = concat->shape().dimensions();
  int value = -1;
  int64_t start = 0;
  for (const HloInstruction* operand : concat->operands()) {
    const int64_t size = operand->shape().dimensions(dim);
    if (size == 0) continue;
    IndexRemap remap = SingleSource(concat, operand);
    for (int64_t t = 0; t < dims.size(); ++t) remap.dims[t] = {0, t, 1, 0};
    // Clamped: lanes where another operand is selected still read in bounds.
    remap.dims[dim] = {0, dim, 1, -start, 1, size};
    ASSIGN_OR_RETURN(int v, Lower(operand, Remap(index, std::move(remap))));
    value = value < 0 ? v
                      : Select(concat->shape().element_type(),
                               AtLeast(index, dims, dim, start), v, value);
    start += size;
  }
  if (value < 0) {  // Every operand is empty, and so is the result.
    ExprOp zero;
    zero.kind = ExprKind::kConstant;
    zero.type = concat->shape().element_type();
    value = program_->Add(std::move(zero));
  }
  return value;
}

// An output element is the operand's when each coordinate lies within the
// operand's span and on its interior stride; the operand is read at the
// coordinate clamped into it either way, so no lane reads out of bounds.
absl::StatusOr<int> Lowering::LowerPad(const HloInstruction* pad, int index) {
  const HloInstruction* operand = pad->operand(0);
  const HloInstruction* padding_value = pad->operand(1);
  ASSIGN_OR_RETURN(int fill, Lower(padding_value,
                                   Remap(index, SingleSource(pad, padding_value))));
  if (operand->shape().ElementCount() == 0) return fill;
  const std::vector<int64_t>& dims = pad->shape().dimensions();
  const std::vector<int64_t>& operand_dims = operand->shape().dimensions();
  IndexRemap remap = SingleSource(pad, operand);
  ExprOp inside;
  inside.kind = ExprKind::kIndexInBounds;
  inside.type = PrimitiveType::PRED;
  inside.operands = {index};
  inside.bounds.dims = dims;
  for (int64_t t = 0; t < dims.size(); ++t) {
    const PaddingDimension& p = pad->padding().at(t);
    const int64_t stride = p.interior + 1;
    remap.dims[t] = {0, t, 1, -p.edge_low, stride, operand_dims[t]};
    inside.bounds.bounds.push_back(
        {t, p.edge_low, p.edge_low + (operand_dims[t] - 1) * stride + 1,
         stride});
  }
  ASSIGN_OR_RETURN(int value, Lower(operand, Remap(index, std::move(remap))));
  return Select(pad->shape().element_type(),
                program_->Add(std::move(inside)), value, fill);
}

}  // namespace elemental_internal

using elemental_internal::IndexingDims;
using elemental_internal::Lowering;

absl::StatusOr<LoweredKernel> LowerScatter(
    const HloInstruction* scatter, const IsMaterializedFn& is_materialized) {
  ASSIGN_OR_RETURN(ScatterCombiner combiner, ScatterCombinerOf(*scatter));
  const ScatterDimensionNumbers& d = scatter->scatter_dimension_numbers();
  const HloInstruction* updates = scatter->operand(2);
  IndexingDims dims;
  dims.indices = scatter->operand(1);
  dims.index_vector_dim = d.index_vector_dim;
  dims.to_operand = d.scatter_dims_to_operand_dims;
  dims.operand_batching_dims = d.input_batching_dims;
  dims.indices_batching_dims = d.scatter_indices_batching_dims;
  dims.window_dims = d.update_window_dims;
  dims.operand_dims = scatter->shape().dimensions();
  dims.window_operand_dims =
      ScatterWindowOperandDims(d, dims.operand_dims.size());
  std::vector<int64_t> extent(dims.operand_dims.size(), 1);
  for (int64_t k = 0; k < dims.window_dims.size(); ++k) {
    extent[dims.window_operand_dims[k]] =
        updates->shape().dimensions(dims.window_dims[k]);
  }
  for (int64_t t = 0; t < dims.operand_dims.size(); ++t) {
    dims.max_start.push_back(dims.operand_dims[t] - extent[t]);
  }
  auto program = std::make_unique<KernelProgram>(KernelProgram::Kind::kScatter);
  Lowering lowering(program.get(), is_materialized);
  const int index = lowering.IndexOp(ExprKind::kIndex);
  ASSIGN_OR_RETURN(Lowering::StartIndexing indexing,
                   lowering.LowerStartIndexing(updates, dims, index));
  ASSIGN_OR_RETURN(int value, lowering.Lower(updates, index));
  std::vector<int> operands = {indexing.static_index};
  operands.insert(operands.end(), indexing.starts.begin(),
                  indexing.starts.end());
  // Clamped like a gather's, so that a dropped update computes an index in
  // bounds too.
  const int target =
      indexing.starts.empty()
          ? indexing.static_index
          : lowering.DynamicOp(ExprKind::kDynamicIndex, std::move(operands),
                               indexing.terms);
  const int valid = lowering.DynamicOp(ExprKind::kDynamicInBounds,
                                       indexing.starts, indexing.terms);
  program->AddOutput(
      {scatter->shape().element_type(), scatter->shape().ElementCount()},
      value);
  program->SetScatter(target, valid, combiner.opcode, combiner.function,
                      updates->shape().ElementCount());
  return LoweredKernel{std::move(program), lowering.TakeInputs()};
}

}  // namespace xla_lite::gpu
