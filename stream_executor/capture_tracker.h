#ifndef STREAM_EXECUTOR_CAPTURE_TRACKER_H_
#define STREAM_EXECUTOR_CAPTURE_TRACKER_H_

#include <cstdint>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"

namespace stream_executor {

// Which threads have a stream capture open on one executor.
//
// An allocation made while capturing is unsafe only for the work being
// captured: its address would be baked into the graph (and on CUDA the
// allocation itself may be recorded or break the capture). That work is
// enqueued by the thread that began the capture (a traced library call runs
// on it), so allocation is refused on that thread alone. Other threads keep
// allocating: a capture on one thread must not make unrelated executions on
// the same device fail. CUDA and HIP capture in relaxed mode for the same
// reason.
class CaptureTracker {
 public:
  // Records a capture begun on the calling thread; returns that thread, which
  // the stream hands back to End (capture may end on another thread).
  std::thread::id Begin();
  void End(std::thread::id begun_on);

  // FAILED_PRECONDITION when the calling thread has a capture open.
  absl::Status CheckMayAllocate(uint64_t size, int device_ordinal) const;
  bool AnyOpen() const;

 private:
  mutable absl::Mutex mu_;
  // One entry per open capture; a handful at most.
  std::vector<std::thread::id> open_ ABSL_GUARDED_BY(mu_);
};

}  // namespace stream_executor

#endif  // STREAM_EXECUTOR_CAPTURE_TRACKER_H_
