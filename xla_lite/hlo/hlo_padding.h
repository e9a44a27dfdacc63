#ifndef XLA_LITE_HLO_HLO_PADDING_H_
#define XLA_LITE_HLO_HLO_PADDING_H_

// pad's padding attribute as HLO text writes it: per dimension
// "low_high" or "low_high_interior", joined by 'x' ("0_0x1_2_1").

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xla_lite/hlo/hlo_instruction.h"

namespace xla_lite {

// Edge and interior amounts beyond this are refused: shape inference adds
// and multiplies them with dimension sizes in int64.
inline constexpr int64_t kMaxPaddingAmount = int64_t{1} << 40;

// INVALID_ARGUMENT saying what is wrong with `text`, or the dimensions.
absl::StatusOr<std::vector<PaddingDimension>> ParsePadding(
    absl::string_view text);
std::string PaddingString(const std::vector<PaddingDimension>& padding);

// The size of a dimension of `size` elements after `padding`: may be
// negative (the verifier refuses it).
int64_t PaddedSize(int64_t size, const PaddingDimension& padding);

}  // namespace xla_lite

#endif  // XLA_LITE_HLO_HLO_PADDING_H_
