#ifndef XLA_LITE_RUNTIME_DEFERRED_DEALLOCATOR_H_
#define XLA_LITE_RUNTIME_DEFERRED_DEALLOCATOR_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "stream_executor/device_address_allocator.h"
#include "stream_executor/event.h"
#include "xla_lite/runtime/execution_stats.h"

namespace xla_lite::gpu {

class CachedAllocator;

// Frees each buffer, keeps going after a failure, and returns every failure
// in one status (OK when all succeeded). Leaves `buffers` empty. Buffers
// that are handles of `allocator` (may be null) are freed through it, and
// those its cache keeps are not counted as freed.
absl::Status FreeBuffers(std::vector<se::ScopedDeviceAddress>& buffers,
                         CachedAllocator* allocator, ExecutionStats* stats);

// Holds buffers that enqueued work may still touch until that work is done.
//
// This is the runtime's single lifetime rule: a buffer an execution frees
// (temps, results nobody kept, donated parameters it did not reuse) goes
// here together with an event recorded after the execution's last work, and
// is freed only once the event has completed. Freeing is deferred on the
// host rather than done in a stream callback because CUDA and HIP forbid
// API calls (cuMemFree included) inside host functions enqueued on a
// stream; the same rule then holds on every platform.
//
// Deferred buffers are freed by Poll (each execution calls it), by
// WaitAndFreeAll, or by the destructor, whichever comes first. A failing
// deallocation never vanishes: it is kept until WaitAndFreeAll returns it,
// or logged by the destructor when nobody asked.
class DeferredDeallocator {
 public:
  DeferredDeallocator() = default;
  ~DeferredDeallocator();
  DeferredDeallocator(const DeferredDeallocator&) = delete;
  DeferredDeallocator& operator=(const DeferredDeallocator&) = delete;

  // Takes `buffers` and frees them once `done` has completed; a null `done`
  // means the work that used them is already known to be complete. A batch
  // with no buffers still counts as outstanding until `done` completes, so
  // WaitAndFreeAll covers every execution, not only those with temps.
  // `allocator` (may be null) is the one the buffers are handles of, kept
  // alive until they are freed (see FreeBuffers); `stats` (may be null)
  // counts the frees.
  void Defer(std::shared_ptr<se::Event> done,
             std::vector<se::ScopedDeviceAddress> buffers,
             std::shared_ptr<CachedAllocator> allocator,
             std::shared_ptr<ExecutionStats> stats);

  // Frees the batches whose work has completed, without blocking.
  void Poll();

  // Blocks until the work of every batch deferred so far has completed,
  // frees them all, and returns every deallocation failure not yet
  // returned, including those of earlier polls.
  absl::Status WaitAndFreeAll();

  int64_t outstanding_batches() const;

 private:
  struct Batch {
    std::shared_ptr<se::Event> done;
    // Before `buffers`, so that it outlives handles freed by destruction.
    std::shared_ptr<CachedAllocator> allocator;
    std::vector<se::ScopedDeviceAddress> buffers;
    std::shared_ptr<ExecutionStats> stats;
  };

  void Free(Batch& batch);

  // Buffers of work not known to be complete.
  mutable absl::Mutex batches_mu_;
  std::vector<Batch> batches_ ABSL_GUARDED_BY(batches_mu_);

  // Failures nobody has been told about yet.
  absl::Mutex errors_mu_;
  std::vector<absl::Status> errors_ ABSL_GUARDED_BY(errors_mu_);
};

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_RUNTIME_DEFERRED_DEALLOCATOR_H_
