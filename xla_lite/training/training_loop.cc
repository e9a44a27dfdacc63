#include "xla_lite/training/training_loop.h"

#include <cmath>
#include <random>
#include <utility>

#include "absl/memory/memory.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/host_memory.h"
#include "base/status_macros.h"
#include "glog/logging.h"
#include "xla_lite/hlo/npy.h"
#include "xla_lite/primitive_util.h"
#include "xla_lite/training/physical_layout.h"

namespace xla_lite {
namespace {

// Larger than any trace cache DebugOptions sets up by default, so that a
// moving batch's address is one no cached trace was made for.
constexpr int kRingSize = 32;

std::vector<Shape> ResultShapes(const ComputationLayout& layout) {
  if (layout.result_shape.IsTuple()) return layout.result_shape.tuple_shapes();
  return {layout.result_shape};
}

}  // namespace

absl::StatusOr<BatchMode> ParseBatchMode(const std::string& name) {
  if (name == "moving") return BatchMode::kMoving;
  if (name == "fixed") return BatchMode::kFixed;
  if (name == "staged") return BatchMode::kStaged;
  return absl::InvalidArgumentError(absl::StrCat(
      "--batch must be moving, fixed or staged, got '", name, "'"));
}

const char* BatchModeName(BatchMode mode) {
  switch (mode) {
    case BatchMode::kMoving:
      return "moving";
    case BatchMode::kFixed:
      return "fixed";
    case BatchMode::kStaged:
      return "staged";
  }
  return "?";
}

absl::StatusOr<std::unique_ptr<TrainingLoop>> TrainingLoop::Create(
    gpu::GpuExecutable* executable, ComputationLayout layout,
    se::StreamExecutor* executor, BatchMode batch_mode) {
  const gpu::EntrySignature& signature = executable->signature();
  if (layout.parameter_shapes.size() != signature.parameter_shapes.size() ||
      ResultShapes(layout).size() != signature.output_shapes.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        executable->module_name(),
        ": the entry layout does not match the executable's signature"));
  }
  ASSIGN_OR_RETURN(se::StreamPool::Ptr stream, executor->BorrowStream());
  return absl::WrapUnique(new TrainingLoop(executable, std::move(layout),
                                           executor, batch_mode,
                                           std::move(stream)));
}

TrainingLoop::TrainingLoop(gpu::GpuExecutable* executable,
                           ComputationLayout layout,
                           se::StreamExecutor* executor, BatchMode batch_mode,
                           se::StreamPool::Ptr stream)
    : executable_(executable),
      layout_(std::move(layout)),
      executor_(executor),
      batch_mode_(batch_mode),
      stream_(std::move(stream)),
      allocator_(std::make_unique<se::StreamExecutorAllocator>(executor)),
      stats_(std::make_shared<gpu::ExecutionStats>()) {
  const gpu::EntrySignature& signature = executable->signature();
  fed_by_.resize(signature.parameter_shapes.size());
  feeds_.resize(signature.output_shapes.size());
  for (const gpu::InputOutputAlias& alias : signature.aliases) {
    feeds_[alias.output_index] = alias.parameter_number;
    fed_by_[alias.parameter_number] = alias.output_index;
  }
  for (int64_t i = 0; i < signature.output_shapes.size(); ++i) {
    const Shape& shape = signature.output_shapes[i];
    if (!feeds_[i].has_value() && shape.rank() == 0 &&
        shape.element_type() == PrimitiveType::F32) {
      loss_output_ = i;
      break;
    }
  }
}

TrainingLoop::~TrainingLoop() {
  // Buffers may still be in use by queued steps.
  absl::Status status = stream_->BlockHostUntilDone();
  if (!status.ok()) LOG(ERROR) << "training loop teardown: " << status;
  last_output_ = gpu::ExecutionOutput();
  // Cached buffers came from this loop's allocator, which dies with it.
  status = executable_->ReleaseCachedAllocations();
  if (!status.ok()) LOG(ERROR) << "training loop teardown: " << status;
}

absl::Status TrainingLoop::SetArguments(const std::vector<Literal>& arguments) {
  const std::vector<Shape>& shapes = layout_.parameter_shapes;
  if (arguments.size() != shapes.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat(executable_->module_name(), ": expected ", shapes.size(),
                     " arguments, got ", arguments.size()));
  }
  RETURN_IF_ERROR(stream_->BlockHostUntilDone());
  buffers_.clear();
  rings_.clear();
  rings_.resize(shapes.size());
  for (int64_t p = 0; p < shapes.size(); ++p) {
    absl::StatusOr<std::vector<uint8_t>> bytes =
        ToPhysicalBytes(arguments[p], shapes[p]);
    if (!bytes.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(executable_->module_name(), ": parameter ", p, ": ",
                       bytes.status().message()));
    }
    int ordinal = executor_->device_ordinal();
    ASSIGN_OR_RETURN(se::ScopedDeviceAddress buffer,
                     allocator_->Allocate(ordinal, bytes->size()));
    if (!bytes->empty()) {
      RETURN_IF_ERROR(executor_->SynchronousMemcpyH2D(
          bytes->data(), bytes->size(), buffer.ptr()));
    }
    buffers_.push_back(std::move(buffer));
    if (fed_by_[p].has_value() || batch_mode_ != BatchMode::kMoving) continue;
    for (int i = 0; i < kRingSize; ++i) {
      ASSIGN_OR_RETURN(se::ScopedDeviceAddress slot,
                       allocator_->Allocate(ordinal, bytes->size()));
      rings_[p].push_back(std::move(slot));
    }
  }
  last_output_ = gpu::ExecutionOutput();
  steps_run_ = 0;
  return absl::OkStatus();
}

