#ifndef STREAM_EXECUTOR_GPU_NCCL_COLLECTIVES_H_
#define STREAM_EXECUTOR_GPU_NCCL_COLLECTIVES_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "stream_executor/collectives/communicator.h"
#include "stream_executor/collectives/unique_id_exchange.h"
#include "stream_executor/gpu/nccl_api.h"

namespace stream_executor::gpu {

// Collectives through NCCL (CUDA) or RCCL (ROCm), loaded at run time.
// Operations go onto the caller's stream, so stream capture records them
// into the step's graph. A watchdog thread per communicator set polls
// ncclCommGetAsyncError and the age of the oldest operation still in
// flight (outside capture): an asynchronous error, or an operation older
// than the timeout (a peer that died or never came), aborts every
// communicator of the set with ncclCommAbort, so the streams waiting on it
// fail instead of hanging.
class NcclCollectivesBackend : public CollectivesBackend {
 public:
  NcclCollectivesBackend(std::string library, std::vector<std::string> sonames);

  std::string name() const override { return library_; }

  // One process driving every rank: ncclCommInitAll over the executors'
  // device ordinals.
  absl::StatusOr<std::vector<std::unique_ptr<Communicator>>>
  CreateCommunicators(absl::Span<StreamExecutor* const> executors,
                      const CollectiveOptions& options) override;

  // One process per rank (torchrun style): rank 0 makes the unique id and
  // sends it over TCP (ExchangeUniqueId), every rank calls
  // ncclCommInitRank. The communicator is returned only once its creation
  // succeeded.
  absl::StatusOr<std::unique_ptr<Communicator>> CreateCommunicatorForRank(
      const RendezvousConfig& rendezvous, const CollectiveOptions& options);

 private:
  absl::StatusOr<const NcclApi*> Api() const;

  const std::string library_;
  const std::vector<std::string> sonames_;
};

// Registers the backend for `platform_name` ("cuda" with NCCL, "rocm" with
// RCCL); called from each platform's registration file.
void RegisterNcclCollectives(const std::string& platform_name,
                             const std::string& library,
                             std::vector<std::string> sonames);

}  // namespace stream_executor::gpu

#endif  // STREAM_EXECUTOR_GPU_NCCL_COLLECTIVES_H_
