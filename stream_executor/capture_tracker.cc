#include "stream_executor/capture_tracker.h"

#include <algorithm>

#include "absl/strings/str_format.h"
#include "glog/logging.h"

namespace stream_executor {

std::thread::id CaptureTracker::Begin() {
  std::thread::id self = std::this_thread::get_id();
  absl::MutexLock lock(&mu_);
  open_.push_back(self);
  return self;
}

void CaptureTracker::End(std::thread::id begun_on) {
  absl::MutexLock lock(&mu_);
  auto it = std::find(open_.begin(), open_.end(), begun_on);
  CHECK(it != open_.end()) << "ending a capture that was never begun";
  open_.erase(it);
}

absl::Status CaptureTracker::CheckMayAllocate(uint64_t size,
                                              int device_ordinal) const {
  std::thread::id self = std::this_thread::get_id();
  absl::MutexLock lock(&mu_);
  if (std::find(open_.begin(), open_.end(), self) == open_.end()) {
    return absl::OkStatus();
  }
  return absl::FailedPreconditionError(absl::StrFormat(
      "cannot allocate %d bytes on device %d from a thread that is capturing "
      "a stream: the address would be baked into the captured graph; "
      "allocate before BeginCapture",
      size, device_ordinal));
}

bool CaptureTracker::AnyOpen() const {
  absl::MutexLock lock(&mu_);
  return !open_.empty();
}

}  // namespace stream_executor
