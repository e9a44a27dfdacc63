#ifndef XLA_LITE_SERVICE_COLLECTIVE_LOWERING_H_
#define XLA_LITE_SERVICE_COLLECTIVE_LOWERING_H_

#include "absl/status/statusor.h"
#include "xla_lite/hlo/hlo_instruction.h"
#include "xla_lite/runtime/collective_thunk.h"

namespace xla_lite::gpu {

// What a collective instruction (after the HLO passes: row-major values)
// becomes at run time. UnsupportedOpError for what the communicators do
// not do: a reduction other than add, maximum, minimum or multiply; an
// element type they do not carry; all-gather or reduce-scatter along a
// dimension whose pieces are not contiguous (a dimension before it of size
// above 1).
absl::StatusOr<CollectiveConfig> LowerCollective(const HloInstruction& instr);

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_SERVICE_COLLECTIVE_LOWERING_H_
