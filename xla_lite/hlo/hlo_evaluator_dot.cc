#include <algorithm>
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "xla_lite/hlo/hlo_evaluator_internal.h"

namespace xla_lite::evaluator_internal {
std::vector<int64_t> RowMajorStrides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (int64_t d = static_cast<int64_t>(dims.size()) - 2; d >= 0; --d) {
    strides[d] = strides[d + 1] * dims[d + 1];
  }
  return strides;
}

namespace {

// The dimensions of a `rank`-dimensional operand that are neither batch nor
// contracting, ascending: they appear in the result in this order.
std::vector<int64_t> FreeDimensions(int64_t rank,
                                    const std::vector<int64_t>& batch,
                                    const std::vector<int64_t>& contracting) {
  std::vector<int64_t> free;
  for (int64_t d = 0; d < rank; ++d) {
    if (std::find(batch.begin(), batch.end(), d) == batch.end() &&
        std::find(contracting.begin(), contracting.end(), d) ==
            contracting.end()) {
      free.push_back(d);
    }
  }
  return free;
}

// Where one operand's elements are, for the output and contraction indices.
struct OperandView {
  std::vector<int64_t> strides;
  std::vector<int64_t> batch, free, contracting;

  int64_t Base(const std::vector<int64_t>& out_index, int64_t free_start) const {
    int64_t offset = 0;
    for (size_t k = 0; k < batch.size(); ++k) {
      offset += out_index[k] * strides[batch[k]];
    }
    for (size_t k = 0; k < free.size(); ++k) {
      offset += out_index[free_start + k] * strides[free[k]];
    }
    return offset;
  }
  int64_t Contracting(const std::vector<int64_t>& index) const {
    int64_t offset = 0;
    for (size_t k = 0; k < contracting.size(); ++k) {
      offset += index[k] * strides[contracting[k]];
    }
    return offset;
  }
};

}  // namespace

absl::StatusOr<Literal> EvaluateDot(const HloInstruction& instr,
                                    const Literal& lhs, const Literal& rhs) {
  const DotDimensionNumbers& dnums = instr.dot_dimension_numbers();
  const Shape& lhs_shape = lhs.shape();
  OperandView l{RowMajorStrides(lhs_shape.dimensions()),
                dnums.lhs_batch_dimensions,
                FreeDimensions(lhs_shape.rank(), dnums.lhs_batch_dimensions,
                               dnums.lhs_contracting_dimensions),
                dnums.lhs_contracting_dimensions};
  OperandView r{RowMajorStrides(rhs.shape().dimensions()),
                dnums.rhs_batch_dimensions,
                FreeDimensions(rhs.shape().rank(), dnums.rhs_batch_dimensions,
                               dnums.rhs_contracting_dimensions),
                dnums.rhs_contracting_dimensions};
  std::vector<int64_t> contracting_sizes;
  for (int64_t d : l.contracting) {
    contracting_sizes.push_back(lhs_shape.dimensions(d));
  }
  int64_t contracting_count = 1;
  for (int64_t size : contracting_sizes) contracting_count *= size;

  // Offsets of every contraction step, computed once for all outputs.
  std::vector<int64_t> lhs_steps(contracting_count), rhs_steps(contracting_count);
  for (int64_t c = 0; c < contracting_count; ++c) {
    std::vector<int64_t> index = MultiIndex(contracting_sizes, c);
    lhs_steps[c] = l.Contracting(index);
    rhs_steps[c] = r.Contracting(index);
  }
  const int64_t lhs_free_start = l.batch.size();
  const int64_t rhs_free_start = l.batch.size() + l.free.size();
  const bool floating =
      primitive_util::IsFloatingPointType(instr.shape().element_type());
  std::vector<double> lhs_values, rhs_values;
  if (floating) {
    for (int64_t i = 0; i < lhs.element_count(); ++i) {
      lhs_values.push_back(lhs.GetAsDouble(i));
    }
    for (int64_t i = 0; i < rhs.element_count(); ++i) {
      rhs_values.push_back(rhs.GetAsDouble(i));
    }
  }
  Literal out(instr.shape());
  for (int64_t o = 0; o < out.element_count(); ++o) {
    std::vector<int64_t> out_index = MultiIndex(out.shape().dimensions(), o);
    const int64_t lhs_base = l.Base(out_index, lhs_free_start);
    const int64_t rhs_base = r.Base(out_index, rhs_free_start);
    double float_sum = 0;
    int64_t int_sum = 0;
    for (int64_t c = 0; c < contracting_count; ++c) {
      const int64_t li = lhs_base + lhs_steps[c];
      const int64_t ri = rhs_base + rhs_steps[c];
      if (floating) {
        float_sum += lhs_values[li] * rhs_values[ri];
      } else {
        // Through uint64 so that overflow wraps instead of being undefined.
        int_sum = static_cast<int64_t>(
            static_cast<uint64_t>(int_sum) +
            static_cast<uint64_t>(lhs.GetAsInt64(li)) *
                static_cast<uint64_t>(rhs.GetAsInt64(ri)));
      }
    }
    if (floating) {
      out.SetFromDouble(o, float_sum);
    } else {
      out.SetFromInt64(o, int_sum);
    }
  }
  return out;
}

}  // namespace xla_lite::evaluator_internal
