#ifndef STREAM_EXECUTOR_HOST_HOST_COLLECTIVES_H_
#define STREAM_EXECUTOR_HOST_HOST_COLLECTIVES_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "stream_executor/collectives/communicator.h"

namespace stream_executor::host {

// The ranks of one host communicator group: where their stream workers
// meet. Each rank's k-th operation (counted as its stream runs it) meets
// every other rank's k-th; every rank then computes its own output from
// all inputs, and none returns before all have read, so a send buffer is
// never overwritten while another rank reads it.
class HostClique {
 public:
  struct Arrival {
    const void* send = nullptr;
    void* recv = nullptr;
    const char* what = "";
  };
  // Computes this rank's output from every rank's arrival.
  using Body = std::function<void(const std::vector<Arrival>&)>;

  HostClique(int world_size, absl::Duration timeout);

  // DEADLINE_EXCEEDED naming the missing ranks when the others do not
  // arrive within the timeout (the clique is then aborted: every later
  // operation fails at once); the abort reason after Abort.
  absl::Status Run(int64_t seq, int rank, Arrival arrival, const Body& body);
  void Abort(const absl::Status& reason);
  absl::Status status() const;

 private:
  struct Op {
    std::vector<Arrival> arrivals;
    std::vector<bool> arrived;
    int arrived_count = 0;
    int done_count = 0;
  };
  absl::Status WaitFor(const std::function<bool()>& ready, int64_t seq,
                       const Op& op, const char* phase)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const int world_size_;
  const absl::Duration timeout_;
  mutable absl::Mutex mu_;
  // A map: waiters keep references to their op while others insert.
  std::map<int64_t, Op> ops_ ABSL_GUARDED_BY(mu_);
  absl::Status aborted_ ABSL_GUARDED_BY(mu_);
};

// The host platform's collectives: ranks are host devices of this process,
// each driving its own stream; operations run on the stream's worker as
// replayable host operations, so stream capture records them.
class HostCollectivesBackend : public CollectivesBackend {
 public:
  std::string name() const override { return "host in-process"; }
  absl::StatusOr<std::vector<std::unique_ptr<Communicator>>>
  CreateCommunicators(absl::Span<StreamExecutor* const> executors,
                      const CollectiveOptions& options) override;
};

}  // namespace stream_executor::host

#endif  // STREAM_EXECUTOR_HOST_HOST_COLLECTIVES_H_
