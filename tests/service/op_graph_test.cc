// OpGraph's queries over a small plan: writers, readers (each once,
// ascending), successors through buffers and ordering edges, and the
// indirect reachability that forbids a merge.

#include "xla_lite/service/op_graph.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace xla_lite::gpu {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

PlannedOp Op(std::vector<int> reads, std::vector<int> writes) {
  PlannedOp op;
  op.reads = std::move(reads);
  op.writes = std::move(writes);
  return op;
}

// Buffer 0 is a parameter. Op 0 writes 1 from 0; op 1 reads 1 twice and
// writes 2; op 2 reads 0 and 1, writes 3 and rewrites 1 (a second writer:
// the first stays the writer); op 3 reads 2 and 3. Edge: op 1 before op 2.
std::vector<PlannedOp> Plan() {
  return {Op({0}, {1}), Op({1, 1}, {2}), Op({0, 1}, {3, 1}), Op({2, 3}, {4})};
}

TEST(OpGraphTest, WritersAndReaders) {
  const std::vector<PlannedOp> ops = Plan();
  const OpGraph::Edges edges = {{1, 2}};
  OpGraph graph(ops, edges);
  EXPECT_EQ(graph.WriterOf(0), -1);
  EXPECT_EQ(graph.WriterOf(1), 0);
  EXPECT_EQ(graph.WriterOf(3), 2);
  EXPECT_EQ(graph.WriterOf(4), 3);
  EXPECT_EQ(graph.WriterOf(5), -1);
  EXPECT_EQ(graph.WriterOf(-1), -1);
  EXPECT_THAT(graph.ReadersOf(0), ElementsAre(0, 2));
  EXPECT_THAT(graph.ReadersOf(1), ElementsAre(1, 2));
  EXPECT_THAT(graph.ReadersOf(4), IsEmpty());
  EXPECT_THAT(graph.ReadersOf(9), IsEmpty());
}

TEST(OpGraphTest, SuccessorsFollowBuffersAndEdges) {
  const std::vector<PlannedOp> ops = Plan();
  const OpGraph::Edges edges = {{1, 2}};
  OpGraph graph(ops, edges);
  EXPECT_THAT(graph.Successors(0), ElementsAre(1, 2));
  EXPECT_THAT(graph.Successors(1), ElementsAre(2, 3));  // 2 by the edge
  // Op 2 writes 1, which ops 1 and 2 read: itself is no successor.
  EXPECT_THAT(graph.Successors(2), ElementsAre(1, 3));
  EXPECT_THAT(graph.Successors(3), IsEmpty());
}

TEST(OpGraphTest, IndirectPathsForbidMerges) {
  const std::vector<PlannedOp> ops = Plan();
  const OpGraph::Edges no_edges;
  OpGraph without_edge(ops, no_edges);
  // 0 -> 1 -> 3 and 0 -> 2 -> 3: merging 0 with 3 would close a cycle.
  EXPECT_TRUE(without_edge.ReachesIndirectly(0, 3));
  EXPECT_FALSE(without_edge.ReachesIndirectly(1, 3));
  EXPECT_TRUE(without_edge.Reaches(0, 3));
  EXPECT_FALSE(without_edge.Reaches(3, 0));
  const OpGraph::Edges edges = {{1, 2}};
  OpGraph with_edge(ops, edges);
  EXPECT_TRUE(with_edge.ReachesIndirectly(1, 3));  // 1 -> 2 -> 3
}

}  // namespace
}  // namespace xla_lite::gpu
