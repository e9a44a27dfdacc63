#include "xla_lite/service/row_fusion.h"

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "glog/logging.h"
#include "xla_lite/service/cuda_emitter.h"

namespace xla_lite::gpu {
namespace {

// Ownership the analysis below cannot show is checked element by element;
// larger kernels are then left alone.
constexpr int64_t kMaxCheckedIndices = int64_t{1} << 20;

// What an index computes, as a function of a stage's element: in row
// `row`, kAligned is row * length + an offset in [0, length) that depends
// only on the element's place in its row (and the reduce index); kInner
// depends only on that place. Indices are remaps of remaps of the element
// index, each coordinate a digit of its source, so this follows digits:
// a source coordinate lies wholly inside the row's part or is a digit of
// the row number, and a target whose outer coordinates are the row's
// digits in order, unchanged, is aligned. What fits neither is kUnknown.
struct RowIndex {
  enum class Kind { kAligned, kInner, kUnknown };
  Kind kind = Kind::kUnknown;
  int64_t length = 0;
};

// A remap's coordinate: kInner, or the digit (row / quotient) % radix.
struct RowCoordinate {
  enum class Kind { kInner, kDigit, kUnknown };
  Kind kind = Kind::kUnknown;
  int64_t quotient = 1, radix = 1;
};

RowCoordinate CoordinateOf(const RowIndex& source, int64_t stride,
                           int64_t extent) {
  RowCoordinate c;
  if (source.kind == RowIndex::Kind::kInner) {
    c.kind = RowCoordinate::Kind::kInner;
  } else if (source.kind == RowIndex::Kind::kAligned) {
    if (source.length % (stride * extent) == 0) {
      c.kind = RowCoordinate::Kind::kInner;
    } else if (stride % source.length == 0) {
      c = {RowCoordinate::Kind::kDigit, stride / source.length, extent};
    }
  }
  return c;
}

RowIndex AnalyzeRowIndex(const KernelProgram& program, int id,
                         int64_t row_length, int64_t rows) {
  const ExprOp& op = program.op(id);
  if (op.kind == ExprKind::kIndex) {
    return {RowIndex::Kind::kAligned, row_length};
  }
  if (op.kind == ExprKind::kReduceIndex) return {RowIndex::Kind::kInner, 0};
  if (op.kind != ExprKind::kIndexRemap) return {};
  const IndexRemap& remap = op.remap;
  std::vector<RowIndex> sources;
  for (int operand : op.operands) {
    sources.push_back(AnalyzeRowIndex(program, operand, row_length, rows));
  }
  // Each target coordinate, with the range it takes (all Apply steps are
  // monotonic, so the ends of the source's range bound it).
  const int64_t rank = remap.target.size();
  std::vector<RowCoordinate> coordinates(rank);
  std::vector<std::pair<int64_t, int64_t>> ranges(rank);
  for (int64_t t = 0; t < rank; ++t) {
    const IndexRemap::Dim& d = remap.dims[t];
    int64_t extent = 1;
    if (d.source < 0) {
      coordinates[t].kind = RowCoordinate::Kind::kInner;
    } else {
      const std::vector<int64_t>& shape = remap.sources[d.source];
      extent = shape[d.dim];
      coordinates[t] = CoordinateOf(sources[d.source],
                                    RowMajorStrides(shape)[d.dim], extent);
    }
    const int64_t a = d.Apply(0), b = d.Apply(extent - 1);
    ranges[t] = {std::min(a, b), std::max(a, b)};
  }
  // The inner part: trailing target dimensions of inner coordinates.
  int64_t length = 1, t = rank - 1;
  for (; t >= 0; --t) {
    if (coordinates[t].kind != RowCoordinate::Kind::kInner ||
        ranges[t].first < 0 || ranges[t].second >= remap.target[t]) {
      break;
    }
    length *= remap.target[t];
  }
  // The rest: the row's digits, innermost first, unchanged.
  int64_t quotient = 1;
  for (; t >= 0; --t) {
    const RowCoordinate& c = coordinates[t];
    if (remap.target[t] == 1 && ranges[t].second == 0 && ranges[t].first == 0) {
      continue;
    }
    const IndexRemap::Dim& d = remap.dims[t];
    if (c.kind != RowCoordinate::Kind::kDigit || c.quotient != quotient ||
        c.radix != remap.target[t] || !d.IsAffine() || d.scale != 1 ||
        d.offset != 0) {
      return {};
    }
    quotient *= remap.target[t];
  }
  if (rows > quotient) return {};
  return {RowIndex::Kind::kAligned, length};
}

bool IsReduce(const PlannedOp::Stage& stage) {
  return stage.program->kind() == KernelProgram::Kind::kReduce;
}

// An op as row-kernel stages; rows is 0 when any row count dividing the
// loop's extent would do.
struct RowForm {
  std::vector<PlannedOp::Stage> stages;
  int64_t rows = 0;
};

std::optional<RowForm> AsRows(const PlannedOp& op) {
  switch (op.kind) {
    case PlannedOp::Kind::kRowKernel:
      return RowForm{op.stages, op.rows};
    case PlannedOp::Kind::kReduceKernel: {
      const KernelProgram& program = *op.program;
      ReductionStrategy strategy = ChooseReductionStrategy(program);
      if (strategy.column || program.reduced_elements() > kMaxRowLength) {
        return std::nullopt;
      }
      return RowForm{{{op.program, op.reads, op.writes}},
                     program.outputs()[0].buffer.element_count};
    }
    case PlannedOp::Kind::kLoopKernel:
      for (const KernelOutput& output : op.program->outputs()) {
        if (output.buffer.element_count != op.program->MaxOutputElements()) {
          return std::nullopt;
        }
      }
      return RowForm{{{op.program, op.reads, op.writes}}, 0};
    default:
      return std::nullopt;
  }
}

// Elements per row of `stage` (1 for reductions), or 0 when it cannot
// run as `rows` rows.
int64_t RowLength(const PlannedOp::Stage& stage, int64_t rows) {
  const int64_t elements = stage.program->MaxOutputElements();
  if (IsReduce(stage)) return elements == rows ? 1 : 0;
  if (elements % rows != 0 || elements / rows > kMaxRowLength) return 0;
  return elements / rows;
}

class RowChecker {
 public:
  RowChecker(const ExecutionPlan& plan, const std::vector<PlannedOp::Stage>& stages,
             int64_t rows)
      : plan_(plan), stages_(stages), rows_(rows) {}

