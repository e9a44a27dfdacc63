#ifndef STREAM_EXECUTOR_EVENT_H_
#define STREAM_EXECUTOR_EVENT_H_

#include "absl/status/status.h"

namespace stream_executor {

// A marker in a stream's work. Stream::RecordEvent places it; it completes
// when the stream has run everything enqueued before it. Like CUDA events,
// waiting targets the most recent record at the time the wait is enqueued.
class Event {
 public:
  virtual ~Event() = default;
  // Blocks the host until the latest record has completed.
  virtual absl::Status Synchronize() = 0;
  // True when the latest record (if any) has completed.
  virtual bool IsComplete() = 0;
};

}  // namespace stream_executor

#endif  // STREAM_EXECUTOR_EVENT_H_
