#ifndef XLA_LITE_RUNTIME_EXECUTION_OUTPUT_H_
#define XLA_LITE_RUNTIME_EXECUTION_OUTPUT_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "stream_executor/device_address_allocator.h"
#include "stream_executor/event.h"
#include "xla_lite/runtime/deferred_deallocator.h"
#include "xla_lite/runtime/execution_stats.h"

namespace xla_lite::gpu {

class CachedAllocator;

// The results of one execution: the output tuple, one buffer per element,
// owned here until the caller takes them.
//
// The execution's work may still be queued when this is returned. Dropping
// the object (or a result in it) is always safe: buffers still held are
// freed only after that work has completed, through the executable's
// allocator for the device, which keeps those its cache still owns.
// TakeResult hands a result over: one the execution allocated, or a
// donated parameter's buffer, becomes the caller's plain memory, owned by
// the allocator it came from (free it only after BlockUntilReady, or after
// later work on the same stream); a result served from the cache comes out
// as a view, with no allocator, that frees nothing.
class ExecutionOutput {
 public:
  ExecutionOutput() = default;
  // Made by GpuExecutable. `aliased_parameters[i]` is the parameter whose
  // donated buffer result i reuses; `allocator` owns the results' handles
  // and is kept alive until they are freed or taken.
  ExecutionOutput(std::vector<se::ScopedDeviceAddress> results,
                  std::vector<std::optional<int64_t>> aliased_parameters,
                  std::shared_ptr<se::Event> done,
                  std::shared_ptr<DeferredDeallocator> deallocator,
                  std::shared_ptr<CachedAllocator> allocator,
                  std::shared_ptr<ExecutionStats> stats);
  ~ExecutionOutput();

  ExecutionOutput(ExecutionOutput&& other) = default;
  ExecutionOutput& operator=(ExecutionOutput&& other);
  ExecutionOutput(const ExecutionOutput&) = delete;
  ExecutionOutput& operator=(const ExecutionOutput&) = delete;

  int64_t result_count() const { return results_.size(); }
  // Null once taken (and for zero-byte results).
  const se::DeviceAddressBase& result(int64_t i) const {
    return results_.at(i).cref();
  }
  // The parameter whose donated buffer result i is, if any.
  std::optional<int64_t> aliased_parameter(int64_t i) const {
    return aliased_parameters_.at(i);
  }

  se::ScopedDeviceAddress TakeResult(int64_t i);

  // Blocks until the execution's work has completed. Errors the device
  // raised while running it are reported by the stream, not here.
  absl::Status BlockUntilReady() const;
  bool IsReady() const;

 private:
  // Hands the buffers still held to the deallocator, ordered after `done_`.
  void Release();

  std::vector<se::ScopedDeviceAddress> results_;
  std::vector<std::optional<int64_t>> aliased_parameters_;
  std::shared_ptr<se::Event> done_;
  std::shared_ptr<DeferredDeallocator> deallocator_;
  std::shared_ptr<CachedAllocator> allocator_;
  std::shared_ptr<ExecutionStats> stats_;
};

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_RUNTIME_EXECUTION_OUTPUT_H_
