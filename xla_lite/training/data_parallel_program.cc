#include "xla_lite/training/data_parallel_program.h"

#include <algorithm>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "glog/logging.h"
#include "xla_lite/hlo/hlo_parser.h"
#include "xla_lite/hlo/hlo_verifier.h"
#include "xla_lite/service/compiler.h"

namespace xla_lite {
namespace {

absl::Status InFile(const std::string& path, const absl::Status& status) {
  if (status.ok()) return status;
  return absl::Status(status.code(),
                      absl::StrCat(path, ": ", status.message()));
}

// Runs `fn(d)` for every device on its own thread; the first error wins.
absl::Status OnEveryDevice(int64_t devices,
                           const std::function<absl::Status(int64_t)>& fn) {
  std::vector<absl::Status> status(devices);
  std::vector<std::thread> threads;
  for (int64_t d = 0; d < devices; ++d) {
    threads.emplace_back([&, d] { status[d] = fn(d); });
  }
  for (std::thread& thread : threads) thread.join();
  for (int64_t d = 0; d < devices; ++d) {
    if (!status[d].ok()) {
      return absl::Status(status[d].code(), absl::StrCat("device ", d, ": ",
                                                         status[d].message()));
    }
  }
  return absl::OkStatus();
}

}  // namespace

DataParallelProgram::~DataParallelProgram() {
  // The loops release the executable's buffers on their devices first.
  loops_.clear();
}

absl::StatusOr<std::unique_ptr<DataParallelProgram>>
DataParallelProgram::Create(const std::string& path, se::Platform* platform,
                            int64_t devices, const DebugOptions& options,
                            BatchMode batch) {
  if (devices < 1 || devices > platform->VisibleDeviceCount()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--devices=", devices, ": platform ", platform->Name(), " has ",
        platform->VisibleDeviceCount(), " device(s)"));
  }
  auto program = absl::WrapUnique(new DataParallelProgram());
  ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module, ParseHloModuleFile(path));
  RETURN_IF_ERROR(InFile(path, VerifyHloModule(*module)));
  program->name_ = module->name();
  absl::StatusOr<ShardMapSignature> signature =
      PartitionShardMapModule(module.get(), devices);
  RETURN_IF_ERROR(InFile(path, signature.status()));
  program->signature_ = *std::move(signature);
  for (int64_t d = 0; d < devices; ++d) {
    se::StreamExecutorConfig config;
    config.device_ordinal = d;
    config.kernel_cache_dir = options.xla_gpu_kernel_cache_dir();
    config.allow_tf32 = options.xla_gpu_allow_tf32();
    if (platform->Name() == "host") {
      config.memory_limit_bytes = options.xla_gpu_host_memory_limit_bytes();
    }
    ASSIGN_OR_RETURN(std::unique_ptr<se::StreamExecutor> executor,
                     platform->CreateExecutor(config));
    program->executors_.push_back(std::move(executor));
  }
  const ComputationLayout layout = module->entry_computation_layout();
  absl::StatusOr<std::unique_ptr<gpu::GpuExecutable>> executable =
      Compile(std::move(module), program->executors_[0].get(), options);
  RETURN_IF_ERROR(InFile(path, executable.status()));
  program->executable_ = *std::move(executable);
  std::vector<se::StreamExecutor*> raw;
  for (auto& executor : program->executors_) raw.push_back(executor.get());
  se::CollectiveOptions collective_options;
  if (options.xla_gpu_collective_timeout_seconds() > 0) {
    collective_options.timeout =
        absl::Seconds(options.xla_gpu_collective_timeout_seconds());
  }
  program->cliques_ = std::make_unique<gpu::CollectiveCliques>(
      raw, program->signature_.topology, collective_options);
  program->device_params_.resize(devices);
  for (int64_t d = 0; d < devices; ++d) {
    program->device_params_[d] = {d, program->cliques_.get()};
    ASSIGN_OR_RETURN(std::unique_ptr<TrainingLoop> loop,
                     TrainingLoop::Create(program->executable_.get(), layout,
                                          raw[d], batch));
    loop->set_collectives(&program->device_params_[d]);
    program->loops_.push_back(std::move(loop));
  }
  VLOG(1) << program->name_ << ": data parallel over " << devices << " "
          << platform->Name() << " devices";
  return program;
}

absl::Status DataParallelProgram::SetArguments(
    const std::vector<Literal>& global) {
  ASSIGN_OR_RETURN(std::vector<std::vector<Literal>> local,
                   SplitGlobalArguments(signature_, global));
  for (size_t d = 0; d < loops_.size(); ++d) {
    RETURN_IF_ERROR(loops_[d]->SetArguments(local[d]));
  }
  return absl::OkStatus();
}

absl::StatusOr<double> DataParallelProgram::Steps(int64_t count) {
  std::vector<double> micros(loops_.size(), 0);
  absl::Status status = OnEveryDevice(loops_.size(), [&](int64_t d) {
    absl::StatusOr<double> time = loops_[d]->Steps(count);
    if (!time.ok()) {
      cliques_->AbortAll(time.status());
      return time.status();
    }
    micros[d] = *time;
    return absl::OkStatus();
  });
  RETURN_IF_ERROR(status);
  return *std::max_element(micros.begin(), micros.end());
}

absl::StatusOr<std::vector<Literal>> DataParallelProgram::Results() {
  std::vector<std::vector<Literal>> per_device;
  for (auto& loop : loops_) {
    ASSIGN_OR_RETURN(std::vector<Literal> results, loop->Results());
    per_device.push_back(std::move(results));
  }
  return GatherGlobalResults(signature_, per_device);
}

gpu::ExecutionCounters DataParallelProgram::Counters() const {
  gpu::ExecutionCounters total;
  for (const auto& loop : loops_) total = total + loop->stats().Snapshot();
  return total;
}

absl::StatusOr<std::optional<float>> DataParallelProgram::Loss() {
  return loops_.at(0)->Loss();
}

}  // namespace xla_lite
