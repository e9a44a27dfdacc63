#include "xla_lite/tools/step_runner.h"

#include <cstring>
#include <utility>

#include "absl/memory/memory.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "glog/logging.h"
#include "xla_lite/runtime/execution_input.h"
#include "xla_lite/runtime/run_options.h"

namespace xla_lite {
namespace {

// Logical dimensions from most major to most minor in `layout`.
std::vector<int64_t> MajorToMinor(const Shape& layout) {
  const std::vector<int64_t>& m2m = layout.minor_to_major();
  if (m2m.size() != layout.rank()) {
    std::vector<int64_t> order;
    for (int64_t d = 0; d < layout.rank(); ++d) order.push_back(d);
    return order;
  }
  return std::vector<int64_t>(m2m.rbegin(), m2m.rend());
}

// For each logical (row-major) element, its index in the physical array.
std::vector<int64_t> PhysicalIndices(const Shape& layout) {
  const std::vector<int64_t>& dims = layout.dimensions();
  std::vector<int64_t> order = MajorToMinor(layout);
  // Stride, in the physical array, of each logical dimension.
  std::vector<int64_t> stride(dims.size());
  int64_t s = 1;
  for (int64_t j = static_cast<int64_t>(order.size()) - 1; j >= 0; --j) {
    stride[order[j]] = s;
    s *= dims[order[j]];
  }
  int64_t count = layout.ElementCount();
  std::vector<int64_t> indices(count);
  std::vector<int64_t> coordinate(dims.size(), 0);
  for (int64_t i = 0; i < count; ++i) {
    int64_t physical = 0;
    for (int64_t d = 0; d < dims.size(); ++d) physical += coordinate[d] * stride[d];
    indices[i] = physical;
    for (int64_t d = static_cast<int64_t>(dims.size()) - 1; d >= 0; --d) {
      if (++coordinate[d] < dims[d]) break;
      coordinate[d] = 0;
    }
  }
  return indices;
}

bool IsRowMajor(const Shape& layout) {
  std::vector<int64_t> order = MajorToMinor(layout);
  for (int64_t j = 0; j < order.size(); ++j) {
    if (order[j] != j) return false;
  }
  return true;
}

std::vector<Shape> ResultShapes(const ComputationLayout& layout) {
  if (layout.result_shape.IsTuple()) return layout.result_shape.tuple_shapes();
  return {layout.result_shape};
}

}  // namespace

absl::StatusOr<std::vector<uint8_t>> ToPhysicalBytes(const Literal& literal,
                                                     const Shape& layout) {
  if (!literal.shape().Compatible(layout)) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected ", layout.ToString(), ", got ",
                     literal.shape().ToString()));
  }
  if (IsRowMajor(layout)) return literal.bytes();
  int64_t width = gpu::ByteWidth(layout.element_type());
  std::vector<uint8_t> bytes(literal.bytes().size());
  std::vector<int64_t> indices = PhysicalIndices(layout);
  for (int64_t i = 0; i < indices.size(); ++i) {
    std::memcpy(&bytes[indices[i] * width], &literal.bytes()[i * width], width);
  }
  return bytes;
}

absl::StatusOr<Literal> FromPhysicalBytes(const std::vector<uint8_t>& bytes,
                                          const Shape& layout) {
  Shape logical = Shape::Array(layout.element_type(), layout.dimensions());
  if (bytes.size() != logical.ByteSize()) {
    return absl::InvalidArgumentError(
        absl::StrCat(bytes.size(), " bytes cannot hold ", layout.ToString()));
  }
  if (IsRowMajor(layout)) return Literal(logical, bytes);
  int64_t width = gpu::ByteWidth(layout.element_type());
  Literal literal(logical);
  std::vector<int64_t> indices = PhysicalIndices(layout);
  for (int64_t i = 0; i < indices.size(); ++i) {
    std::memcpy(&literal.mutable_bytes()[i * width], &bytes[indices[i] * width],
                width);
  }
  return literal;
}

absl::StatusOr<std::unique_ptr<StepRunner>> StepRunner::Create(
    gpu::GpuExecutable* executable, ComputationLayout layout,
    se::StreamExecutor* executor) {
  const gpu::EntrySignature& signature = executable->signature();
  if (layout.parameter_shapes.size() != signature.parameter_shapes.size() ||
      ResultShapes(layout).size() != signature.output_shapes.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        executable->module_name(),
        ": the entry layout does not match the executable's signature"));
  }
  ASSIGN_OR_RETURN(std::unique_ptr<se::Stream> stream, executor->CreateStream());
  return absl::WrapUnique(new StepRunner(executable, std::move(layout),
                                         executor, std::move(stream)));
}