  bool Valid() {
    for (int s = 0; s < stages_.size(); ++s) {
      length_.push_back(RowLength(stages_[s], rows_));
      if (length_.back() == 0) return false;
    }
    for (int s = 0; s < stages_.size(); ++s) {
      if (!ReadsOwnRows(s) || !WritesAfterReads(s)) return false;
      for (int b : stages_[s].writes) writer_[b] = s;
    }
    return true;
  }

 private:
  // Every element stage `s` reads of an earlier stage's output was stored
  // by the same row's thread.
  bool ReadsOwnRows(int s) {
    const KernelProgram& program = *stages_[s].program;
    const int64_t extent = IsReduce(stages_[s]) ? program.reduced_elements() : 1;
    for (const ExprOp& load : program.ops()) {
      if (load.kind != ExprKind::kLoad) continue;
      auto writer = writer_.find(stages_[s].reads[load.input]);
      if (writer == writer_.end()) continue;
      // An index computed from loaded values (a gather) cannot be checked.
      if (program.DependsOnData(load.operands[0])) return false;
      const int64_t owner_length = length_[writer->second];
      const RowIndex index =
          AnalyzeRowIndex(program, load.operands[0],
                          IsReduce(stages_[s]) ? 1 : length_[s], rows_);
      if (index.kind == RowIndex::Kind::kAligned &&
          index.length == owner_length) {
        continue;
      }
      checked_ += rows_ * length_[s] * extent;
      if (checked_ > kMaxCheckedIndices) return false;
      for (int64_t row = 0; row < rows_; ++row) {
        for (int64_t i = row * length_[s]; i < (row + 1) * length_[s]; ++i) {
          for (int64_t r = 0; r < extent; ++r) {
            int64_t x = EvaluateIndex(program, load.operands[0], i, r);
            if (x / owner_length != row) return false;
          }
        }
      }
    }
    return true;
  }

