#ifndef STREAM_EXECUTOR_STREAM_POOL_H_
#define STREAM_EXECUTOR_STREAM_POOL_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "stream_executor/stream.h"

namespace stream_executor {

class StreamExecutor;

// Streams of one executor, lent out and taken back, so that the executables
// a process runs one after another run on the same stream.
//
// Why reuse rather than create: on the H200 (driver 580) a step graph
// launched on a new stream, after another stream of the process has run
// steps, runs about 40 us a step slower (the f32 medium transformer:
// 1,766.5-1,771.0 against 1,727.0-1,741.0 us; bf16: +33 us) than on the
// stream that ran them. The graph is the same node for node, its kernels
// take the same time, and hardware queues (CUDA_DEVICE_MAX_CONNECTIONS),
// stream priority and node priorities do not change it; running on the
// earlier stream does. An evaluation step compiled after a training step
// would otherwise pay it. This wins one executable only: the third and
// later of a process run slower even on one stream (bench_isolation.h).
//
// The rule: a borrowed stream belongs to its borrower until the Ptr dies,
// and comes back idle. Returning waits for the stream's work: a stream
// with a failure nobody has taken from it (BlockHostUntilDone), or one
// still capturing (the capture is ended), is destroyed, not lent again, so
// that no borrower inherits another's error or capture. The stream most
// recently returned is lent first.
//
// Thread-safe. The pool must outlive every Ptr it lent: its owner (the
// executor) calls Clear before tearing down what its streams use, and by
// then every borrowed stream must have come back.
class StreamPool {
 public:
  class Returner {
   public:
    explicit Returner(StreamPool* pool = nullptr) : pool_(pool) {}
    void operator()(Stream* stream) const;

   private:
    StreamPool* pool_;
  };
  using Ptr = std::unique_ptr<Stream, Returner>;

  explicit StreamPool(StreamExecutor* executor) : executor_(executor) {}
  ~StreamPool();
  StreamPool(const StreamPool&) = delete;
  StreamPool& operator=(const StreamPool&) = delete;

  // An idle stream of the executor, created when none is idle.
  absl::StatusOr<Ptr> BorrowStream();

  // Destroys the idle streams.
  void Clear();

  int64_t idle_streams() const;

 private:
  void Return(Stream* stream);

  StreamExecutor* const executor_;
  mutable absl::Mutex mu_;
  std::vector<std::unique_ptr<Stream>> idle_ ABSL_GUARDED_BY(mu_);
};

}  // namespace stream_executor

#endif  // STREAM_EXECUTOR_STREAM_POOL_H_