absl::StatusOr<se::DeviceAddressBase> TrainingLoop::BatchBuffer(
    int64_t parameter) {
  se::DeviceAddressBase master = buffers_[parameter].cref();
  se::DeviceAddressBase target;
  switch (batch_mode_) {
    case BatchMode::kFixed:
      return master;
    case BatchMode::kMoving:
      target = rings_[parameter][steps_run_ % kRingSize].cref();
      break;
    case BatchMode::kStaged: {
      gpu::RunOptions options;
      options.stream = stream_.get();
      options.allocator = allocator_.get();
      ASSIGN_OR_RETURN(target,
                       executable_->StableParameterBuffer(options, parameter));
      break;
    }
  }
  // The loader's copy, on the stream: the previous step may still read it.
  if (master.size() > 0) {
    RETURN_IF_ERROR(stream_->Memcpy(&target, master, master.size()));
  }
  return target;
}

absl::Status TrainingLoop::Enqueue() {
  if (buffers_.size() != layout_.parameter_shapes.size()) {
    return absl::FailedPreconditionError("SetArguments first");
  }
  std::vector<gpu::ExecutionInput> inputs;
  for (int64_t p = 0; p < buffers_.size(); ++p) {
    if (fed_by_[p].has_value()) {
      inputs.push_back(gpu::ExecutionInput::Donated(std::move(buffers_[p])));
      continue;
    }
    ASSIGN_OR_RETURN(se::DeviceAddressBase batch, BatchBuffer(p));
    inputs.push_back(gpu::ExecutionInput::Borrowed(batch));
  }
  gpu::RunOptions options;
  options.stream = stream_.get();
  options.allocator = allocator_.get();
  options.stats = stats_;
  options.profiler = profiler_;
  options.collectives = collectives_;
  absl::StatusOr<gpu::ExecutionOutput> output =
      executable_->ExecuteAsyncOnStream(options, std::move(inputs));
  if (!output.ok()) {
    // The donated parameters went with the failed step.
    buffers_.clear();
    return output.status();
  }
  last_output_ = *std::move(output);
  for (int64_t i = 0; i < feeds_.size(); ++i) {
    if (feeds_[i].has_value()) buffers_[*feeds_[i]] = last_output_.TakeResult(i);
  }
  ++steps_run_;
  return absl::OkStatus();
}

absl::StatusOr<double> TrainingLoop::Step() { return Steps(1); }

absl::StatusOr<double> TrainingLoop::Steps(int64_t count) {
  absl::Time start = absl::Now();
  for (int64_t i = 0; i < count; ++i) RETURN_IF_ERROR(Enqueue());
  RETURN_IF_ERROR(stream_->BlockHostUntilDone());
  return absl::ToDoubleMicroseconds(absl::Now() - start);
}

absl::StatusOr<std::optional<float>> TrainingLoop::Loss() {
  if (!loss_output_.has_value() || steps_run_ == 0) return std::nullopt;
  float loss = 0;
  RETURN_IF_ERROR(executor_->SynchronousMemcpyD2H(
      last_output_.result(*loss_output_), sizeof(float), &loss));
  return loss;
}

absl::StatusOr<std::vector<Literal>> TrainingLoop::Results() {
  RETURN_IF_ERROR(stream_->BlockHostUntilDone());
  std::vector<Shape> shapes = ResultShapes(layout_);
  std::vector<Literal> results;
  for (int64_t i = 0; i < shapes.size(); ++i) {
    se::DeviceAddressBase buffer = feeds_[i].has_value()
                                       ? buffers_[*feeds_[i]].cref()
                                       : last_output_.result(i);
    RETURN_IF_ERROR(base::CheckHostAllocation(
        buffer.size(), absl::StrCat("result ", i)));
    std::vector<uint8_t> bytes(buffer.size());
    if (!bytes.empty()) {
      RETURN_IF_ERROR(
          executor_->SynchronousMemcpyD2H(buffer, bytes.size(), bytes.data()));
    }
    ASSIGN_OR_RETURN(Literal literal, FromPhysicalBytes(bytes, shapes[i]));
    results.push_back(std::move(literal));
  }
  return results;
}

