#ifndef XLA_LITE_SERVICE_WHILE_LOOP_ANALYSIS_H_
#define XLA_LITE_SERVICE_WHILE_LOOP_ANALYSIS_H_

#include <cstdint>
#include <optional>

#include "xla_lite/hlo/hlo_instruction.h"

namespace xla_lite {

// The number of times `while_loop`'s body runs, when the HLO says it
// without running anything: the counted loop that `lax.fori_loop` with
// constant bounds and `lax.scan` lower to. The loop state is a tuple built
// by a `tuple` whose element k is an integer constant c; the condition is
// `get-tuple-element(state, k) < N` (or `N > ...`) with N an integer
// constant; and the body's root tuple sets element k to that element plus
// the constant 1. The count is then max(N - c, 0). nullopt for anything
// else (a bound from an input, another step, a state built elsewhere), so
// callers fall back to running the condition.
std::optional<int64_t> KnownTripCount(const HloInstruction& while_loop);

}  // namespace xla_lite

#endif  // XLA_LITE_SERVICE_WHILE_LOOP_ANALYSIS_H_
