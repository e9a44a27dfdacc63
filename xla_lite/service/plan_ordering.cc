#include "xla_lite/service/plan_ordering.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "glog/logging.h"
#include "xla_lite/runtime/command_dependencies.h"
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

}  // namespace

PlanOrdering::PlanOrdering(const ExecutionPlan& plan) {
  const int64_t n = plan.ops.size();
  if (n > kMaxOps) {
    VLOG(1) << plan.name << ": " << n << " ops, more than " << kMaxOps
            << ": temps share bytes by live range alone";
    return;
  }
  conflicts_ = Conflicts(plan);
  words_ = std::max<int64_t>(1, (n + 63) / 64);
  ancestors_.assign(n * words_, 0);
  for (int64_t op = 0; op < n; ++op) {
    uint64_t* mine = &ancestors_[op * words_];
    for (int64_t earlier : conflicts_[op]) {
      const uint64_t* theirs = &ancestors_[earlier * words_];
      for (int64_t w = 0; w < words_; ++w) mine[w] |= theirs[w];
      mine[earlier / 64] |= uint64_t{1} << (earlier % 64);
    }
  }
  for (const PlannedOp& op : plan.ops) {
    micros_.push_back(EstimatedMicros(plan, op));
  }
  protected_ = CriticalCommands(micros_, conflicts_, kCriticalSlack);
  longest_ = FindLongestPath(micros_, conflicts_).micros;
}

bool PlanOrdering::ExecutesBefore(int64_t a, int64_t b) const {
  if (a >= b || !exact()) return false;
  DCHECK_LT(b, static_cast<int64_t>(protected_.size()));
  return (ancestors_[b * words_ + a / 64] >> (a % 64) & 1) != 0;
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
  std::vector<std::vector<int64_t>> dependencies = conflicts_;
  for (const auto& [earlier, later] : extra) {
    dependencies[later].push_back(earlier);
  }
  const LongestPath longest = FindLongestPath(micros_, dependencies);
  if (longest.micros <= longest_ * (1 + kCriticalSlack)) return {};
  std::vector<int64_t> delayed;
  for (int64_t i = 1; i < longest.commands.size(); ++i) {
    const int64_t earlier = longest.commands[i - 1];
    const int64_t later = longest.commands[i];
    if (!ExecutesBefore(earlier, later) && !protected_[later]) {
      delayed.push_back(later);
    }
  }
  return delayed;
}

}  // namespace xla_lite::gpu
