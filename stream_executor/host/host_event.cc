#include "stream_executor/host/host_event.h"

#include <algorithm>

namespace stream_executor::host {

int64_t HostEvent::State::NextRecord() {
  absl::MutexLock lock(&mu_);
  return ++recorded_;
}

int64_t HostEvent::State::latest_record() const {
  absl::MutexLock lock(&mu_);
  return recorded_;
}

void HostEvent::State::MarkComplete(int64_t record) {
  absl::MutexLock lock(&mu_);
  completed_ = std::max(completed_, record);
}

void HostEvent::State::WaitForRecord(int64_t record) {
  absl::MutexLock lock(&mu_);
  auto done = [this, record]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return completed_ >= record;
  };
  mu_.Await(absl::Condition(&done));
}

bool HostEvent::State::IsComplete(int64_t record) const {
  absl::MutexLock lock(&mu_);
  return completed_ >= record;
}

absl::Status HostEvent::Synchronize() {
  state_->WaitForRecord(state_->latest_record());
  return absl::OkStatus();
}

bool HostEvent::IsComplete() {
  return state_->IsComplete(state_->latest_record());
}

}  // namespace stream_executor::host
