#ifndef XLA_LITE_RUNTIME_EXECUTION_INPUT_H_
#define XLA_LITE_RUNTIME_EXECUTION_INPUT_H_

#include <utility>

#include "stream_executor/device_address.h"
#include "stream_executor/device_address_allocator.h"

namespace xla_lite::gpu {

// One argument of an execution: a device buffer, either borrowed (the
// caller keeps it and its contents; the executable only reads it) or donated
// (the caller hands it over; the executable may write it, reuses it for an
// aliased output, and frees it once the execution is done otherwise).
//
// Move-only, so a donated buffer has exactly one owner at any time.
class ExecutionInput {
 public:
  static ExecutionInput Borrowed(se::DeviceAddressBase buffer) {
    return ExecutionInput(buffer, se::ScopedDeviceAddress(), false);
  }
  static ExecutionInput Donated(se::ScopedDeviceAddress buffer) {
    se::DeviceAddressBase address = buffer.cref();
    return ExecutionInput(address, std::move(buffer), true);
  }

  ExecutionInput(ExecutionInput&&) = default;
  ExecutionInput& operator=(ExecutionInput&&) = default;
  ExecutionInput(const ExecutionInput&) = delete;
  ExecutionInput& operator=(const ExecutionInput&) = delete;

  const se::DeviceAddressBase& buffer() const { return address_; }
  bool is_donated() const { return donated_; }
  // Takes over a donated buffer; an empty one when borrowed.
  se::ScopedDeviceAddress TakeOwnership() { return std::move(owned_); }

 private:
  ExecutionInput(se::DeviceAddressBase address, se::ScopedDeviceAddress owned,
                 bool donated)
      : address_(address), owned_(std::move(owned)), donated_(donated) {}

  se::DeviceAddressBase address_;
  se::ScopedDeviceAddress owned_;
  bool donated_;
};

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_RUNTIME_EXECUTION_INPUT_H_
