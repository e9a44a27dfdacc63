#include "xla_lite/service/op_graph.h"

#include <algorithm>

namespace xla_lite::gpu {
const OpGraph::Index& OpGraph::index() const {
  if (index_ != nullptr) return *index_;
  index_ = std::make_unique<Index>();
  index_->after.resize(ops_.size());
  for (int op = 0; op < ops_.size(); ++op) {
    for (int buffer : ops_[op].writes) index_->writer.try_emplace(buffer, op);
    for (int buffer : ops_[op].reads) {
      std::vector<int>& readers = index_->readers[buffer];
      if (readers.empty() || readers.back() != op) readers.push_back(op);
    }
  }
  for (const auto& [before, after] : edges_) {
    index_->after.at(before).push_back(after);
  }
  return *index_;
}

int OpGraph::WriterOf(int buffer) const {
  auto it = index().writer.find(buffer);
  return it == index().writer.end() ? -1 : it->second;
}

std::vector<int> OpGraph::ReadersOf(int buffer) const {
  auto it = index().readers.find(buffer);
  return it == index().readers.end() ? std::vector<int>() : it->second;
}

std::vector<int> OpGraph::Successors(int op) const {
  std::vector<int> successors;
  for (int buffer : ops_[op].writes) {
    auto it = index().readers.find(buffer);
    if (it == index().readers.end()) continue;
    for (int reader : it->second) {
      if (reader != op) successors.push_back(reader);
    }
  }
  for (int after : index().after[op]) {
    if (after != op) successors.push_back(after);
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
