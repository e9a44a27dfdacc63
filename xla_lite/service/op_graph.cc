#include "xla_lite/service/op_graph.h"

#include <algorithm>

namespace xla_lite::gpu {
namespace {

bool Contains(const std::vector<int>& v, int x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

}  // namespace

int OpGraph::WriterOf(int buffer) const {
  for (int op = 0; op < ops_.size(); ++op) {
    if (Contains(ops_[op].writes, buffer)) return op;
  }
  return -1;
}

std::vector<int> OpGraph::ReadersOf(int buffer) const {
  std::vector<int> readers;
  for (int op = 0; op < ops_.size(); ++op) {
    if (Contains(ops_[op].reads, buffer)) readers.push_back(op);
  }
  return readers;
}

std::vector<int> OpGraph::Successors(int op) const {
  std::vector<int> successors;
  for (int buffer : ops_[op].writes) {
    for (int reader : ReadersOf(buffer)) {
      if (reader != op) successors.push_back(reader);
    }
  }
  for (const auto& [before, after] : edges_) {
    if (before == op && after != op) successors.push_back(after);
  }
  std::sort(successors.begin(), successors.end());
  successors.erase(std::unique(successors.begin(), successors.end()),
                   successors.end());
  return successors;
}

bool OpGraph::Reaches(int from, int to) const {
  std::vector<bool> seen(ops_.size(), false);
  std::vector<int> stack = {from};
  while (!stack.empty()) {
    int op = stack.back();
    stack.pop_back();
    if (op == to) return true;
    if (seen[op]) continue;
    seen[op] = true;
    for (int next : Successors(op)) stack.push_back(next);
  }
  return false;
}

bool OpGraph::ReachesIndirectly(int from, int to) const {
  for (int next : Successors(from)) {
    if (next != to && Reaches(next, to)) return true;
  }
  return false;
}

void RemoveOp(std::vector<PlannedOp>& ops, OpGraph::Edges& edges, int b,
              int into) {
  ops.erase(ops.begin() + b);
  auto renumber = [&](int op) {
    if (op == b) op = into;
    return op > b ? op - 1 : op;
  };
  OpGraph::Edges kept;
  for (const auto& [before, after] : edges) {
    int x = renumber(before), y = renumber(after);
    if (x != y) kept.push_back({x, y});
  }
  edges = std::move(kept);
}

}  // namespace xla_lite::gpu
