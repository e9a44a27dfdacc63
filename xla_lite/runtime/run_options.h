#ifndef XLA_LITE_RUNTIME_RUN_OPTIONS_H_
#define XLA_LITE_RUNTIME_RUN_OPTIONS_H_

#include <memory>

#include "stream_executor/device_address_allocator.h"
#include "stream_executor/stream.h"
#include "xla_lite/runtime/execution_stats.h"
#include "xla_lite/runtime/thunk_profiler.h"

namespace xla_lite::gpu {

struct CollectiveExecuteParams;  // thunk.h

// Per-execution options, like XLA's ServiceExecutableRunOptions.
struct RunOptions {
  // Where the execution's work is enqueued; its executor is the device.
  se::Stream* stream = nullptr;
  // Temps, outputs and parameter copies come from here. It must outlive the
  // buffers it hands out, including results the caller keeps and, with
  // cached allocations, the executable's cache: call the executable's
  // ReleaseCachedAllocations before destroying an allocator that served it.
  se::DeviceAddressAllocator* allocator = nullptr;
  // -1: the stream's device. Otherwise it must name the stream's device.
  int device_ordinal = -1;
  // Where counters go; null: the executable's own (GpuExecutable::stats()).
  // Shared because deferred deallocations count into it after the call.
  std::shared_ptr<ExecutionStats> stats;
  // With cached allocations (DebugOptions), results not aliased to a donated
  // parameter come from the executable's cache and stay valid only until
  // the next execution on the device. Set this to get them as copies the
  // caller owns instead.
  bool copy_cached_results = false;
  // Measures every thunk of the execution, repeating each
  // (thunk_profiler.h): the results are then not a step's. Null: none.
  ThunkProfiler* profiler = nullptr;
  // The device assignment of a run on several devices: this execution's
  // global device id and the run's communicators (collective thunks need
  // it; null runs them as a group of one device).
  const CollectiveExecuteParams* collectives = nullptr;
};

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_RUNTIME_RUN_OPTIONS_H_
