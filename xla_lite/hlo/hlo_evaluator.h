#ifndef XLA_LITE_HLO_HLO_EVALUATOR_H_
#define XLA_LITE_HLO_HLO_EVALUATOR_H_

#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "xla_lite/hlo/hlo_collective_groups.h"
#include "xla_lite/hlo/hlo_computation.h"
#include "xla_lite/hlo/hlo_module.h"
#include "xla_lite/hlo/literal.h"

namespace xla_lite {

// A straightforward interpreter: every instruction computed one element at
// a time in double precision (rounded to the element type after each op),
// in the most obvious way. It is the reference the compiler's results are
// tested against, so it shares no code with the compiler.
//
// The entry computation's result, flattened: a tuple root gives one literal
// per element (nested tuples flattened in order), an array root one.
// INVALID_ARGUMENT when the arguments' count or shapes disagree with the
// entry parameters; UNIMPLEMENTED naming an opcode it can't evaluate.
// The module must have passed VerifyHloModule: shapes and attributes are
// not checked again here. while runs its body while its condition holds;
// conditional runs branch !pred for a pred, else the indexed branch, an
// index out of range running the last branch, as XLA does.
struct EvaluatorOptions {
  // A while loop that has run this many iterations is stopped with
  // RESOURCE_EXHAUSTED naming it: a trip count read from an input (or a
  // condition that never turns false) must not hang the reference.
  int64_t max_loop_iterations = 1 << 20;
};

absl::StatusOr<std::vector<Literal>> EvaluateModule(
    const HloModule& module, absl::Span<const Literal> arguments,
    const EvaluatorOptions& options = EvaluatorOptions());

// A run of one program on several devices.
struct MultiDeviceEvaluation {
  DeviceTopology topology;
  // How long a device waits at a collective for the others.
  absl::Duration timeout = absl::Seconds(60);
};

// Evaluates `module` on every device of `run.topology` together, a thread
// per device; collectives combine the devices' values (all-reduce in
// group order, so every device of a group gets the same result).
// arguments[d] are device d's; the result is each device's flattened
// result. A device that fails stops the others (they return its error,
// the first one reported prefixed by its device); one that never reaches
// a collective makes the others fail with DEADLINE_EXCEEDED after
// `run.timeout`.
absl::StatusOr<std::vector<std::vector<Literal>>> EvaluateModuleOnDevices(
    const HloModule& module, absl::Span<const std::vector<Literal>> arguments,
    const MultiDeviceEvaluation& run);

}  // namespace xla_lite

#endif  // XLA_LITE_HLO_HLO_EVALUATOR_H_