  // Stage `s` writes nothing an earlier stage read or wrote, and overwrites
  // no parameter another stage reads (other rows' threads read it any time).
  bool WritesAfterReads(int s) const {
    for (int b : stages_[s].writes) {
      const LogicalBuffer& written = plan_.buffers[b];
      for (int t = 0; t < stages_.size(); ++t) {
        const PlannedOp::Stage& other = stages_[t];
        if (t < s && (Contains(other.reads, b) || Contains(other.writes, b))) {
          return false;
        }
        if (t == s || written.placement != LogicalBuffer::Placement::kParameter) {
          continue;
        }
        for (int read : other.reads) {
          const LogicalBuffer& buffer = plan_.buffers[read];
          if (buffer.placement == LogicalBuffer::Placement::kParameter &&
              buffer.number == written.number) {
            return false;
          }
        }
      }
    }
    return true;
  }

  static bool Contains(const std::vector<int>& v, int x) {
    return std::find(v.begin(), v.end(), x) != v.end();
  }

  const ExecutionPlan& plan_;
  const std::vector<PlannedOp::Stage>& stages_;
  const int64_t rows_;
  std::vector<int64_t> length_;
  absl::flat_hash_map<int, int> writer_;  // Buffer -> stage.
  int64_t checked_ = 0;
};

PlannedOp RowKernel(const PlannedOp& a, const PlannedOp& b,
                    std::vector<PlannedOp::Stage> stages, int64_t rows) {
  PlannedOp merged;
  merged.kind = PlannedOp::Kind::kRowKernel;
  // Names both while that stays readable, then the first and a count.
  merged.name = stages.size() == 2
                    ? absl::StrCat(a.name, "+", b.name)
                    : absl::StrCat(a.name.substr(0, a.name.find('+')), "+",
                                   stages.size() - 1, "_more");
  for (const PlannedOp::Stage& stage : stages) {
    for (int w : stage.writes) {
      if (std::find(merged.writes.begin(), merged.writes.end(), w) ==
          merged.writes.end()) {
        merged.writes.push_back(w);
      }
    }
  }
  for (const PlannedOp::Stage& stage : stages) {
    for (int r : stage.reads) {
      bool internal = std::find(merged.writes.begin(), merged.writes.end(),
                                r) != merged.writes.end();
      if (!internal && std::find(merged.reads.begin(), merged.reads.end(),
                                 r) == merged.reads.end()) {
        merged.reads.push_back(r);
      }
    }
  }
  merged.stages = std::move(stages);
  merged.rows = rows;
  return merged;
}

// Merges consumer `b` with the producer `a` it reads from, when legal.
// `graph` views the plan before the merge.
bool TryFuse(ExecutionPlan& plan, OpGraph::Edges& edges, const OpGraph& graph,
             int a, int b) {
  std::optional<RowForm> producer = AsRows(plan.ops[a]);
  std::optional<RowForm> consumer = AsRows(plan.ops[b]);
  if (!producer.has_value() || !consumer.has_value()) return false;
  int64_t rows = producer->rows != 0 ? producer->rows : consumer->rows;
  if (rows == 0 || (consumer->rows != 0 && consumer->rows != rows)) {
    return false;  // Two loops are kernel merging's to merge.
  }
  if (graph.ReachesIndirectly(a, b)) return false;
  std::vector<PlannedOp::Stage> stages = producer->stages;
  stages.insert(stages.end(), consumer->stages.begin(), consumer->stages.end());
  if (!RowChecker(plan, stages, rows).Valid()) return false;
  PlannedOp merged = RowKernel(plan.ops[a], plan.ops[b], std::move(stages), rows);
  VLOG(5) << "row kernel " << merged.name << " over " << rows << " rows";
  int first = std::min(a, b), second = std::max(a, b);
  plan.ops[first] = std::move(merged);
  RemoveOp(plan.ops, edges, second, first);
  return true;
}

}  // namespace

absl::Status FuseRows(ExecutionPlan* plan, OpGraph::Edges* edges) {
  int fused = 0;
  for (bool changed = true; changed;) {
    changed = false;
    // One graph per pass, not per op: indexing the plan is linear in it.
    OpGraph graph(plan->ops, *edges);
    for (int b = 0; b < plan->ops.size() && !changed; ++b) {
      for (int buffer : plan->ops[b].reads) {
        int a = graph.WriterOf(buffer);
        if (a < 0 || a == b) continue;
        changed = TryFuse(*plan, *edges, graph, a, b);
        if (changed) break;
      }
    }
    fused += changed;
  }
  VLOG(1) << "row fusion: " << fused << " kernels merged into row kernels";
  return absl::OkStatus();
}

}  // namespace xla_lite::gpu
