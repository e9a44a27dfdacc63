#include "xla_lite/service/op_graph.h"

#include <algorithm>

#include "glog/logging.h"

namespace xla_lite::gpu {

absl::Span<const int> OpGraph::Index::ReadersOf(int buffer) const {
  if (buffer < 0 || buffer + 1 >= reader_start.size()) return {};
  return absl::MakeConstSpan(readers).subspan(
      reader_start[buffer], reader_start[buffer + 1] - reader_start[buffer]);
}

absl::Span<const int> OpGraph::Index::After(int op) const {
  return absl::MakeConstSpan(after).subspan(
      after_start[op], after_start[op + 1] - after_start[op]);
}

namespace {

// Fills a compressed table of `keys` rows from the pairs add(key, value)
// that `each` offers, each row in the order offered. `each` runs twice,
// counting and then filling, and must offer the same pairs both times.
template <typename Each>
void FillRows(int keys, const Each& each, std::vector<int>* start,
              std::vector<int>* values) {
  start->assign(keys + 1, 0);
  each([&](int key, int) {
    CHECK(key >= 0 && key < keys) << key << " of " << keys;
    ++(*start)[key + 1];
  });
  for (int k = 0; k < keys; ++k) (*start)[k + 1] += (*start)[k];
  values->resize(start->back());
  std::vector<int> next(start->begin(), start->end() - 1);
  each([&](int key, int value) { (*values)[next[key]++] = value; });
}

}  // namespace

const OpGraph::Index& OpGraph::index() const {
  if (index_ != nullptr) return *index_;
  index_ = std::make_unique<Index>();
  int buffers = 0;
  for (const PlannedOp& op : ops_) {
    for (int b : op.writes) buffers = std::max(buffers, b + 1);
    for (int b : op.reads) buffers = std::max(buffers, b + 1);
  }
  // Buffers are numbered from 0 (LogicalBuffer ids).
  index_->writer.assign(buffers, -1);
  for (int op = 0; op < ops_.size(); ++op) {
    for (int b : ops_[op].writes) {
      CHECK_GE(b, 0) << ops_[op].name;
      if (index_->writer[b] < 0) index_->writer[b] = op;
    }
  }
  // An op reading a buffer twice is its reader once.
  std::vector<int> last_reader(buffers, -1);
  FillRows(
      buffers,
      [&](const auto& add) {
        std::fill(last_reader.begin(), last_reader.end(), -1);
        for (int op = 0; op < ops_.size(); ++op) {
          for (int b : ops_[op].reads) {
            CHECK_GE(b, 0) << ops_[op].name;
            if (last_reader[b] == op) continue;
            last_reader[b] = op;
            add(b, op);
          }
        }
      },
      &index_->reader_start, &index_->readers);
  FillRows(
      ops_.size(),
      [&](const auto& add) {
        for (const auto& [before, after] : edges_) {
          CHECK(after >= 0 && after < ops_.size()) << after;
          add(before, after);
        }
      },
      &index_->after_start, &index_->after);
  return *index_;
}

int OpGraph::WriterOf(int buffer) const {
  const std::vector<int>& writer = index().writer;
  return buffer >= 0 && buffer < writer.size() ? writer[buffer] : -1;
}

std::vector<int> OpGraph::ReadersOf(int buffer) const {
  absl::Span<const int> readers = index().ReadersOf(buffer);
  return std::vector<int>(readers.begin(), readers.end());
}

template <typename Visit>
void OpGraph::ForEachSuccessor(int op, const Visit& visit) const {
  const Index& index = this->index();
  for (int buffer : ops_[op].writes) {
    for (int reader : index.ReadersOf(buffer)) {
      if (reader != op) visit(reader);
    }
  }
  for (int after : index.After(op)) {
    if (after != op) visit(after);
  }
}

std::vector<int> OpGraph::Successors(int op) const {
  std::vector<int> successors;
  ForEachSuccessor(op, [&](int next) { successors.push_back(next); });
  std::sort(successors.begin(), successors.end());
  successors.erase(std::unique(successors.begin(), successors.end()),
                   successors.end());
  return successors;
}

bool OpGraph::ReachesFromAny(std::vector<int> stack, int to) const {
  // Merging asks this of nearly every pair it tries: one walk over flat
  // spans, with nothing allocated per op.
  std::vector<char> seen(ops_.size(), 0);
  while (!stack.empty()) {
    const int op = stack.back();
    stack.pop_back();
    if (op == to) return true;
    if (seen[op]) continue;
    seen[op] = 1;
    ForEachSuccessor(op, [&](int next) {
      if (!seen[next]) stack.push_back(next);
    });
  }
  return false;
}

bool OpGraph::Reaches(int from, int to) const {
  return ReachesFromAny({from}, to);
}

bool OpGraph::ReachesIndirectly(int from, int to) const {
  // The graph has no cycle, so no path from a successor of `from` comes
  // back through `from`: one walk from all of them at once.
  std::vector<int> starts;
  ForEachSuccessor(from, [&](int next) {
    if (next != to) starts.push_back(next);
  });
  return ReachesFromAny(std::move(starts), to);
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
