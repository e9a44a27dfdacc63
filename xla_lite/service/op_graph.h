#ifndef XLA_LITE_SERVICE_OP_GRAPH_H_
#define XLA_LITE_SERVICE_OP_GRAPH_H_

#include <memory>
#include <utility>
#include <vector>

#include "absl/types/span.h"
#include "xla_lite/service/execution_plan.h"

namespace xla_lite::gpu {

// The dependencies between a plan's ops: an op runs after the writer of
// every buffer it reads, and after `before` for each (before, after) edge
// (the ordering of in-place writes after the reads of the old value).
//
// A graph is a view of `ops` and `edges` as they are when it is first
// queried: the first query indexes writers, readers and edges once (linear
// in the plan), so every later query costs what it returns, not a scan of
// the plan, and passes over 50,000 ops stay near-linear. Make a new graph
// after changing the plan.
class OpGraph {
 public:
  using Edges = std::vector<std::pair<int, int>>;

  OpGraph(const std::vector<PlannedOp>& ops, const Edges& edges)
      : ops_(ops), edges_(edges) {}
  OpGraph(const OpGraph&) = delete;
  OpGraph& operator=(const OpGraph&) = delete;
  OpGraph(OpGraph&&) = default;

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
  // Buffers and ops are dense numbers, so the index is flat arrays: built
  // anew after every change of the plan (each merge), it must cost little
  // more than reading the plan once.
  struct Index {
    std::vector<int> writer;  // by buffer: the first writer, or -1
    // By buffer b: readers[reader_start[b], reader_start[b + 1]), each
    // reading op once, ascending.
    std::vector<int> reader_start;
    std::vector<int> readers;
    // By op o: after[after_start[o], after_start[o + 1]), o's edges.
    std::vector<int> after_start;
    std::vector<int> after;

    absl::Span<const int> ReadersOf(int buffer) const;
    absl::Span<const int> After(int op) const;
  };
  const Index& index() const;
  // Calls visit(next) for each op that must run after `op`, possibly more
  // than once.
  template <typename Visit>
  void ForEachSuccessor(int op, const Visit& visit) const;
  // Whether a path of zero or more dependencies leads from one of `starts`
  // to `to`.
  bool ReachesFromAny(std::vector<int> starts, int to) const;

  const std::vector<PlannedOp>& ops_;
  const Edges& edges_;
  mutable std::unique_ptr<Index> index_;
};

// Erases op `b` from `ops`, its dependencies going to op `into` instead;
// later ops move down one place, and `edges` are renumbered to match.
void RemoveOp(std::vector<PlannedOp>& ops, OpGraph::Edges& edges, int b,
              int into);

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_SERVICE_OP_GRAPH_H_
