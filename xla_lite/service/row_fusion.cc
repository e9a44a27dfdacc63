#include "xla_lite/service/row_fusion.h"

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "glog/logging.h"
#include "xla_lite/service/cuda_emitter.h"
#include "xla_lite/service/gemm/gemm_tiling.h"

namespace xla_lite::gpu {
namespace {

// Ownership is checked element by element; larger kernels are left alone.
constexpr int64_t kMaxCheckedIndices = int64_t{1} << 20;

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
      if (ChooseReductionStrategy(program).block_per_output ||
          program.reduced_elements() > kMaxRowLength) {
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
  // A gemm stage spreads its rows over the whole block: any length will do.
  if (stage.gemm.has_value()) return elements % rows == 0 ? elements / rows : 0;
  if (elements % rows != 0 || elements / rows > kMaxRowLength) return 0;
  return elements / rows;
}

class RowChecker {
 public:
  // `stored` holds buffers written before the first stage, each with its
  // row length (a gemm's product: its columns).
  RowChecker(const ExecutionPlan& plan,
             const std::vector<PlannedOp::Stage>& stages, int64_t rows,
             absl::flat_hash_map<int, int64_t> stored = {})
      : plan_(plan), stages_(stages), rows_(rows),
        row_length_of_(std::move(stored)) {}

  bool Valid() {
    for (int s = 0; s < stages_.size(); ++s) {
      length_.push_back(RowLength(stages_[s], rows_));
      if (length_.back() == 0) return false;
    }
    for (int s = 0; s < stages_.size(); ++s) {
      if (!GemmReadsOwnRows(s) || !ReadsOwnRows(s) || !WritesAfterReads(s)) {
        return false;
      }
      for (int b : stages_[s].writes) {
        if (row_length_of_.contains(b)) return false;  // Written twice.
        row_length_of_[b] = length_[s];
      }
    }
    return true;
  }

 private:
  // A gemm stage's lhs rows are the rows' own (when stored in the kernel),
  // and its rhs is not stored in the kernel at all: every row reads all of it.
  bool GemmReadsOwnRows(int s) const {
    const PlannedOp::Stage& stage = stages_[s];
    if (!stage.gemm.has_value()) return true;
    if (row_length_of_.contains(stage.rhs)) return false;
    auto lhs = row_length_of_.find(stage.lhs);
    return lhs == row_length_of_.end() ||
           (!stage.gemm->transpose_lhs && lhs->second == stage.gemm->k);
  }