namespace {

// The first fed parameter that is optimizer state: optax's states mirror
// the parameter tree, so after the parameters the fed arrays repeat their
// shapes, in order, once per state (Adam: twice). Scalars (step counts)
// are left out of the match. Without such a repeat, every fed parameter is
// a parameter.
int64_t FirstOptimizerState(const std::vector<int64_t>& fed_arrays,
                            const ComputationLayout& layout) {
  const int64_t n = fed_arrays.size();
  auto shape = [&](int64_t i) -> const Shape& {
    return layout.parameter_shapes[fed_arrays[i]];
  };
  for (int64_t period = 1; 2 * period <= n; ++period) {
    bool repeats = n % period == 0;
    for (int64_t i = period; repeats && i < n; ++i) {
      repeats = shape(i) == shape(i % period);
    }
    if (repeats) return fed_arrays[period];
  }
  return layout.parameter_shapes.size();
}

}  // namespace

absl::StatusOr<std::vector<Literal>> SeededArguments(
    const ComputationLayout& layout, const gpu::EntrySignature& signature,
    uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<bool> fed(layout.parameter_shapes.size(), false);
  for (const gpu::InputOutputAlias& alias : signature.aliases) {
    fed[alias.parameter_number] = true;
  }
  int64_t labels = -1;
  std::vector<int64_t> fed_arrays;
  for (int64_t p = 0; p < fed.size(); ++p) {
    const Shape& shape = layout.parameter_shapes[p];
    if (!fed[p] && shape.rank() == 2 &&
        primitive_util::IsFloatingPointType(shape.element_type())) {
      labels = p;
    }
    if (fed[p] && shape.rank() > 0) fed_arrays.push_back(p);
  }
  const int64_t first_state = FirstOptimizerState(fed_arrays, layout);
  std::vector<Literal> arguments;
  for (int64_t p = 0; p < fed.size(); ++p) {
    const Shape& shape = layout.parameter_shapes[p];
    ASSIGN_OR_RETURN(Literal literal,
                     Literal::Create(Shape::Array(shape.element_type(),
                                                  shape.dimensions())));
    int64_t n = literal.element_count();
    if (p == labels) {
      int64_t classes = shape.dimensions(1);
      if (classes == 0) {  // no elements, and no class to pick
        arguments.push_back(std::move(literal));
        continue;
      }
      for (int64_t row = 0; row < shape.dimensions(0); ++row) {
        literal.SetFromDouble(row * classes + rng() % classes, 1.0);
      }
    } else if (!fed[p] && primitive_util::IsIntegralType(shape.element_type())) {
      // Token ids, class ids, trip counts: small and non-negative, so they
      // index any table of kSeededIntegerRange rows and bound any loop.
      for (int64_t i = 0; i < n; ++i) {
        literal.SetFromDouble(i, rng() % kSeededIntegerRange);
      }
    } else if (!fed[p] || (shape.rank() >= 2 && p < first_state)) {
      double scale = fed[p] ? 1.0 / std::sqrt(double(shape.dimensions(0))) : 1;
      std::uniform_real_distribution<double> dist(-scale, scale);
      for (int64_t i = 0; i < n; ++i) literal.SetFromDouble(i, dist(rng));
    }
    arguments.push_back(std::move(literal));
  }
  return arguments;
}

absl::StatusOr<std::vector<Literal>> ReadArguments(
    const std::string& dir, const ComputationLayout& layout) {
  std::vector<Literal> arguments;
  for (int64_t p = 0; p < layout.parameter_shapes.size(); ++p) {
    std::string path = absl::StrFormat("%s/input_%d.npy", dir, p);
    absl::StatusOr<Literal> literal = ReadNpyFile(path);
    if (!literal.ok()) {
      return absl::Status(literal.status().code(),
                          absl::StrCat("input for parameter ", p, ": ",
                                       literal.status().message()));
    }
    const Shape& expected = layout.parameter_shapes[p];
    // Exporters write a scalar as shape (1,): the same one element.
    if (expected.rank() == 0 && literal->element_count() == 1 &&
        literal->shape().element_type() == expected.element_type()) {
      *literal = Literal(Shape::Array(expected.element_type(), {}),
                         literal->bytes());
    }
    if (!literal->shape().Compatible(expected)) {
      return absl::InvalidArgumentError(absl::StrCat(
          path, " holds ", literal->shape().ToString(),
          " but entry parameter ", p, " is ", expected.ToString()));
    }
    arguments.push_back(*std::move(literal));
  }
  return arguments;
}

absl::StatusOr<std::vector<Literal>> ReadOrSeedArguments(
    const std::string& dir, const ComputationLayout& layout,
    const gpu::EntrySignature& signature, uint32_t seed) {
  if (dir.empty()) return SeededArguments(layout, signature, seed);
  return ReadArguments(dir, layout);
}

}  // namespace xla_lite
