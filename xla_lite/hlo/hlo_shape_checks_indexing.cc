// Shape inference for gather and scatter, following XLA's (batching
// dimensions included): every dimension list in range and without repeats,
// the window lists ascending, slices within the operand, batching pairs of
// equal size, and the result shape those imply.

#include <algorithm>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "xla_lite/hlo/hlo_shape_checker.h"

namespace xla_lite::verifier_internal {
namespace {

// What gather and scatter share, with XLA's names for each op: how an index
// vector of the indices array becomes an operand start, and which operand
// dimensions a slice (window) leaves out.
struct IndexNames {
  const char* window;
  const char* collapsed;
  const char* to_operand;
  const char* operand_batching;
  const char* indices_batching;
};
constexpr IndexNames kGatherNames = {"offset_dims", "collapsed_slice_dims",
                                     "start_index_map", "operand_batching_dims",
                                     "start_indices_batching_dims"};
constexpr IndexNames kScatterNames = {
    "update_window_dims", "inserted_window_dims",
    "scatter_dims_to_operand_dims", "input_batching_dims",
    "scatter_indices_batching_dims"};

struct IndexSide {
  const std::vector<int64_t>& window;
  const std::vector<int64_t>& collapsed;
  const std::vector<int64_t>& to_operand;
  const std::vector<int64_t>& operand_batching;
  const std::vector<int64_t>& indices_batching;
  int64_t index_vector_dim;
  const IndexNames& names;
};

bool Contains(const std::vector<int64_t>& dims, int64_t d) {
  return std::find(dims.begin(), dims.end(), d) != dims.end();
}

// Checks the operand dimension lists of `side` and the indices (operand
// 1) against them; returns the sizes of the indices' batch dimensions (all
// but index_vector_dim).
absl::StatusOr<std::vector<int64_t>> CheckIndices(const Checker& c,
                                                  const IndexSide& side) {
  const Shape& operand = c.operand_shape(0);
  const Shape& indices = c.operand_shape(1);
  RETURN_IF_ERROR(c.SortedDimensionList(side.collapsed, operand.rank(),
                                        side.names.collapsed));
  RETURN_IF_ERROR(c.SortedDimensionList(side.operand_batching, operand.rank(),
                                        side.names.operand_batching));
  RETURN_IF_ERROR(c.Disjoint(side.collapsed, side.names.collapsed,
                             side.operand_batching,
                             side.names.operand_batching));
  if (!primitive_util::IsIntegralType(indices.element_type())) {
    return c.Error(
        absl::StrCat("expected integer indices, got ", indices.ToString()));
  }
  const int64_t ivd = side.index_vector_dim;
  if (ivd < 0 || ivd > indices.rank()) {
    return c.Error(absl::StrCat("expected index_vector_dim in [0, ",
                                indices.rank(), "] (the indices ",
                                indices.ToString(), "), got ", ivd));
  }
  const int64_t vector_size =
      ivd < indices.rank() ? indices.dimensions(ivd) : 1;
  if (static_cast<int64_t>(side.to_operand.size()) != vector_size) {
    return c.Error(absl::StrCat(
        "expected ", side.names.to_operand, " ", Dims(side.to_operand),
        " to have one entry per index vector element (", vector_size,
        ", dimension ", ivd, " of ", indices.ToString(), ")"));
  }
  RETURN_IF_ERROR(
      c.DimensionList(side.to_operand, operand.rank(), side.names.to_operand));
  RETURN_IF_ERROR(c.Disjoint(side.to_operand, side.names.to_operand,
                             side.operand_batching,
                             side.names.operand_batching));
  RETURN_IF_ERROR(c.DimensionList(side.indices_batching, indices.rank(),
                                  side.names.indices_batching));
  if (Contains(side.indices_batching, ivd)) {
    return c.Error(absl::StrCat("expected ", side.names.indices_batching, " ",
                                Dims(side.indices_batching),
                                " not to contain index_vector_dim ", ivd));
  }
  if (side.indices_batching.size() != side.operand_batching.size()) {
    return c.Error(absl::StrCat(
        "expected as many ", side.names.indices_batching, " ",
        Dims(side.indices_batching), " as ", side.names.operand_batching, " ",
        Dims(side.operand_batching)));
  }
  for (size_t i = 0; i < side.operand_batching.size(); ++i) {
    const int64_t o = side.operand_batching[i], x = side.indices_batching[i];
    if (operand.dimensions(o) != indices.dimensions(x)) {
      return c.Error(absl::StrCat("expected operand batching dimension ", o,
                                  " and indices batching "
                                  "dimension ",
                                  x, " to have one size, got ",
                                  operand.ToString(), " and ",
                                  indices.ToString()));
    }
  }
  std::vector<int64_t> batch;
  for (int64_t d = 0; d < indices.rank(); ++d) {
    if (d != ivd) batch.push_back(indices.dimensions(d));
  }
  return batch;
}

// One window dimension per operand dimension the slice (window) spans.
absl::Status CheckWindowCount(const Checker& c, const IndexSide& side,
                              int64_t spanned) {
  if (static_cast<int64_t>(side.window.size()) == spanned) {
    return absl::OkStatus();
  }
  return c.Error(absl::StrCat(
      "expected ", spanned, " ", side.names.window, " (operand rank ",
      c.operand_shape(0).rank(), " less ", side.names.collapsed, " and ",
      side.names.operand_batching, "), got ", Dims(side.window)));
}

// slice_sizes: one per operand dimension, within it, and at most 1 where
// the output drops the dimension.
absl::Status CheckSliceSizes(const Checker& c,
                             const GatherDimensionNumbers& d) {
  const Shape& operand = c.operand_shape(0);
  const std::vector<int64_t>& sizes = c.instr().gather_slice_sizes();
  if (static_cast<int64_t>(sizes.size()) != operand.rank()) {
    return c.Error(absl::StrCat("expected ", operand.rank(),
                                " slice_sizes (one per dimension of ",
                                operand.ToString(), "), got ", Dims(sizes)));
  }
  for (int64_t i = 0; i < operand.rank(); ++i) {
    if (sizes[i] < 0 || sizes[i] > operand.dimensions(i)) {
      return c.Error(absl::StrCat("expected slice_sizes ", Dims(sizes),
                                  " within the operand ", operand.ToString(),
                                  ", got ", sizes[i], " in dimension ", i));
    }
    if ((Contains(d.collapsed_slice_dims, i) ||
         Contains(d.operand_batching_dims, i)) &&
        sizes[i] > 1) {
      return c.Error(absl::StrCat(
          "expected slice size at most 1 in collapsed or batching dimension ",
          i, ", got ", Dims(sizes)));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckGather(const Checker& c) {
  RETURN_IF_ERROR(c.OperandCount(2));
  RETURN_IF_ERROR(c.AllArrays());
  const GatherDimensionNumbers& d = c.instr().gather_dimension_numbers();
  const Shape& operand = c.operand_shape(0);
  const IndexSide side{d.offset_dims,
                       d.collapsed_slice_dims,
                       d.start_index_map,
                       d.operand_batching_dims,
                       d.start_indices_batching_dims,
                       d.index_vector_dim,
                       kGatherNames};
  ASSIGN_OR_RETURN(std::vector<int64_t> batch, CheckIndices(c, side));
  RETURN_IF_ERROR(CheckSliceSizes(c, d));
  const std::vector<int64_t> window =
      GatherOffsetOperandDims(d, operand.rank());
  RETURN_IF_ERROR(CheckWindowCount(c, side, window.size()));
  const int64_t rank = window.size() + batch.size();
  RETURN_IF_ERROR(c.SortedDimensionList(d.offset_dims, rank, "offset_dims"));
  std::vector<int64_t> dims;
  for (int64_t i = 0, w = 0, b = 0; i < rank; ++i) {
    dims.push_back(Contains(d.offset_dims, i)
                       ? c.instr().gather_slice_sizes()[window[w++]]
                       : batch[b++]);
  }
  return c.Result(Shape::Array(operand.element_type(), dims));
}

absl::Status CheckScatter(const Checker& c) {
  const int64_t count = c.instr().operand_count();
  if (count > 3 && count % 2 == 1) {
    return c.Unimplemented(absl::StrCat(
        "variadic scatter (", count / 2,
        " operands and updates) is not supported; expected 3 operands"));
  }
  RETURN_IF_ERROR(c.OperandCount(3));
  RETURN_IF_ERROR(c.AllArrays());
  const ScatterDimensionNumbers& d = c.instr().scatter_dimension_numbers();
  const Shape& operand = c.operand_shape(0);
  const Shape& updates = c.operand_shape(2);
  if (updates.element_type() != operand.element_type()) {
    return c.Error(absl::StrCat("expected updates of the operand's type ",
                                operand.ToString(), ", got ",
                                updates.ToString()));
  }
  RETURN_IF_ERROR(c.SortedDimensionList(d.update_window_dims, updates.rank(),
                                        "update_window_dims"));
  const IndexSide side{d.update_window_dims,
                       d.inserted_window_dims,
                       d.scatter_dims_to_operand_dims,
                       d.input_batching_dims,
                       d.scatter_indices_batching_dims,
                       d.index_vector_dim,
                       kScatterNames};
  ASSIGN_OR_RETURN(std::vector<int64_t> batch, CheckIndices(c, side));
  const std::vector<int64_t> window =
      ScatterWindowOperandDims(d, operand.rank());
  RETURN_IF_ERROR(CheckWindowCount(c, side, window.size()));
  // updates' dimensions: the indices' batch dimensions, and windows at
  // most as large as the operand dimensions they span.
  const int64_t rank = window.size() + batch.size();
  if (updates.rank() != rank) {
    return c.Error(absl::StrCat(
        "expected updates of rank ", rank, " (", window.size(), " window and ",
        batch.size(), " scatter dimensions), got ", updates.ToString()));
  }
  std::vector<int64_t> largest;
  for (int64_t i = 0, w = 0, b = 0; i < rank; ++i) {
    largest.push_back(Contains(d.update_window_dims, i)
                          ? operand.dimensions(window[w++])
                          : batch[b++]);
  }
  bool fits = true;
  for (int64_t i = 0; fits && i < rank; ++i) {
    fits = Contains(d.update_window_dims, i)
               ? updates.dimensions(i) <= largest[i]
               : updates.dimensions(i) == largest[i];
  }
  if (!fits) {
    return c.Error(absl::StrCat(
        "expected updates with scatter dimensions as the indices' and ",
        "windows within the operand (at most ",
        Shape::Array(updates.element_type(), largest).ToString(), "), got ",
        updates.ToString()));
  }
  RETURN_IF_ERROR(
      c.ScalarBinaryComputation(c.instr().to_apply(), operand.element_type()));
  return c.Result(operand);
}

}  // namespace xla_lite::verifier_internal
