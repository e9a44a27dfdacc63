#include "stream_executor/gpu/gpu_executor.h"

#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/status_macros.h"
#include "glog/logging.h"
#include "stream_executor/gpu/gpu_blas.h"
#include "stream_executor/gpu/gpu_command_buffer.h"
#include "stream_executor/gpu/gpu_dnn.h"
#include "stream_executor/gpu/gpu_event.h"
#include "stream_executor/gpu/gpu_platform.h"
#include "stream_executor/gpu/gpu_status.h"
#include "stream_executor/gpu/gpu_stream.h"

namespace stream_executor::gpu {

absl::StatusOr<std::unique_ptr<GpuExecutor>> GpuExecutor::Create(
    const Platform* platform, const GpuBackend& backend, const GpuApi& api,
    const StreamExecutorConfig& config) {
  if (config.memory_limit_bytes < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "memory_limit_bytes must be >= 0, got ", config.memory_limit_bytes));
  }
  int ordinal = config.device_ordinal;
  // Also creates the device's primary context on first use.
  RETURN_IF_ERROR(ToStatus(api, api.set_device(ordinal),
                           absl::StrCat("set device ", ordinal)));
  GpuDeviceProperties props;
  RETURN_IF_ERROR(ToStatus(api, api.get_device_properties(ordinal, &props),
                           absl::StrCat("device properties of ", ordinal)));
  char version[128] = {};
  RETURN_IF_ERROR(ToStatus(api, api.version_string(version, sizeof(version)),
                           "version query"));

  DeviceDescription description;
  description.name = props.name;
  description.arch = props.arch;
  description.compute_major = props.compute_major;
  description.compute_minor = props.compute_minor;
  description.memory_bytes = static_cast<int64_t>(props.total_memory);
  description.core_count = props.multiprocessor_count;
  description.runtime_version = version;

  VLOG(1) << "Created " << api.display_name << " executor for device "
          << ordinal << ": " << description.name << " (" << description.arch
          << ", " << description.core_count << " SMs, "
          << (description.memory_bytes >> 20) << " MiB, "
          << description.runtime_version << ")"
          << (config.memory_limit_bytes > 0
                  ? absl::StrCat(", limit ", config.memory_limit_bytes,
                                 " bytes")
                  : "")
          << (config.kernel_cache_dir.empty()
                  ? ""
                  : absl::StrCat(", kernel cache ", config.kernel_cache_dir));
  return std::unique_ptr<GpuExecutor>(
      new GpuExecutor(platform, backend, api, config, std::move(description)));
}

GpuExecutor::GpuExecutor(const Platform* platform, const GpuBackend& backend,
                         const GpuApi& api, const StreamExecutorConfig& config,
                         DeviceDescription description)
    : platform_(platform),
      backend_(backend),
      api_(api),
      config_(config),
      description_(std::move(description)),
      kernel_cache_(backend.load_compiler, config.kernel_cache_dir) {}

GpuExecutor::~GpuExecutor() {
  absl::Status status = Activate();
  if (!status.ok()) LOG(ERROR) << "Destroying executor: " << status;
  ClearStreamPool();
  {
    absl::MutexLock lock(&streams_mu_);
    if (!streams_.empty()) {
      LOG(ERROR) << "Destroying executor of device " << device_ordinal()
                 << " with " << streams_.size() << " live streams";
    }
  }
  // The library handle and modules may be in use by queued work.
  status = ToStatus(api_, api_.device_synchronize(), "device synchronize");
  if (!status.ok()) LOG(ERROR) << "Destroying executor: " << status;
  {
    absl::MutexLock lock(&blas_mu_);
    blas_.reset();
  }
  {
    absl::MutexLock lock(&dnn_mu_);
    dnn_.reset();
  }
  {
    absl::MutexLock lock(&modules_mu_);
    modules_.clear();
  }
  absl::MutexLock lock(&mu_);
  if (!allocations_.empty()) {
    LOG(WARNING) << "Executor of device " << device_ordinal() << " leaked "
                 << allocations_.size() << " allocations (" << allocated_bytes_
                 << " bytes); freeing them";
    for (const auto& [ptr, size] : allocations_) api_.mem_free(ptr);
  }
}

absl::Status GpuExecutor::Activate() const {
  return ToStatus(api_, api_.set_device(config_.device_ordinal), "set device");
}

