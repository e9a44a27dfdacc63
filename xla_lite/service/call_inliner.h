#ifndef XLA_LITE_SERVICE_CALL_INLINER_H_
#define XLA_LITE_SERVICE_CALL_INLINER_H_

#include "absl/status/status.h"
#include "xla_lite/hlo/hlo_module.h"

namespace xla_lite {

// Replaces every kCall (and kFusion, which calls its fused computation the
// same way) in the entry computation by a copy of the callee's instructions
// over the call's operands, until none is left. A callee that returns a
// tuple leaves a kTuple behind; the simplifier resolves the
// get-tuple-elements of it. Computations no longer called are removed.
absl::Status InlineCalls(HloModule* module);

}  // namespace xla_lite

#endif  // XLA_LITE_SERVICE_CALL_INLINER_H_
