#ifndef STREAM_EXECUTOR_COLLECTIVES_COMMUNICATOR_H_
#define STREAM_EXECUTOR_COLLECTIVES_COMMUNICATOR_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "stream_executor/device_address.h"
#include "stream_executor/stream.h"
#include "stream_executor/stream_executor.h"

namespace stream_executor {

// Element types collectives move and reduce (NCCL's ncclDataType_t).
enum class CollectiveDataType { kF32, kBF16, kF16, kS32, kU32, kS64, kF64 };
int64_t CollectiveDataTypeSize(CollectiveDataType type);
const char* CollectiveDataTypeName(CollectiveDataType type);

enum class ReductionKind { kSum, kProduct, kMax, kMin };
const char* ReductionKindName(ReductionKind kind);

// One rank's handle on a group of devices that run collectives together
// (an NCCL/RCCL communicator, or the host platform's in-process clique).
// Every call enqueues on `stream` (the compute stream of this rank's
// device) and returns; every rank of the group must make the same calls in
// the same order. Errors of the collective itself (a rank that never
// arrives, one that failed) surface from the stream's BlockHostUntilDone.
// Stream capture records the calls, so a command buffer can replay them.
class Communicator {
 public:
  virtual ~Communicator() = default;

  virtual int rank() const = 0;
  virtual int world_size() const = 0;

  // recv[i] = reduce over ranks of send[i], i < count; recv may be send.
  virtual absl::Status AllReduce(DeviceAddressBase send, DeviceAddressBase recv,
                                 CollectiveDataType type, int64_t count,
                                 ReductionKind reduction, Stream* stream) = 0;
  // recv = send of rank 0, then rank 1, ...; each send_count elements.
  virtual absl::Status AllGather(DeviceAddressBase send, DeviceAddressBase recv,
                                 CollectiveDataType type, int64_t send_count,
                                 Stream* stream) = 0;
  // recv = block `rank` (recv_count elements) of the reduction of send.
  virtual absl::Status ReduceScatter(DeviceAddressBase send,
                                     DeviceAddressBase recv,
                                     CollectiveDataType type,
                                     int64_t recv_count,
                                     ReductionKind reduction,
                                     Stream* stream) = 0;
  // Sends `send` to rank `target` and receives `recv` from rank `source`
  // (either may be absent; a rank that receives nothing gets zeros).
  virtual absl::Status CollectivePermute(DeviceAddressBase send,
                                         DeviceAddressBase recv,
                                         CollectiveDataType type,
                                         int64_t count,
                                         std::optional<int> source,
                                         std::optional<int> target,
                                         Stream* stream) = 0;

  // The first asynchronous error of the group (NCCL's async error), OK
  // while healthy.
  virtual absl::Status HealthCheck() const = 0;
  // Makes every pending and later operation of the group fail instead of
  // waiting (ncclCommAbort).
  virtual absl::Status Abort(const absl::Status& reason) = 0;
};

struct CollectiveOptions {
  // How long a rank waits for the others at an operation (and at
  // communicator creation) before the group fails with DEADLINE_EXCEEDED.
  absl::Duration timeout = absl::Seconds(60);
};

// Makes communicators for one platform.
class CollectivesBackend {
 public:
  virtual ~CollectivesBackend() = default;
  virtual std::string name() const = 0;

  // The communicators of a group whose ranks are `executors`, in rank
  // order, all of them in this process (a thread per device drives them).
  virtual absl::StatusOr<std::vector<std::unique_ptr<Communicator>>>
  CreateCommunicators(absl::Span<StreamExecutor* const> executors,
                      const CollectiveOptions& options) = 0;
};

// The backend of platform `platform_name` ("host", "cuda", "rocm"), filled
// by static registration in each platform's collectives library;
// NOT_FOUND naming the platform when the binary has none.
absl::StatusOr<CollectivesBackend*> CollectivesBackendFor(
    const std::string& platform_name);
// Called from a static initializer; the backend lives forever.
void RegisterCollectivesBackend(const std::string& platform_name,
                                CollectivesBackend* backend);

}  // namespace stream_executor

#endif  // STREAM_EXECUTOR_COLLECTIVES_COMMUNICATOR_H_