absl::StatusOr<DeviceAddressBase> GpuExecutor::Allocate(uint64_t size) {
  if (size == 0) return DeviceAddressBase();
  RETURN_IF_ERROR(capture_tracker_.CheckMayAllocate(size, device_ordinal()));
  {
    absl::MutexLock lock(&mu_);
    int64_t limit = config_.memory_limit_bytes;
    if (limit > 0 && (size > static_cast<uint64_t>(limit) ||
                      allocated_bytes_ > limit - static_cast<int64_t>(size))) {
      return absl::ResourceExhaustedError(absl::StrFormat(
          "Allocate(%d) on device %d exceeds the executor's memory limit: %d "
          "of %d bytes in use",
          size, device_ordinal(), allocated_bytes_, limit));
    }
    // Reserved now so that concurrent allocations cannot overshoot the limit
    // together; returned below if the runtime fails.
    allocated_bytes_ += static_cast<int64_t>(size);
  }

  void* ptr = nullptr;
  absl::Status status = Activate();
  if (status.ok()) {
    status = ToStatus(api_, api_.mem_alloc(&ptr, size),
                      absl::StrFormat("allocation of %d bytes on device %d",
                                      size, device_ordinal()));
  }
  absl::MutexLock lock(&mu_);
  if (!status.ok()) {
    allocated_bytes_ -= static_cast<int64_t>(size);
    return status;
  }
  allocations_.emplace(ptr, size);
  VLOG(5) << "Allocated " << size << " bytes at " << ptr << " on device "
          << device_ordinal() << "; " << allocated_bytes_ << " in use";
  return DeviceAddressBase(ptr, size);
}

absl::Status GpuExecutor::Deallocate(DeviceAddressBase* mem) {
  if (mem->is_null()) return absl::OkStatus();
  uint64_t size;
  {
    absl::MutexLock lock(&mu_);
    auto it = allocations_.find(mem->opaque());
    if (it == allocations_.end()) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "Deallocate: %s was not allocated by the executor of device %d",
          mem->ToString(), device_ordinal()));
    }
    size = it->second;
    allocations_.erase(it);
    allocated_bytes_ -= static_cast<int64_t>(size);
  }
  VLOG(5) << "Freeing " << size << " bytes at " << mem->opaque()
          << " on device " << device_ordinal();
  RETURN_IF_ERROR(Activate());
  RETURN_IF_ERROR(ToStatus(api_, api_.mem_free(mem->opaque()), "free"));
  *mem = DeviceAddressBase();
  return absl::OkStatus();
}

int64_t GpuExecutor::allocated_bytes() const {
  absl::MutexLock lock(&mu_);
  return allocated_bytes_;
}

absl::StatusOr<std::unique_ptr<Stream>> GpuExecutor::CreateStream() {
  ASSIGN_OR_RETURN(std::unique_ptr<GpuStream> stream, GpuStream::Create(this));
  return std::unique_ptr<Stream>(std::move(stream));
}

absl::StatusOr<std::unique_ptr<Event>> GpuExecutor::CreateEvent() {
  ASSIGN_OR_RETURN(std::unique_ptr<GpuEvent> event, GpuEvent::Create(this));
  return std::unique_ptr<Event>(std::move(event));
}

absl::StatusOr<GpuModule*> GpuExecutor::GetOrLoadModule(
    const GpuKernelImage& image) {
  absl::MutexLock lock(&modules_mu_);
  auto it = modules_.find(image.key);
  if (it != modules_.end()) return it->second.get();

  RETURN_IF_ERROR(Activate());
  absl::StatusOr<std::unique_ptr<GpuModule>> module =
      GpuModule::Load(api_, image.bytes->data());
  if (!module.ok()) {
    std::string hint =
        image.disk_path.empty()
            ? ""
            : absl::StrCat(" (read from the kernel cache file ",
                           image.disk_path, "; delete it to recompile)");
    return absl::Status(
        module.status().code(),
        absl::StrCat(module.status().message(), ": image for ",
                     image.target_name, " on ", description_.arch, hint));
  }
  GpuModule* raw = module->get();
  modules_.emplace(image.key, *std::move(module));
  return raw;
}

absl::Status GpuExecutor::CompileKernel(const KernelSpec& spec) {
  if (spec.cuda_source.empty()) return absl::OkStatus();  // LoadKernel says.
  return kernel_cache_.GetOrCompile(spec.name, spec.cuda_source, description_)
      .status();
}

absl::StatusOr<std::unique_ptr<Kernel>> GpuExecutor::LoadKernel(
    const KernelSpec& spec) {
  if (spec.cuda_source.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("kernel '", spec.name, "' has no CUDA source for the ",
                     api_.display_name, " platform"));
  }
  ASSIGN_OR_RETURN(
      GpuKernelImage image,
      kernel_cache_.GetOrCompile(spec.name, spec.cuda_source, description_));
  ASSIGN_OR_RETURN(GpuModule * module, GetOrLoadModule(image));
  RETURN_IF_ERROR(Activate());
  ASSIGN_OR_RETURN(GpuFunctionHandle function, module->GetFunction(spec.name));
  VLOG(3) << "Loaded kernel " << spec.name << " on device " << device_ordinal();
  auto kernel = std::make_unique<GpuKernel>(spec.name, spec.arity, function);
  kernel->set_waits_for_producers(spec.waits_for_producers);
  return std::unique_ptr<Kernel>(std::move(kernel));
}