StepRunner::StepRunner(gpu::GpuExecutable* executable, ComputationLayout layout,
                       se::StreamExecutor* executor,
                       std::unique_ptr<se::Stream> stream)
    : executable_(executable),
      layout_(std::move(layout)),
      executor_(executor),
      stream_(std::move(stream)),
      allocator_(std::make_unique<se::StreamExecutorAllocator>(executor)) {
  const gpu::EntrySignature& signature = executable->signature();
  feeds_.resize(signature.output_shapes.size());
  for (const gpu::InputOutputAlias& alias : signature.aliases) {
    feeds_[alias.output_index] = alias.parameter_number;
  }
}

StepRunner::~StepRunner() {
  // Buffers may still be in use by queued steps.
  absl::Status status = stream_->BlockHostUntilDone();
  if (!status.ok()) LOG(ERROR) << "step runner teardown: " << status;
  last_output_ = gpu::ExecutionOutput();
  // Cached buffers came from this runner's allocator, which dies with it.
  status = executable_->ReleaseCachedAllocations();
  if (!status.ok()) LOG(ERROR) << "step runner teardown: " << status;
  status = executable_->WaitForOutstandingWork();
  if (!status.ok()) LOG(ERROR) << "step runner teardown: " << status;
}

absl::Status StepRunner::SetArguments(const std::vector<Literal>& arguments) {
  const std::vector<Shape>& shapes = layout_.parameter_shapes;
  if (arguments.size() != shapes.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat(executable_->module_name(), ": expected ", shapes.size(),
                     " arguments, got ", arguments.size()));
  }
  RETURN_IF_ERROR(stream_->BlockHostUntilDone());
  std::vector<se::ScopedDeviceAddress> buffers;
  for (int64_t p = 0; p < shapes.size(); ++p) {
    absl::StatusOr<std::vector<uint8_t>> bytes =
        ToPhysicalBytes(arguments[p], shapes[p]);
    if (!bytes.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          executable_->module_name(), ": parameter ", p, ": ",
          bytes.status().message()));
    }
    ASSIGN_OR_RETURN(se::ScopedDeviceAddress buffer,
                     allocator_->Allocate(executor_->device_ordinal(),
                                          bytes->size()));
    if (!bytes->empty()) {
      RETURN_IF_ERROR(executor_->SynchronousMemcpyH2D(
          bytes->data(), bytes->size(), buffer.ptr()));
    }
    buffers.push_back(std::move(buffer));
  }
  parameters_ = std::move(buffers);
  last_output_ = gpu::ExecutionOutput();
  steps_run_ = 0;
  return absl::OkStatus();
}

absl::Status StepRunner::Step() {
  std::vector<bool> donated(parameters_.size(), false);
  for (const std::optional<int64_t>& p : feeds_) {
    if (p.has_value()) donated[*p] = true;
  }
  std::vector<gpu::ExecutionInput> inputs;
  for (int64_t p = 0; p < parameters_.size(); ++p) {
    inputs.push_back(donated[p]
                         ? gpu::ExecutionInput::Donated(std::move(parameters_[p]))
                         : gpu::ExecutionInput::Borrowed(parameters_[p].cref()));
  }
  gpu::RunOptions options;
  options.stream = stream_.get();
  options.allocator = allocator_.get();
  ASSIGN_OR_RETURN(last_output_,
                   executable_->ExecuteAsyncOnStream(options, std::move(inputs)));
  for (int64_t i = 0; i < feeds_.size(); ++i) {
    if (feeds_[i].has_value()) {
      parameters_[*feeds_[i]] = last_output_.TakeResult(i);
    }
  }
  ++steps_run_;
  return absl::OkStatus();
}

absl::Status StepRunner::Run(int64_t steps) {
  if (parameters_.size() != layout_.parameter_shapes.size()) {
    return absl::FailedPreconditionError(
        absl::StrCat(executable_->module_name(), ": no arguments set"));
  }
  for (int64_t s = 0; s < steps; ++s) {
    absl::Status status = Step();
    if (!status.ok()) {
      return absl::Status(status.code(), absl::StrCat("step ", steps_run_ + 1,
                                                      ": ", status.message()));
    }
  }
  VLOG(1) << executable_->module_name() << ": ran " << steps << " steps";
  return stream_->BlockHostUntilDone();
}

absl::StatusOr<std::vector<Literal>> StepRunner::DownloadResults() {
  if (steps_run_ == 0) {
    return absl::FailedPreconditionError(
        absl::StrCat(executable_->module_name(), ": no step has run"));
  }
  RETURN_IF_ERROR(stream_->BlockHostUntilDone());
  std::vector<Shape> shapes = ResultShapes(layout_);
  std::vector<Literal> results;
  for (int64_t i = 0; i < shapes.size(); ++i) {
    const se::DeviceAddressBase& buffer =
        feeds_[i].has_value() ? parameters_[*feeds_[i]].cref()
                              : last_output_.result(i);
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

}  // namespace xla_lite
