#include "stream_executor/stream_pool.h"

#include <utility>

#include "base/status_macros.h"
#include "glog/logging.h"
#include "stream_executor/stream_executor.h"

namespace stream_executor {

void StreamPool::Returner::operator()(Stream* stream) const {
  if (stream == nullptr) return;
  CHECK(pool_ != nullptr) << "a pooled stream without its pool";
  pool_->Return(stream);
}

StreamPool::~StreamPool() { Clear(); }

absl::StatusOr<StreamPool::Ptr> StreamPool::BorrowStream() {
  {
    absl::MutexLock lock(&mu_);
    if (!idle_.empty()) {
      Stream* stream = idle_.back().release();
      idle_.pop_back();
      VLOG(3) << "lent idle stream " << stream;
      return Ptr(stream, Returner(this));
    }
  }
  ASSIGN_OR_RETURN(std::unique_ptr<Stream> stream, executor_->CreateStream());
  VLOG(3) << "lent new stream " << stream.get();
  return Ptr(stream.release(), Returner(this));
}

void StreamPool::Return(Stream* raw) {
  std::unique_ptr<Stream> stream(raw);
  if (stream->IsCapturing()) {
    // Ended so that the executor allocates again; what it recorded is lost.
    absl::Status ended = stream->EndCapture().status();
    LOG(ERROR) << "a stream came back to its pool while capturing (capture "
               << "ended: " << ended << "); destroyed";
    return;
  }
  absl::Status status = stream->BlockHostUntilDone();
  if (!status.ok()) {
    LOG(WARNING) << "a stream came back to its pool with failed work ("
                 << status << "); destroyed";
    return;
  }
  absl::MutexLock lock(&mu_);
  idle_.push_back(std::move(stream));
}

void StreamPool::Clear() {
  std::vector<std::unique_ptr<Stream>> idle;
  {
    absl::MutexLock lock(&mu_);
    idle.swap(idle_);
  }
  // Destroyed outside the lock: a stream's destructor calls its executor.
}

int64_t StreamPool::idle_streams() const {
  absl::MutexLock lock(&mu_);
  return idle_.size();
}

}  // namespace stream_executor
