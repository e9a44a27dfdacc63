#include "xla_lite/service/plan_ordering.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "glog/logging.h"
#include "xla_lite/runtime/command_priorities.h"
#include "xla_lite/service/convolution/dnn_convolution.h"

namespace xla_lite::gpu {
namespace {

// Buffers that are one slice on the device share a key: a parameter's
// buffers (the parameter and the results aliased to it) by its number.
int64_t StorageKey(const LogicalBuffer& buffer) {
  if (buffer.placement == LogicalBuffer::Placement::kParameter) {
    return -1 - buffer.number;
  }
  return buffer.id;
}

// Per storage key: the last op that wrote it and the ops that read it
// since, which is all a later access can conflict with.
struct Accesses {
  int64_t writer = -1;
  std::vector<int64_t> readers;
};

// Per op, the earlier ops it conflicts with on the plan's buffers,
// ascending and each once.
std::vector<std::vector<int64_t>> Conflicts(const ExecutionPlan& plan) {
  std::vector<std::vector<int64_t>> conflicts(plan.ops.size());
  absl::flat_hash_map<int64_t, Accesses> accesses;
  for (int64_t op = 0; op < plan.ops.size(); ++op) {
    std::vector<int64_t>& mine = conflicts[op];
    auto after = [&](int64_t earlier) {
      if (earlier >= 0 && earlier != op) mine.push_back(earlier);
    };
    // An empty buffer has no slice that could conflict on the device.
    std::vector<int> reads, writes;
    for (int b : plan.ops[op].reads) {
      if (plan.buffers[b].size > 0) reads.push_back(b);
    }
    for (int b : plan.ops[op].writes) {
      if (plan.buffers[b].size > 0) writes.push_back(b);
    }
    for (int b : reads) after(accesses[StorageKey(plan.buffers[b])].writer);
    for (int b : writes) {
      const Accesses& a = accesses[StorageKey(plan.buffers[b])];
      after(a.writer);
      for (int64_t reader : a.readers) after(reader);
    }
    for (int b : reads) {
      accesses[StorageKey(plan.buffers[b])].readers.push_back(op);
    }
    for (int b : writes) {
      Accesses& a = accesses[StorageKey(plan.buffers[b])];
      a.writer = op;
      a.readers.clear();
    }
    std::sort(mine.begin(), mine.end());
    mine.erase(std::unique(mine.begin(), mine.end()), mine.end());
  }
  return conflicts;
}

double EstimatedMicros(const ExecutionPlan& plan, const PlannedOp& op) {
  if (op.kind == PlannedOp::Kind::kGemm) {
    const GemmConfig& gemm = op.gemm;
    return gpu::EstimatedMicros(2.0 * gemm.batch * gemm.m * gemm.n * gemm.k,
                                0);
  }
  if (op.kind == PlannedOp::Kind::kWindowKernel && !op.roots.empty() &&
      op.roots[0]->opcode() == HloOpcode::kConvolution) {
    absl::StatusOr<ConvolutionConfig> config =
        ConvolutionConfigFor(*op.roots[0]);
    if (config.ok()) {
      return gpu::EstimatedMicros(ConvolutionFlops(*config), 0);
    }
  }
  double bytes = 0;
  for (int b : op.reads) bytes += plan.buffers[b].size;
  for (int b : op.writes) bytes += plan.buffers[b].size;
  return gpu::EstimatedMicros(0, bytes);
}

// The longest path through `conflicts` and `extra` with each op taking
// `micros`, and its edges.
std::pair<double, std::vector<std::pair<int64_t, int64_t>>> LongestPath(
    const std::vector<double>& micros,
    const std::vector<std::vector<int64_t>>& conflicts,
    const std::vector<std::pair<int64_t, int64_t>>& extra) {
  const int64_t n = micros.size();
  std::vector<std::vector<int64_t>> waits(n);
  for (const auto& [earlier, later] : extra) waits[later].push_back(earlier);
  std::vector<double> finish(n, 0);
  std::vector<int64_t> previous(n, -1);
  int64_t last = -1;
  for (int64_t op = 0; op < n; ++op) {
    double start = 0;
    auto after = [&](const std::vector<int64_t>& earlier_ops) {
      for (int64_t earlier : earlier_ops) {
        if (finish[earlier] > start) {
          start = finish[earlier];
          previous[op] = earlier;
        }
      }
    };
    after(conflicts[op]);
    after(waits[op]);
    finish[op] = start + micros[op];
    if (last < 0 || finish[op] > finish[last]) last = op;
  }
  std::vector<std::pair<int64_t, int64_t>> path;
  for (int64_t op = last; op >= 0 && previous[op] >= 0; op = previous[op]) {
    path.push_back({previous[op], op});
  }
  return {last < 0 ? 0 : finish[last], std::move(path)};
}

}  // namespace

PlanOrdering::PlanOrdering(const ExecutionPlan& plan) {
  const int64_t n = plan.ops.size();
  if (n > kMaxOps) {
    VLOG(1) << plan.name << ": " << n << " ops, more than " << kMaxOps
            << ": temps share bytes by live range alone";
    return;
  }
  conflicts_ = Conflicts(plan);
  const std::vector<std::vector<int64_t>>& conflicts = conflicts_;
  words_ = std::max<int64_t>(1, (n + 63) / 64);
  ancestors_.assign(n * words_, 0);
  for (int64_t op = 0; op < n; ++op) {
    uint64_t* mine = &ancestors_[op * words_];
    for (int64_t earlier : conflicts[op]) {
      const uint64_t* theirs = &ancestors_[earlier * words_];
      for (int64_t w = 0; w < words_; ++w) mine[w] |= theirs[w];
      mine[earlier / 64] |= uint64_t{1} << (earlier % 64);
    }
  }
  for (const PlannedOp& op : plan.ops) {
    micros_.push_back(EstimatedMicros(plan, op));
  }
  critical_ = CriticalCommands(micros_, conflicts, kCriticalSlack);
  protected_ = critical_;
  longest_ = LongestPath(micros_, conflicts_, {}).first;
}

bool PlanOrdering::ExecutesBefore(int64_t a, int64_t b) const {
  if (a >= b || !exact()) return false;
  DCHECK_LT(b, static_cast<int64_t>(critical_.size()));
  return (ancestors_[b * words_ + a / 64] >> (a % 64) & 1) != 0;
}

bool PlanOrdering::Critical(int64_t op) const {
  if (!exact()) return false;
  DCHECK_LT(op, static_cast<int64_t>(critical_.size()));
  return critical_[op];
}

bool PlanOrdering::Protected(int64_t op) const {
  if (!exact()) return false;
  DCHECK_LT(op, static_cast<int64_t>(protected_.size()));
  return protected_[op];
}

void PlanOrdering::Protect(int64_t op) {
  if (exact()) protected_.at(op) = true;
}

std::vector<int64_t> PlanOrdering::DelayedOnLongestPath(
    const std::vector<std::pair<int64_t, int64_t>>& extra) const {
  if (!exact()) return {};
  const auto [longest, path] = LongestPath(micros_, conflicts_, extra);
  if (longest <= longest_ * (1 + kCriticalSlack)) return {};
  std::vector<int64_t> delayed;
  for (const auto& [earlier, later] : path) {
    if (!ExecutesBefore(earlier, later) && !protected_[later]) {
      delayed.push_back(later);
    }
  }
  return delayed;
}

}  // namespace xla_lite::gpu
