#ifndef STREAM_EXECUTOR_HOST_HOST_EVENT_H_
#define STREAM_EXECUTOR_HOST_HOST_EVENT_H_

#include <cstdint>
#include <memory>

#include "absl/synchronization/mutex.h"
#include "stream_executor/event.h"

namespace stream_executor::host {

// Records are numbered. A stream that records the event enqueues "mark
// record N complete"; a stream that waits enqueues "block until record N
// (the latest at the time of the wait) is complete". The state is shared
// with the enqueued work so destroying the Event early is safe.
class HostEvent : public Event {
 public:
  class State {
   public:
    // Called when a record is enqueued; returns its number.
    int64_t NextRecord();
    int64_t latest_record() const;
    void MarkComplete(int64_t record);
    void WaitForRecord(int64_t record);
    bool IsComplete(int64_t record) const;

   private:
    mutable absl::Mutex mu_;
    int64_t recorded_ ABSL_GUARDED_BY(mu_) = 0;
    int64_t completed_ ABSL_GUARDED_BY(mu_) = 0;
  };

  HostEvent() : state_(std::make_shared<State>()) {}

  absl::Status Synchronize() override;
  bool IsComplete() override;

  const std::shared_ptr<State>& state() const { return state_; }

 private:
  std::shared_ptr<State> state_;
};

}  // namespace stream_executor::host

#endif  // STREAM_EXECUTOR_HOST_HOST_EVENT_H_
