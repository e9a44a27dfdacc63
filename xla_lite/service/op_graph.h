#ifndef XLA_LITE_SERVICE_OP_GRAPH_H_
#define XLA_LITE_SERVICE_OP_GRAPH_H_

#include <utility>
#include <vector>

#include "xla_lite/service/execution_plan.h"

namespace xla_lite::gpu {

// The dependencies between a plan's ops: an op runs after the writer of
// every buffer it reads, and after `before` for each (before, after) edge
// (the ordering of in-place writes after the reads of the old value).
class OpGraph {
 public:
  using Edges = std::vector<std::pair<int, int>>;

  OpGraph(const std::vector<PlannedOp>& ops, const Edges& edges)
      : ops_(ops), edges_(edges) {}

  // The op writing `buffer`, or -1 (parameters, constants).
  int WriterOf(int buffer) const;
  std::vector<int> ReadersOf(int buffer) const;
  // Ops that must run after `op`, sorted, each once.
  std::vector<int> Successors(int op) const;
  bool Reaches(int from, int to) const;
  // Whether a path of two or more dependencies leads from `from` to `to`
  // (merging the two would then close a cycle).
  bool ReachesIndirectly(int from, int to) const;

 private:
  const std::vector<PlannedOp>& ops_;
  const Edges& edges_;
};

// Erases op `b` from `ops`, its dependencies going to op `into` instead;
// later ops move down one place, and `edges` are renumbered to match.
void RemoveOp(std::vector<PlannedOp>& ops, OpGraph::Edges& edges, int b,
              int into);

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_SERVICE_OP_GRAPH_H_