absl::StatusOr<blas::BlasSupport*> GpuExecutor::AsBlas() {
  absl::MutexLock lock(&blas_mu_);
  if (blas_ != nullptr) return blas_.get();
  if (backend_.load_blas == nullptr) {
    return absl::UnimplementedError(absl::StrCat(
        "the ", backend_.platform_name, " platform has no BLAS library"));
  }
  absl::Time start = absl::Now();
  ASSIGN_OR_RETURN(const GpuBlasApi* blas_api, backend_.load_blas());
  ASSIGN_OR_RETURN(std::unique_ptr<GpuBlas> blas,
                   GpuBlas::Create(this, *blas_api, config_.allow_tf32));
  blas_ = std::move(blas);
  // Loading the library is a fixed cost of every process's first step.
  VLOG(1) << "Device " << device_ordinal() << ": BLAS ready in "
          << absl::ToDoubleMilliseconds(absl::Now() - start) << " ms";
  ReleaseSharedExecutorsBeforeLaterTeardowns();
  return blas_.get();
}

uint64_t GpuExecutor::GemmWorkspaceBytes() const {
  return backend_.load_blas == nullptr ? 0 : GpuBlas::kWorkspaceBytes;
}

absl::StatusOr<dnn::DnnSupport*> GpuExecutor::AsDnn() {
  absl::MutexLock lock(&dnn_mu_);
  if (dnn_ != nullptr) return dnn_.get();
  if (backend_.load_dnn == nullptr) {
    return absl::UnimplementedError(absl::StrCat(
        "the ", backend_.platform_name, " platform has no DNN library"));
  }
  ASSIGN_OR_RETURN(const GpuDnnApi* dnn_api, backend_.load_dnn());
  ASSIGN_OR_RETURN(dnn_, GpuDnn::Create(this, *dnn_api));
  ReleaseSharedExecutorsBeforeLaterTeardowns();
  return dnn_.get();
}

absl::StatusOr<std::unique_ptr<CommandBuffer>>
GpuExecutor::CreateCommandBuffer() {
  ASSIGN_OR_RETURN(std::unique_ptr<GpuCommandBuffer> command_buffer,
                   GpuCommandBuffer::Create(this));
  return std::unique_ptr<CommandBuffer>(std::move(command_buffer));
}

bool GpuExecutor::SupportsConditionalCommands() const {
  return api_.graph_conditional_handle_create != nullptr &&
         api_.graph_add_conditional_node != nullptr &&
         api_.host_alloc != nullptr && api_.host_free != nullptr &&
         api_.conditional_kernels != nullptr;
}

absl::StatusOr<GpuFunctionHandle> GpuExecutor::ConditionalKernel(
    const std::string& name) {
  if (!SupportsConditionalCommands()) {
    return absl::UnimplementedError(absl::StrCat(
        "the ", api_.display_name, " platform has no conditional nodes"));
  }
  GpuKernelImage image;
  image.key = "conditional_kernels";
  image.target_name = "PTX of the conditional kernels";
  image.format = GpuCodeFormat::kAssembly;
  image.bytes = std::make_shared<const std::string>(
      api_.conditional_kernels, std::strlen(api_.conditional_kernels) + 1);
  ASSIGN_OR_RETURN(GpuModule * module, GetOrLoadModule(image));
  RETURN_IF_ERROR(Activate());
  return module->GetFunction(name);
}

absl::Status GpuExecutor::SynchronizeAllActivity() {
  RETURN_IF_ERROR(Activate());
  absl::Status result;
  absl::MutexLock lock(&streams_mu_);
  VLOG(3) << "Synchronizing " << streams_.size() << " streams of device "
          << device_ordinal();
  for (GpuStream* stream : streams_) {
    // A capturing stream runs nothing, and synchronizing it would
    // invalidate the capture.
    if (stream->IsCapturing()) continue;
    absl::Status status = ToStatus(
        api_, api_.stream_synchronize(stream->handle()), "stream synchronize");
    if (result.ok()) result = status;
  }
  return result;
}

void GpuExecutor::RegisterStream(GpuStream* stream) {
  absl::MutexLock lock(&streams_mu_);
  streams_.insert(stream);
}

void GpuExecutor::UnregisterStream(GpuStream* stream) {
  absl::MutexLock lock(&streams_mu_);
  streams_.erase(stream);
}

}  // namespace stream_executor::gpu
