// Shape inference for pad, as XLA's: each dimension grows by its edges
// (negative ones cut elements away) and by `interior` elements between
// neighbours.

#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "xla_lite/hlo/hlo_padding.h"
#include "xla_lite/hlo/hlo_shape_checker.h"

namespace xla_lite::verifier_internal {

absl::Status CheckPad(const Checker& c) {
  RETURN_IF_ERROR(c.OperandCount(2));
  RETURN_IF_ERROR(c.AllArrays());
  const Shape& operand = c.operand_shape(0);
  RETURN_IF_ERROR(c.SameAs(1, Shape::Array(operand.element_type(), {}),
                           "padding value"));
  const std::vector<PaddingDimension>& padding = c.instr().padding();
  if (static_cast<int64_t>(padding.size()) != operand.rank()) {
    return c.Error(absl::StrCat("expected padding for ", operand.rank(),
                                " dimensions, got ", padding.size(), " (",
                                PaddingString(padding), ")"));
  }
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < operand.rank(); ++d) {
    if (padding[d].interior < 0) {
      return c.Error(absl::StrCat("expected interior padding >= 0 in dimension ",
                                  d, ", got ", padding[d].interior));
    }
    const int64_t size = PaddedSize(operand.dimensions(d), padding[d]);
    if (size < 0) {
      return c.Error(absl::StrCat(
          "padding ", PaddingString({padding[d]}), " of dimension ", d,
          " (size ", operand.dimensions(d), ") leaves a negative size ", size));
    }
    dims.push_back(size);
  }
  return c.Result(Shape::Array(operand.element_type(), dims));
}

}  // namespace xla_lite::verifier_internal
