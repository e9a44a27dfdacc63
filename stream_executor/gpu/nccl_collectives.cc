#include "stream_executor/gpu/nccl_collectives.h"

#include <atomic>
#include <cstring>
#include <deque>
#include <thread>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "base/status_macros.h"
#include "glog/logging.h"

namespace stream_executor::gpu {
namespace {

int NcclType(CollectiveDataType type) {
  switch (type) {
    case CollectiveDataType::kF32:
      return kNcclFloat32;
    case CollectiveDataType::kBF16:
      return kNcclBfloat16;
    case CollectiveDataType::kF16:
      return kNcclFloat16;
    case CollectiveDataType::kS32:
      return kNcclInt32;
    case CollectiveDataType::kU32:
      return kNcclUint32;
    case CollectiveDataType::kS64:
      return kNcclInt64;
    case CollectiveDataType::kF64:
      return kNcclFloat64;
  }
  return kNcclFloat32;
}

int NcclOp(ReductionKind kind) {
  switch (kind) {
    case ReductionKind::kSum:
      return kNcclSum;
    case ReductionKind::kProduct:
      return kNcclProd;
    case ReductionKind::kMax:
      return kNcclMax;
    case ReductionKind::kMin:
      return kNcclMin;
  }
  return kNcclSum;
}

// The communicators of one set and their watchdog.
class NcclClique {
 public:
  NcclClique(const NcclApi* api, std::vector<ncclComm_t> comms,
             absl::Duration timeout)
      : api_(api), comms_(std::move(comms)), timeout_(timeout) {
    watchdog_ = std::thread([this] { Watch(); });
  }
  ~NcclClique() {
    {
      absl::MutexLock lock(&mu_);
      stop_ = true;
    }
    watchdog_.join();
    absl::MutexLock lock(&mu_);
    for (ncclComm_t comm : comms_) {
      if (aborted_.ok()) {
        (void)api_->CommDestroy(comm);
      }
    }
  }

  const NcclApi& api() const { return *api_; }
  ncclComm_t comm(int rank) const { return comms_[rank]; }

  // Called around each operation enqueued outside capture.
  int64_t Started() {
    absl::MutexLock lock(&mu_);
    in_flight_.push_back({next_++, absl::Now()});
    return in_flight_.back().first;
  }
  void Finished(int64_t op) {
    absl::MutexLock lock(&mu_);
    for (auto it = in_flight_.begin(); it != in_flight_.end(); ++it) {
      if (it->first == op) {
        in_flight_.erase(it);
        break;
      }
    }
  }

  absl::Status status() const {
    absl::MutexLock lock(&mu_);
    return aborted_;
  }

  void Abort(const absl::Status& reason) {
    absl::MutexLock lock(&mu_);
    AbortLocked(reason);
  }

 private:
  void AbortLocked(const absl::Status& reason)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (!aborted_.ok()) return;
    aborted_ = reason;
    LOG(ERROR) << api_->library << ": aborting communicators: " << reason;
    for (ncclComm_t comm : comms_) (void)api_->CommAbort(comm);
  }

  void Watch() {
    absl::MutexLock lock(&mu_);
    while (!stop_ && aborted_.ok()) {
      mu_.AwaitWithTimeout(absl::Condition(&stop_), absl::Milliseconds(50));
      for (ncclComm_t comm : comms_) {
        ncclResult_t async = kNcclSuccess;
        if (api_->CommGetAsyncError(comm, &async) == kNcclSuccess &&
            async != kNcclSuccess && async != kNcclInProgress) {
          AbortLocked(api_->Check(async, "asynchronous error"));
        }
      }
      if (!in_flight_.empty() &&
          absl::Now() - in_flight_.front().second > timeout_) {
        AbortLocked(absl::DeadlineExceededError(absl::StrCat(
            api_->library, ": a collective did not complete within ",
            absl::FormatDuration(timeout_), " (a rank failed or never came)")));
      }
    }
  }

  const NcclApi* api_;
  const std::vector<ncclComm_t> comms_;
  const absl::Duration timeout_;
  mutable absl::Mutex mu_;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  absl::Status aborted_ ABSL_GUARDED_BY(mu_);
  int64_t next_ ABSL_GUARDED_BY(mu_) = 0;
  std::deque<std::pair<int64_t, absl::Time>> in_flight_ ABSL_GUARDED_BY(mu_);
  std::thread watchdog_;
};

class NcclCommunicator : public Communicator {
 public:
  NcclCommunicator(std::shared_ptr<NcclClique> clique, int rank,
                   int world_size, int comm_index)
      : clique_(std::move(clique)),
        rank_(rank),
        world_size_(world_size),
        comm_index_(comm_index) {}

  int rank() const override { return rank_; }
  int world_size() const override { return world_size_; }

