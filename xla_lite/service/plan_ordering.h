#ifndef XLA_LITE_SERVICE_PLAN_ORDERING_H_
#define XLA_LITE_SERVICE_PLAN_ORDERING_H_

#include <cstdint>
#include <vector>

#include "xla_lite/service/execution_plan.h"

namespace xla_lite::gpu {

// Which ops of a plan run one after the other whatever order a command
// buffer picks, and which lie on its longest path.
//
// A command buffer runs an op once every earlier op it conflicts with on
// some byte is done (CommandDependencies), and nothing else orders it. So
// op `a` executes before op `b` when a chain of such conflicts on the
// plan's own buffers leads from `a` to `b`: a value and its readers, a read
// and a later write of the same buffer, two writes. A parameter and a
// result aliased to it are one buffer here, as they are one slice on the
// device. The longest path is taken over these edges with each op's
// EstimatedMicros, as command priorities take it (kCriticalSlack).
//
// Buffer assignment asks this before it lets two temps share bytes, since
// sharing adds a conflict of its own: the later value's writer waits for
// every user of the earlier value. A critical op must not wait for ops
// it did not already follow (attention's three gradient gemms ran in a
// row when each wrote where the next one's operand was). An op with slack
// may: the weight gradients, which only the optimizer reads, then wait for
// one another and leave more of the device to the critical chain. That
// made the medium transformers' steps shorter than letting them all run
// at once (bf16 by 4%); a convnet's step was 8% longer, so this is a
// choice for the chain, not a free gain (docs/benchmarks.md).
//
// The order is kept as a bit per pair of ops. Plans of more than kMaxOps
// ops fall back to the ops' positions (every earlier op executes before
// every later one, none is critical), which lets every temp share bytes
// with every temp live at other times, as on one stream.
class PlanOrdering {
 public:
  static constexpr int64_t kMaxOps = 8192;

  explicit PlanOrdering(const ExecutionPlan& plan);

  // Whether op `a` is done before op `b` starts.
  bool ExecutesBefore(int64_t a, int64_t b) const;

  // Whether op `op` lies on the longest path (within kCriticalSlack).
  bool Critical(int64_t op) const;

  // False when the plan was too large and positions stand in.
  bool exact() const { return words_ > 0; }

 private:
  int64_t words_ = 0;
  // ancestors_[b * words_, (b + 1) * words_): the ops that execute before b.
  std::vector<uint64_t> ancestors_;
  std::vector<bool> critical_;
};

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_SERVICE_PLAN_ORDERING_H_
