#ifndef XLA_LITE_HLO_HLO_EVALUATOR_H_
#define XLA_LITE_HLO_HLO_EVALUATOR_H_

#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
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

}  // namespace xla_lite

#endif  // XLA_LITE_HLO_HLO_EVALUATOR_H_