  absl::Status AllReduce(DeviceAddressBase send, DeviceAddressBase recv,
                         CollectiveDataType type, int64_t count,
                         ReductionKind reduction, Stream* stream) override {
    return Enqueue(stream, "ncclAllReduce", [&](const NcclApi& api) {
      return api.AllReduce(send.opaque(), recv.opaque(), count, NcclType(type),
                           NcclOp(reduction), comm(), Handle(stream));
    });
  }
  absl::Status AllGather(DeviceAddressBase send, DeviceAddressBase recv,
                         CollectiveDataType type, int64_t send_count,
                         Stream* stream) override {
    return Enqueue(stream, "ncclAllGather", [&](const NcclApi& api) {
      return api.AllGather(send.opaque(), recv.opaque(), send_count,
                           NcclType(type), comm(), Handle(stream));
    });
  }
  absl::Status ReduceScatter(DeviceAddressBase send, DeviceAddressBase recv,
                             CollectiveDataType type, int64_t recv_count,
                             ReductionKind reduction, Stream* stream) override {
    return Enqueue(stream, "ncclReduceScatter", [&](const NcclApi& api) {
      return api.ReduceScatter(send.opaque(), recv.opaque(), recv_count,
                               NcclType(type), NcclOp(reduction), comm(),
                               Handle(stream));
    });
  }
  absl::Status CollectivePermute(DeviceAddressBase send,
                                 DeviceAddressBase recv,
                                 CollectiveDataType type, int64_t count,
                                 std::optional<int> source,
                                 std::optional<int> target,
                                 Stream* stream) override {
    if (!source.has_value()) RETURN_IF_ERROR(stream->MemZero(&recv, recv.size()));
    return Enqueue(stream, "collective-permute", [&](const NcclApi& api) {
      ncclResult_t r = api.GroupStart();
      if (r == kNcclSuccess && target.has_value()) {
        r = api.Send(send.opaque(), count, NcclType(type), *target, comm(),
                     Handle(stream));
      }
      if (r == kNcclSuccess && source.has_value()) {
        r = api.Recv(recv.opaque(), count, NcclType(type), *source, comm(),
                     Handle(stream));
      }
      const ncclResult_t end = api.GroupEnd();
      return r != kNcclSuccess ? r : end;
    });
  }

  absl::Status HealthCheck() const override { return clique_->status(); }
  absl::Status Abort(const absl::Status& reason) override {
    clique_->Abort(reason);
    return absl::OkStatus();
  }

 private:
  ncclComm_t comm() const { return clique_->comm(comm_index_); }
  static void* Handle(Stream* stream) {
    return stream->platform_specific_handle();
  }

  // Outside capture, the op is timed by the watchdog until a host
  // callback after it runs; captured ops are timed when the graph runs
  // through the stream's own wait.
  template <typename Call>
  absl::Status Enqueue(Stream* stream, const char* what, Call call) {
    RETURN_IF_ERROR(clique_->status());
    const NcclApi& api = clique_->api();
    if (stream->IsCapturing()) return api.Check(call(api), what);
    const int64_t op = clique_->Started();
    absl::Status status = api.Check(call(api), what);
    std::shared_ptr<NcclClique> clique = clique_;
    absl::Status done =
        stream->DoHostCallback([clique, op] { clique->Finished(op); });
    if (!status.ok()) clique_->Finished(op);
    return status.ok() ? done : status;
  }

  std::shared_ptr<NcclClique> clique_;
  const int rank_, world_size_, comm_index_;
};

}  // namespace

NcclCollectivesBackend::NcclCollectivesBackend(std::string library,
                                               std::vector<std::string> sonames)
    : library_(std::move(library)), sonames_(std::move(sonames)) {}

absl::StatusOr<const NcclApi*> NcclCollectivesBackend::Api() const {
  return LoadNcclApi(library_, sonames_);
}

absl::StatusOr<std::vector<std::unique_ptr<Communicator>>>
NcclCollectivesBackend::CreateCommunicators(
    absl::Span<StreamExecutor* const> executors,
    const CollectiveOptions& options) {
  ASSIGN_OR_RETURN(const NcclApi* api, Api());
  std::vector<int> devices;
  for (StreamExecutor* executor : executors) {
    devices.push_back(executor->device_ordinal());
  }
  std::vector<ncclComm_t> comms(devices.size(), nullptr);
  RETURN_IF_ERROR(api->Check(
      api->CommInitAll(comms.data(), devices.size(), devices.data()),
      "ncclCommInitAll"));
  auto clique = std::make_shared<NcclClique>(api, comms, options.timeout);
  std::vector<std::unique_ptr<Communicator>> out;
  for (size_t r = 0; r < comms.size(); ++r) {
    out.push_back(std::make_unique<NcclCommunicator>(clique, r, comms.size(), r));
  }
  VLOG(1) << library_ << ": " << comms.size() << " communicators in process";
  return out;
}

absl::StatusOr<std::unique_ptr<Communicator>>
NcclCollectivesBackend::CreateCommunicatorForRank(
    const RendezvousConfig& rendezvous, const CollectiveOptions& options) {
  ASSIGN_OR_RETURN(const NcclApi* api, Api());
  ncclUniqueId id{};
  if (rendezvous.rank == 0) {
    RETURN_IF_ERROR(api->Check(api->GetUniqueId(&id), "ncclGetUniqueId"));
  }
  ASSIGN_OR_RETURN(std::string bytes,
                   ExchangeUniqueId(rendezvous,
                                    std::string(id.internal, sizeof(id))));
  if (bytes.size() != sizeof(id)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "unique id of ", bytes.size(), " bytes, expected ", sizeof(id)));
  }
  std::memcpy(id.internal, bytes.data(), sizeof(id));
  ncclComm_t comm = nullptr;
  RETURN_IF_ERROR(api->Check(
      api->CommInitRank(&comm, rendezvous.world_size, id, rendezvous.rank),
      "ncclCommInitRank"));
  auto clique = std::make_shared<NcclClique>(
      api, std::vector<ncclComm_t>{comm}, options.timeout);
  return std::unique_ptr<Communicator>(std::make_unique<NcclCommunicator>(
      clique, rendezvous.rank, rendezvous.world_size, 0));
}

void RegisterNcclCollectives(const std::string& platform_name,
                             const std::string& library,
                             std::vector<std::string> sonames) {
  RegisterCollectivesBackend(
      platform_name, new NcclCollectivesBackend(library, std::move(sonames)));
}

}  // namespace stream_executor::gpu
