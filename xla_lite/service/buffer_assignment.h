#ifndef XLA_LITE_SERVICE_BUFFER_ASSIGNMENT_H_
#define XLA_LITE_SERVICE_BUFFER_ASSIGNMENT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "xla_lite/runtime/buffer_allocation.h"
#include "xla_lite/service/execution_plan.h"

namespace xla_lite::gpu {

class PlanOrdering;

// A value to place in the temp allocation: `size` bytes live from op
// `start` to op `end` (inclusive: written by `start`, last read by `end`),
// accessed by the ops `accesses` (empty: by `start` and `end` alone).
struct TempValue {
  int64_t size = 0;
  int64_t start = 0;
  int64_t end = 0;
  std::vector<int64_t> accesses;
};

struct TempPacking {
  std::vector<int64_t> offsets;  // Per value.
  int64_t size = 0;              // Of the whole allocation.
};

// Offsets of `values` in one allocation such that values whose live ranges
// overlap never share a byte. Values whose ranges are disjoint share,
// except that a value written by an op `ordering` protects takes the
// bytes of an earlier one only when every op that accesses the earlier
// one executes before that writer anyway (PlanOrdering says why; null:
// by live range alone). Largest values first, each at the smallest
// gap (aligned to `alignment`) between the values already placed that it
// conflicts with: best fit, so the big buffers of a step's forward and
// backward passes reuse each other's space.
TempPacking PackTemps(absl::Span<const TempValue> values,
                      const PlanOrdering* ordering = nullptr,
                      int64_t alignment = BufferAllocation::kDefaultAlignment);

// AssignBuffers packs a plan's temps with its PlanOrdering, protecting
// more ops while sharing still lengthens the longest path, unless that
// takes more than this many times the bytes of packing by live range
// alone: then by live range alone. Many equally long branches all lie on
// the longest path, and ordered they could share no bytes at all.
inline constexpr double kMaxOrderedTempGrowth = 2.0;

// Where every logical buffer of a plan lives: parameters in allocations
// 0..P-1 (the allocation index is the parameter number), then one
// allocation per constant, one per result that has its own, one temp
// allocation for everything else, packed by PackTemps over the plan's op
// order, and one for the gemm workspaces, side by side (kWorkspace).
// Results aliased to a parameter live in its allocation.
//
// Whiles and conditionals: each computation they run is assigned the same
// way into `nested`, with its parameter and result leaves bound to the
// caller's slices: a loop's condition and body read the state where the
// while's results live, and the body writes its results there, so the
// state is updated in place; a branch reads its operand's slices and
// writes the conditional's results. A condition's pred gets a small
// allocation of its own, and each computation its own temp allocation.
// A loop's initial state shares the state's slot when nothing else reads
// it (so the while copies nothing in), else the while copies it in.
struct BufferAssignment {
  // The whole program's, in the top-level assignment only.
  std::vector<BufferAllocation> allocations;
  std::vector<BufferAllocation::Slice> slices;  // Per logical buffer.
  std::vector<BufferAllocation::Index> output_allocations;  // Per result.
  // Per op: for a while or conditional, the assignment of each of its
  // computations (ControlFlowPlan::computations); empty for other ops.
  std::vector<std::vector<BufferAssignment>> nested;

  std::string ToString(const ExecutionPlan& plan) const;
};

// `parameter_sizes[p]` is entry parameter p's size in bytes.
absl::StatusOr<BufferAssignment> AssignBuffers(
    const ExecutionPlan& plan, absl::Span<const int64_t> parameter_sizes);

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_SERVICE_BUFFER_ASSIGNMENT_H_
