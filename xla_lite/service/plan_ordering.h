#ifndef XLA_LITE_SERVICE_PLAN_ORDERING_H_
#define XLA_LITE_SERVICE_PLAN_ORDERING_H_

#include <cstdint>
#include <utility>
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
// device; empty buffers order nothing. The plan sees a while or a
// conditional as one op over all its leaves, where its thunks touch only
// some: an order through such an op may not hold on the device, which
// costs only speed (sharing bytes always orders the ops that share them).
// The longest path is taken over these edges with each op's estimated time
// (EstimatedMicros: gemms and convolutions by their flops, everything else,
// loops included, by the bytes of its buffers) and kCriticalSlack, as
// command priorities take it.
//
// Buffer assignment asks this before it lets two temps share bytes, since
// sharing adds a conflict of its own: the later value's writer waits for
// every user of the earlier value. A protected op must not wait for ops
// it did not already follow: at first the critical ones (attention's three
// gradient gemms ran in a row when each wrote where the next one's operand
// was). An op with slack may: the weight gradients, which only the
// optimizer reads, then wait for one another and leave more of the device
// to the critical chain (with all of them free instead, the medium bf16
// transformer's step was 4% longer). Until a run of such waits makes a
// path longer than the longest: then DelayedOnLongestPath names the ops to
// protect too (cnn_cifar's filter gradients, whose chain made its step 8%
// longer; docs/benchmarks.md).
//
// The order is kept as a bit per pair of ops. Plans of more than kMaxOps
// ops order nothing and protect nothing, so temps share bytes by live
// range alone, as they would on one stream.
class PlanOrdering {
 public:
  static constexpr int64_t kMaxOps = 8192;

  explicit PlanOrdering(const ExecutionPlan& plan);

  // Whether op `a` is done before op `b` starts.
  bool ExecutesBefore(int64_t a, int64_t b) const;

  // Whether `op` must not wait for ops it does not already follow: the
  // ops on the longest path (within kCriticalSlack), and those Protect
  // named since.
  bool Protected(int64_t op) const;
  void Protect(int64_t op);

  // With `extra` edges (earlier op, later op) added to the plan's own, the
  // ops whose extra edges lie on the longest path, when that path is now
  // longer than the plan's own by more than kCriticalSlack; else none.
  // Each edge alone may fit in its op's slack while a run of them does
  // not: weight gradients that each wait for the one before can end
  // after the step's chain would have.
  std::vector<int64_t> DelayedOnLongestPath(
      const std::vector<std::pair<int64_t, int64_t>>& extra) const;

  // False when the plan was too large to order.
  bool exact() const { return words_ > 0; }

 private:
  int64_t words_ = 0;
  // ancestors_[b * words_, (b + 1) * words_): the ops that execute before b.
  std::vector<uint64_t> ancestors_;
  std::vector<bool> protected_;
  std::vector<std::vector<int64_t>> conflicts_;
  std::vector<double> micros_;
  double longest_ = 0;
};

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_SERVICE_PLAN_ORDERING_H_
