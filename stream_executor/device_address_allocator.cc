#include "stream_executor/device_address_allocator.h"

#include <utility>

#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "glog/logging.h"
#include "stream_executor/platform.h"
#include "stream_executor/stream_executor.h"

namespace stream_executor {

ScopedDeviceAddress::~ScopedDeviceAddress() {
  absl::Status status = Free();
  if (!status.ok()) {
    LOG(ERROR) << "ScopedDeviceAddress: deallocation failed: " << status;
  }
}

ScopedDeviceAddress::ScopedDeviceAddress(ScopedDeviceAddress&& other) noexcept
    : address_(other.Release()),
      device_ordinal_(other.device_ordinal_),
      allocator_(other.allocator_) {}

ScopedDeviceAddress& ScopedDeviceAddress::operator=(
    ScopedDeviceAddress&& other) noexcept {
  if (this != &other) {
    absl::Status status = Free();
    if (!status.ok()) {
      LOG(ERROR) << "ScopedDeviceAddress: deallocation failed: " << status;
    }
    device_ordinal_ = other.device_ordinal_;
    allocator_ = other.allocator_;
    address_ = other.Release();
  }
  return *this;
}

DeviceAddressBase ScopedDeviceAddress::Release() {
  DeviceAddressBase address = address_;
  address_ = DeviceAddressBase();
  return address;
}

absl::Status ScopedDeviceAddress::Free() {
  if (address_.is_null() || allocator_ == nullptr) return absl::OkStatus();
  DeviceAddressBase address = Release();
  return allocator_->Deallocate(device_ordinal_, address);
}

StreamExecutorAllocator::StreamExecutorAllocator(StreamExecutor* executor)
    : DeviceAddressAllocator(executor->platform()) {
  executors_.resize(executor->device_ordinal() + 1, nullptr);
  executors_[executor->device_ordinal()] = executor;
}

StreamExecutorAllocator::StreamExecutorAllocator(
    const Platform* platform, absl::Span<StreamExecutor* const> executors)
    : DeviceAddressAllocator(platform) {
  for (StreamExecutor* executor : executors) {
    int ordinal = executor->device_ordinal();
    if (executors_.size() <= static_cast<size_t>(ordinal)) {
      executors_.resize(ordinal + 1, nullptr);
    }
    executors_[ordinal] = executor;
  }
}

absl::StatusOr<StreamExecutor*> StreamExecutorAllocator::GetExecutor(
    int device_ordinal) const {
  if (device_ordinal < 0 || device_ordinal >= executors_.size() ||
      executors_[device_ordinal] == nullptr) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "allocator has no executor for device ordinal %d", device_ordinal));
  }
  return executors_[device_ordinal];
}

absl::StatusOr<ScopedDeviceAddress> StreamExecutorAllocator::Allocate(
    int device_ordinal, uint64_t size) {
  ASSIGN_OR_RETURN(StreamExecutor * executor, GetExecutor(device_ordinal));
  ASSIGN_OR_RETURN(DeviceAddressBase mem, executor->Allocate(size));
  return ScopedDeviceAddress(mem, device_ordinal, this);
}

absl::Status StreamExecutorAllocator::Deallocate(int device_ordinal,
                                                 DeviceAddressBase mem) {
  if (mem.is_null()) return absl::OkStatus();
  ASSIGN_OR_RETURN(StreamExecutor * executor, GetExecutor(device_ordinal));
  return executor->Deallocate(&mem);
}

}  // namespace stream_executor
