#ifndef XLA_LITE_SERVICE_ELEMENTAL_LOWERING_H_
#define XLA_LITE_SERVICE_ELEMENTAL_LOWERING_H_

#include <functional>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "xla_lite/hlo/hlo_instruction.h"
#include "xla_lite/service/kernel_program.h"

namespace xla_lite::gpu {

// Whether an instruction has a buffer of its own (so a kernel loads it)
// rather than being computed inside the kernels that use it.
using IsMaterializedFn = std::function<bool(const HloInstruction*)>;

// A fusion lowered to a program, with the materialized values it reads:
// program input i is inputs[i].
struct LoweredKernel {
  std::unique_ptr<KernelProgram> program;
  std::vector<const HloInstruction*> inputs;
};

// One loop kernel computing each of `roots` (materialized values, each
// stored whole) from the values they use, fusing everything that is not
// materialized. A root that another root reads at its own element is used
// from registers (multi-output fusion); FAILED_PRECONDITION when a root
// reads another at other elements, which threads would race on.
absl::StatusOr<LoweredKernel> LowerLoopFusion(
    absl::Span<const HloInstruction* const> roots,
    const IsMaterializedFn& is_materialized);

// A reduce kernel for `reduce`, with its operand's unmaterialized producers
// fused into the per-element value. With an `epilogue` (a materialized
// elementwise value with as many elements as the reduction, which reads
// it only at its own element), the kernel stores the epilogue instead and
// the reduction never leaves registers; FAILED_PRECONDITION when the
// epilogue reads the reduction at other elements.
absl::StatusOr<LoweredKernel> LowerReduction(
    const HloInstruction* reduce, const IsMaterializedFn& is_materialized,
    const HloInstruction* epilogue = nullptr);

// A scatter kernel for `scatter`: one thread per update element, the
// updates' unmaterialized producers fused in, combining into an output
// that already holds the operand (see KernelProgram::Kind::kScatter).
// Program output 0 is the scatter's buffer.
absl::StatusOr<LoweredKernel> LowerScatter(
    const HloInstruction* scatter, const IsMaterializedFn& is_materialized);

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_SERVICE_ELEMENTAL_LOWERING_H_
