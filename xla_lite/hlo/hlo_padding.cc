#include "xla_lite/hlo/hlo_padding.h"

#include <algorithm>
#include <cstdlib>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace xla_lite {

absl::StatusOr<std::vector<PaddingDimension>> ParsePadding(
    absl::string_view text) {
  std::vector<PaddingDimension> padding;
  if (text.empty()) return padding;  // A rank-0 operand.
  for (absl::string_view dim : absl::StrSplit(text, 'x')) {
    std::vector<absl::string_view> parts = absl::StrSplit(dim, '_');
    std::vector<int64_t> values;
    for (absl::string_view part : parts) {
      int64_t value;
      if (!absl::SimpleAtoi(part, &value)) {
        values.clear();
        break;
      }
      values.push_back(value);
    }
    if (values.size() != 2 && values.size() != 3) {
      return absl::InvalidArgumentError(absl::StrCat(
          "expected padding low_high or low_high_interior per dimension, "
          "joined by 'x', got '",
          dim, "' in '", text, "'"));
    }
    for (int64_t value : values) {
      if (value > kMaxPaddingAmount || value < -kMaxPaddingAmount) {
        return absl::InvalidArgumentError(
            absl::StrCat("padding amount ", value, " in '", text,
                         "' is outside [-", kMaxPaddingAmount, ", ",
                         kMaxPaddingAmount, "]"));
      }
    }
    padding.push_back(
        {values[0], values[1], values.size() == 3 ? values[2] : 0});
  }
  return padding;
}

std::string PaddingString(const std::vector<PaddingDimension>& padding) {
  std::vector<std::string> dims;
  for (const PaddingDimension& p : padding) {
    dims.push_back(p.interior == 0
                       ? absl::StrCat(p.edge_low, "_", p.edge_high)
                       : absl::StrCat(p.edge_low, "_", p.edge_high, "_",
                                      p.interior));
  }
  return absl::StrJoin(dims, "x");
}

int64_t PaddedSize(int64_t size, const PaddingDimension& padding) {
  return padding.edge_low + padding.edge_high + size +
         std::max<int64_t>(size - 1, 0) * padding.interior;
}

}  // namespace xla_lite