  // Every element stage `s` reads of an earlier stage's output was stored
  // by the same row's thread.
  bool ReadsOwnRows(int s) {
    const KernelProgram& program = *stages_[s].program;
    const int64_t extent = IsReduce(stages_[s]) ? program.reduced_elements() : 1;
    for (const ExprOp& load : program.ops()) {
      if (load.kind != ExprKind::kLoad) continue;
      auto stored = row_length_of_.find(stages_[s].reads[load.input]);
      if (stored == row_length_of_.end()) continue;
      const int64_t owner_length = stored->second;
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
  // Buffers stored in the kernel so far -> their elements per row.
  absl::flat_hash_map<int, int64_t> row_length_of_;
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
    std::vector<int> reads = stage.reads;
    if (stage.gemm.has_value()) {
      reads.push_back(stage.lhs);
      reads.push_back(stage.rhs);
    }
    for (int r : reads) {
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
bool TryFuse(ExecutionPlan& plan, OpGraph::Edges& edges, int a, int b) {
  std::optional<RowForm> producer = AsRows(plan.ops[a]);
  std::optional<RowForm> consumer = AsRows(plan.ops[b]);
  if (!producer.has_value() || !consumer.has_value()) return false;
  int64_t rows = producer->rows != 0 ? producer->rows : consumer->rows;
  if (rows == 0 || (consumer->rows != 0 && consumer->rows != rows)) {
    return false;  // Two loops are kernel merging's to merge.
  }
  if (OpGraph(plan.ops, edges).ReachesIndirectly(a, b)) return false;
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

// An emitted f32 gemm without batch whose blocks each cover whole rows.
bool TakesRowEpilogue(const PlannedOp& op, const GemmEmission& emission) {
  const GemmConfig& gemm = op.gemm;
  return op.kind == PlannedOp::Kind::kGemm && op.program == nullptr &&
         op.stages.empty() && op.reads.size() == 2 && gemm.beta == 0.0f &&
         gemm.batch == 1 && gemm.type == se::blas::DataType::kF32 &&
         UsesEmittedGemmKernel(gemm, emission) &&
         ChooseGemmTiling(gemm).tile_n() >= gemm.n;
}

// The old value of what `b` overwrites: the parameter itself for a result
// written in place, else `b`.
int OverwrittenBuffer(const ExecutionPlan& plan, int b) {
  const LogicalBuffer& written = plan.buffers[b];
  if (written.placement != LogicalBuffer::Placement::kParameter) return b;
  for (const LogicalBuffer& buffer : plan.buffers) {
    if (buffer.instruction != nullptr &&
        buffer.instruction->opcode() == HloOpcode::kParameter &&
        buffer.instruction->parameter_number() == written.number) {
      return buffer.id;
    }
  }
  return b;
}

// Runs row-form op `r` as the epilogue of gemm `g`, whose product it reads,
// when legal.
bool TryFuseIntoGemm(ExecutionPlan& plan, OpGraph::Edges& edges, int g,
                     int r) {
  const PlannedOp& gemm = plan.ops[g];
  std::optional<RowForm> rows = AsRows(plan.ops[r]);
  if (!rows.has_value() || (rows->rows != 0 && rows->rows != gemm.gemm.m)) {
    return false;
  }
  if (OpGraph(plan.ops, edges).ReachesIndirectly(g, r)) return false;
  const int product = gemm.writes[0];
  // Other blocks read the operands until they finish.
  for (const PlannedOp::Stage& stage : rows->stages) {
    for (int b : stage.writes) {
      int old_value = OverwrittenBuffer(plan, b);
      for (int operand : {b, old_value}) {
        if (operand == gemm.reads[0] || operand == gemm.reads[1]) return false;
      }
    }
  }
  if (!RowChecker(plan, rows->stages, gemm.gemm.m, {{product, gemm.gemm.n}})
           .Valid()) {
    return false;
  }
  PlannedOp fused = RowKernel(gemm, plan.ops[r], rows->stages, gemm.gemm.m);
  fused.kind = PlannedOp::Kind::kGemm;
  fused.name = absl::StrCat(gemm.name, "+", plan.ops[r].name);
  fused.gemm = gemm.gemm;
  std::vector<int> reads = {gemm.reads[0], gemm.reads[1]};
  for (int b : fused.reads) {
    if (b != product) reads.push_back(b);
  }
  fused.reads = std::move(reads);
  fused.writes.insert(fused.writes.begin(), product);
  VLOG(5) << "gemm row epilogue " << fused.name;
  int first = std::min(g, r), second = std::max(g, r);
  plan.ops[first] = std::move(fused);
  RemoveOp(plan.ops, edges, second, first);
  return true;
}

// The product stored as it is: an element epilogue of `elements`.
std::shared_ptr<const KernelProgram> StoreProduct(int64_t elements) {
  auto program = std::make_shared<KernelProgram>(KernelProgram::Kind::kLoop);
  ExprOp product;
  product.kind = ExprKind::kReducedValue;
  product.type = PrimitiveType::kF32;
  program->AddOutput({PrimitiveType::kF32, elements},
                     program->Add(std::move(product)));
  return program;
}

// Gemm `h`, which reads what gemm `g`'s row epilogue stores, as g's last
// stage, when every row of h's product needs only the same row of what g
// stored: the block that owns the rows computes h for them too.
bool TryChainGemm(ExecutionPlan& plan, OpGraph::Edges& edges, int g, int h,
                  const GemmEmission& emission) {
  const PlannedOp& first = plan.ops[g];
  const PlannedOp& next = plan.ops[h];
  const GemmConfig& config = next.gemm;
  if (next.kind != PlannedOp::Kind::kGemm || !next.stages.empty() ||
      config.beta != 0.0f || config.batch != 1 ||
      config.type != se::blas::DataType::kF32 ||
      !UsesEmittedGemmKernel(config, emission) || config.m != first.gemm.m ||
      config.k > kMaxRowLength) {
    return false;
  }
  if (OpGraph(plan.ops, edges).ReachesIndirectly(g, h)) return false;
  PlannedOp::Stage stage;
  stage.gemm = config;
  stage.lhs = next.reads[0];
  stage.rhs = next.reads[1];
  if (next.program != nullptr) {
    stage.program = next.program;
    stage.reads.assign(next.reads.begin() + 2, next.reads.end());
  } else {
    stage.program = StoreProduct(config.m * config.n);
  }
  stage.writes = next.writes;
  for (int b : stage.writes) {
    int old_value = OverwrittenBuffer(plan, b);
    for (int operand : {b, old_value}) {
      if (operand == first.reads[0] || operand == first.reads[1]) return false;
    }
  }
  std::vector<PlannedOp::Stage> stages = first.stages;
  stages.push_back(std::move(stage));
  if (!RowChecker(plan, stages, config.m, {{first.writes[0], first.gemm.n}})
           .Valid()) {
    return false;
  }
  PlannedOp fused = first;
  fused.name = absl::StrCat(first.name, "+", next.name);
  for (int b : next.writes) fused.writes.push_back(b);
  std::vector<int> external = stages.back().reads;
  external.push_back(stages.back().lhs);
  external.push_back(stages.back().rhs);
  for (int b : external) {
    if (std::find(fused.writes.begin(), fused.writes.end(), b) ==
            fused.writes.end() &&
        std::find(fused.reads.begin(), fused.reads.end(), b) ==
            fused.reads.end()) {
      fused.reads.push_back(b);
    }
  }
  fused.stages = std::move(stages);
  VLOG(5) << "gemm chained into a row epilogue: " << fused.name;
  int low = std::min(g, h), high = std::max(g, h);
  plan.ops[low] = std::move(fused);
  RemoveOp(plan.ops, edges, high, low);
  return true;
}

int ChainGemms(ExecutionPlan& plan, OpGraph::Edges& edges,
               const GemmEmission& emission) {
  int chained = 0;
  for (bool changed = true; changed;) {
    changed = false;
    for (int g = 0; g < plan.ops.size() && !changed; ++g) {
      const PlannedOp& op = plan.ops[g];
      if (op.kind != PlannedOp::Kind::kGemm || op.stages.empty()) continue;
      OpGraph graph(plan.ops, edges);
      for (int b : op.writes) {
        for (int h : graph.ReadersOf(b)) {
          if (h != g && TryChainGemm(plan, edges, g, h, emission)) {
            changed = true;
            break;
          }
        }
        if (changed) break;
      }
    }
    chained += changed;
  }
  return chained;
}

int FuseGemmRowEpilogues(ExecutionPlan& plan, OpGraph::Edges& edges,
                         const GemmEmission& emission) {
  int fused = 0;
  for (int g = 0; g < plan.ops.size(); ++g) {
    if (!TakesRowEpilogue(plan.ops[g], emission)) continue;
    for (int r : OpGraph(plan.ops, edges).ReadersOf(plan.ops[g].writes[0])) {
      if (TryFuseIntoGemm(plan, edges, g, r)) {
        ++fused;
        if (r < g) --g;
        break;
      }
    }
  }
  return fused;
}

}  // namespace

absl::Status FuseRows(ExecutionPlan* plan, OpGraph::Edges* edges,
                      const GemmEmission& emission) {
  int fused = 0;
  for (bool changed = true; changed;) {
    changed = false;
    for (int b = 0; b < plan->ops.size() && !changed; ++b) {
      OpGraph graph(plan->ops, *edges);
      for (int buffer : plan->ops[b].reads) {
        int a = graph.WriterOf(buffer);
        if (a < 0 || a == b) continue;
        changed = TryFuse(*plan, *edges, a, b);
        if (changed) break;
      }
    }
    fused += changed;
  }
  const int epilogues = FuseGemmRowEpilogues(*plan, *edges, emission);
  const int chained = ChainGemms(*plan, *edges, emission);
  VLOG(1) << "row fusion: " << fused << " kernels merged into row kernels, "
          << epilogues << " row kernels run by their gemms, " << chained
          << " gemms chained after them";
  return absl::OkStatus();
}

}  // namespace xla_lite::gpu
