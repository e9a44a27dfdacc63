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
    const PlannedOp& planned = plan.ops[op];
    for (int b : planned.reads) {
      after(accesses[StorageKey(plan.buffers[b])].writer);
    }
    for (int b : planned.writes) {
      const Accesses& a = accesses[StorageKey(plan.buffers[b])];
      after(a.writer);
      for (int64_t reader : a.readers) after(reader);
    }
    for (int b : planned.reads) {
      accesses[StorageKey(plan.buffers[b])].readers.push_back(op);
    }
    for (int b : planned.writes) {
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
            << ": temps share bytes by position alone";
    return;
  }
  const std::vector<std::vector<int64_t>> conflicts = Conflicts(plan);
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
  std::vector<double> micros;
  for (const PlannedOp& op : plan.ops) {
    micros.push_back(EstimatedMicros(plan, op));
  }
  critical_ = CriticalCommands(micros, conflicts, kCriticalSlack);
}

bool PlanOrdering::ExecutesBefore(int64_t a, int64_t b) const {
  if (a >= b) return false;
  if (!exact()) return true;
  return (ancestors_[b * words_ + a / 64] >> (a % 64) & 1) != 0;
}

bool PlanOrdering::Critical(int64_t op) const {
  return exact() && critical_[op];
}

}  // namespace xla_lite::gpu
