#ifndef XLA_LITE_TRAINING_DATA_PARALLEL_PROGRAM_H_
#define XLA_LITE_TRAINING_DATA_PARALLEL_PROGRAM_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "stream_executor/platform.h"
#include "stream_executor/stream_executor.h"
#include "xla_lite/debug_options.pb.h"
#include "xla_lite/hlo/literal.h"
#include "xla_lite/runtime/collective_cliques.h"
#include "xla_lite/runtime/gpu_executable.h"
#include "xla_lite/service/shard_map_partitioner.h"
#include "xla_lite/training/training_loop.h"

namespace xla_lite {

// A training step run on several devices of one platform: the module
// (JAX's global view of a shard_map, or a replicated program) split into
// its per-device program, compiled once, and run by one TrainingLoop per
// device, each on its own thread, through one set of communicators.
// Arguments and results are the global arrays.
class DataParallelProgram : public StepRunner {
 public:
  // Parses, verifies, partitions for `devices` devices and compiles
  // `path`; errors name the file.
  static absl::StatusOr<std::unique_ptr<DataParallelProgram>> Create(
      const std::string& path, se::Platform* platform, int64_t devices,
      const DebugOptions& options, BatchMode batch = BatchMode::kFixed);
  ~DataParallelProgram() override;

  // Splits the global arguments and uploads each device's piece.
  absl::Status SetArguments(const std::vector<Literal>& global);
  // `count` steps on every device at once; returns the slowest device's
  // time in microseconds. A device that fails aborts the communicators,
  // so the others return an error instead of waiting at a collective.
  absl::StatusOr<double> Steps(int64_t count) override;
  absl::StatusOr<double> Step() override { return Steps(1); }
  // The last step's global results.
  absl::StatusOr<std::vector<Literal>> Results() override;
  // The last step's loss (device 0's: the replicated loss is the same).
  absl::StatusOr<std::optional<float>> Loss() override;

  int64_t device_count() const { return loops_.size(); }
  const std::string& name() const { return name_; }
  const gpu::ExecutionStats& stats(int64_t device) const {
    return loops_.at(device)->stats();
  }
  // Every device's counters, added up.
  gpu::ExecutionCounters Counters() const override;
  // The per-device program's signature: which parameters are donated
  // (the same parameter numbers as the global module's).
  const gpu::EntrySignature& signature() const {
    return executable_->signature();
  }
  const gpu::CollectiveCliques& cliques() const { return *cliques_; }
  // The global entry parameters (with their layouts), for reading inputs.
  ComputationLayout global_layout() const {
    return {signature_.global_parameters, Shape::Tuple(signature_.global_results)};
  }

 private:
  DataParallelProgram() = default;

  std::string name_;
  ShardMapSignature signature_;
  std::vector<std::unique_ptr<se::StreamExecutor>> executors_;
  std::unique_ptr<gpu::GpuExecutable> executable_;
  std::unique_ptr<gpu::CollectiveCliques> cliques_;
  std::vector<gpu::CollectiveExecuteParams> device_params_;
  std::vector<std::unique_ptr<TrainingLoop>> loops_;
};

}  // namespace xla_lite

#endif  // XLA_LITE_TRAINING_DATA_PARALLEL_PROGRAM_H_
