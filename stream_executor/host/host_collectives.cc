#include "stream_executor/host/host_collectives.h"

#include <atomic>
#include <cstring>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "glog/logging.h"
#include "stream_executor/host/host_stream.h"
#include "stream_executor/platform.h"

namespace stream_executor::host {

HostClique::HostClique(int world_size, absl::Duration timeout)
    : world_size_(world_size), timeout_(timeout) {}

void HostClique::Abort(const absl::Status& reason) {
  absl::MutexLock lock(&mu_);
  if (aborted_.ok()) aborted_ = reason;
}

absl::Status HostClique::status() const {
  absl::MutexLock lock(&mu_);
  return aborted_;
}

absl::Status HostClique::WaitFor(const std::function<bool()>& ready,
                                 int64_t seq, const Op& op,
                                 const char* phase) {
  auto done = [&]() ABSL_SHARED_LOCKS_REQUIRED(mu_) {
    return !aborted_.ok() || ready();
  };
  mu_.AwaitWithTimeout(absl::Condition(&done), timeout_);
  if (!aborted_.ok()) return aborted_;
  if (ready()) return absl::OkStatus();
  std::vector<int> missing;
  for (int r = 0; r < world_size_; ++r) {
    if (!op.arrived[r]) missing.push_back(r);
  }
  aborted_ = absl::DeadlineExceededError(absl::StrCat(
      "collective ", seq, " (", phase, "): ",
      missing.empty() ? std::string("a rank did not finish")
                      : absl::StrCat("rank(s) ", absl::StrJoin(missing, ","),
                                     " of ", world_size_, " did not arrive"),
      " within ", absl::FormatDuration(timeout_)));
  return aborted_;
}

absl::Status HostClique::Run(int64_t seq, int rank, Arrival arrival,
                             const Body& body) {
  absl::MutexLock lock(&mu_);
  if (!aborted_.ok()) return aborted_;
  Op& op = ops_[seq];
  if (op.arrivals.empty()) {
    op.arrivals.resize(world_size_);
    op.arrived.assign(world_size_, false);
  }
  op.arrivals[rank] = arrival;
  op.arrived[rank] = true;
  ++op.arrived_count;
  RETURN_IF_ERROR(WaitFor([&] { return op.arrived_count == world_size_; },
                          seq, op, arrival.what));
  // Inputs are read under the lock's protection of `op`, but the copying
  // itself may run concurrently: every rank writes only its own output.
  std::vector<Arrival> arrivals = op.arrivals;
  mu_.Unlock();
  body(arrivals);
  mu_.Lock();
  ++op.done_count;
  RETURN_IF_ERROR(WaitFor([&] { return op.done_count >= world_size_; }, seq,
                          op, "waiting for the others to read"));
  // The last rank to leave frees the op; others may still be waking.
  if (++op.done_count == 2 * world_size_) ops_.erase(seq);
  return absl::OkStatus();
}

namespace {

float Bf16ToFloat(uint16_t bits) {
  uint32_t wide = static_cast<uint32_t>(bits) << 16;
  float f;
  std::memcpy(&f, &wide, 4);
  return f;
}

// Round to nearest even, NaN kept a NaN.
uint16_t FloatToBf16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return (bits >> 16) | 0x40;
  bits += 0x7fff + ((bits >> 16) & 1);
  return bits >> 16;
}

template <typename T>
T Combine(ReductionKind kind, T a, T b) {
  switch (kind) {
    case ReductionKind::kSum:
      return a + b;
    case ReductionKind::kProduct:
      return a * b;
    case ReductionKind::kMax:
      return a < b ? b : a;
    case ReductionKind::kMin:
      return b < a ? b : a;
  }
  return a;
}

// out[i] = reduce over ranks (in rank order) of in_r[offset + i].
template <typename T>
void ReduceTyped(const std::vector<HostClique::Arrival>& in, int64_t offset,
                 int64_t count, ReductionKind kind, void* out) {
  std::vector<T> acc(count);
  for (size_t r = 0; r < in.size(); ++r) {
    const T* src = static_cast<const T*>(in[r].send) + offset;
    for (int64_t i = 0; i < count; ++i) {
      acc[i] = r == 0 ? src[i] : Combine(kind, acc[i], src[i]);
    }
  }
  std::memcpy(out, acc.data(), count * sizeof(T));
}

// bf16 rounds after every step, as the HLO's bf16 add does.
void ReduceBf16(const std::vector<HostClique::Arrival>& in, int64_t offset,
                int64_t count, ReductionKind kind, void* out) {
  std::vector<uint16_t> acc(count);
  for (size_t r = 0; r < in.size(); ++r) {
    const uint16_t* src = static_cast<const uint16_t*>(in[r].send) + offset;
    for (int64_t i = 0; i < count; ++i) {
      acc[i] = r == 0 ? src[i]
                      : FloatToBf16(Combine(kind, Bf16ToFloat(acc[i]),
                                            Bf16ToFloat(src[i])));
    }
  }
  std::memcpy(out, acc.data(), count * 2);
}

absl::Status Reduce(const std::vector<HostClique::Arrival>& in,
                    CollectiveDataType type, int64_t offset, int64_t count,
                    ReductionKind kind, void* out) {
  switch (type) {
    case CollectiveDataType::kF32:
      ReduceTyped<float>(in, offset, count, kind, out);
      return absl::OkStatus();
    case CollectiveDataType::kF64:
      ReduceTyped<double>(in, offset, count, kind, out);
      return absl::OkStatus();
    case CollectiveDataType::kS32:
      ReduceTyped<int32_t>(in, offset, count, kind, out);
      return absl::OkStatus();
    case CollectiveDataType::kU32:
      ReduceTyped<uint32_t>(in, offset, count, kind, out);
      return absl::OkStatus();
    case CollectiveDataType::kS64:
      ReduceTyped<int64_t>(in, offset, count, kind, out);
      return absl::OkStatus();
    case CollectiveDataType::kBF16:
      ReduceBf16(in, offset, count, kind, out);
      return absl::OkStatus();
    case CollectiveDataType::kF16:
      break;
  }
  return absl::UnimplementedError(absl::StrCat(
      "host collectives: reduction of ", CollectiveDataTypeName(type)));
}

class HostCommunicator : public Communicator {
 public:
  HostCommunicator(std::shared_ptr<HostClique> clique, int rank,
                   int world_size)
      : clique_(std::move(clique)), rank_(rank), world_size_(world_size) {}

  int rank() const override { return rank_; }
  int world_size() const override { return world_size_; }

  absl::Status AllReduce(DeviceAddressBase send, DeviceAddressBase recv,
                         CollectiveDataType type, int64_t count,
                         ReductionKind reduction, Stream* stream) override {
    RETURN_IF_ERROR(CheckType(type, true));
    return Enqueue(stream, "all-reduce", send, recv,
                   [=](const std::vector<HostClique::Arrival>& in,
                       void* out, absl::Status* status) {
                     *status = Reduce(in, type, 0, count, reduction, out);
                   });
  }

  absl::Status AllGather(DeviceAddressBase send, DeviceAddressBase recv,
                         CollectiveDataType type, int64_t send_count,
                         Stream* stream) override {
    const int64_t bytes = send_count * CollectiveDataTypeSize(type);
    return Enqueue(stream, "all-gather", send, recv,
                   [=](const std::vector<HostClique::Arrival>& in, void* out,
                       absl::Status*) {
                     for (size_t r = 0; r < in.size(); ++r) {
                       std::memcpy(static_cast<char*>(out) + r * bytes,
                                   in[r].send, bytes);
                     }
                   });
  }

  absl::Status ReduceScatter(DeviceAddressBase send, DeviceAddressBase recv,
                             CollectiveDataType type, int64_t recv_count,
                             ReductionKind reduction, Stream* stream) override {
    RETURN_IF_ERROR(CheckType(type, true));
    return Enqueue(stream, "reduce-scatter", send, recv,
                   [=](const std::vector<HostClique::Arrival>& in, void* out,
                       absl::Status* status) {
                     *status = Reduce(in, type, rank_ * recv_count,
                                      recv_count, reduction, out);
                   });
  }

  absl::Status CollectivePermute(DeviceAddressBase send,
                                 DeviceAddressBase recv,
                                 CollectiveDataType type, int64_t count,
                                 std::optional<int> source,
                                 std::optional<int> target,
                                 Stream* stream) override {
    const int64_t bytes = count * CollectiveDataTypeSize(type);
    return Enqueue(stream, "collective-permute", send, recv,
                   [=](const std::vector<HostClique::Arrival>& in, void* out,
                       absl::Status*) {
                     if (source.has_value()) {
                       std::memcpy(out, in[*source].send, bytes);
                     } else {
                       std::memset(out, 0, bytes);
                     }
                   });
  }

  absl::Status HealthCheck() const override { return clique_->status(); }
  absl::Status Abort(const absl::Status& reason) override {
    clique_->Abort(reason);
    return absl::OkStatus();
  }

 private:
  // Writes this rank's output to `out`, a scratch buffer of the recv
  // buffer's size: recv may be send, which other ranks may still read.
  using Compute = std::function<void(const std::vector<HostClique::Arrival>&,
                                     void* out, absl::Status*)>;

  absl::Status CheckType(CollectiveDataType type, bool reduces) const {
    if (reduces && type == CollectiveDataType::kF16) {
      return absl::UnimplementedError("host collectives: f16 reductions");
    }
    return absl::OkStatus();
  }

  // A replayable host operation: the sequence number is taken when the
  // stream runs it, so a command buffer's replay meets the other ranks'
  // replays.
  absl::Status Enqueue(Stream* stream, const char* what, DeviceAddressBase send,
                       DeviceAddressBase recv, Compute compute) {
    auto* host_stream = dynamic_cast<HostStream*>(stream);
    if (host_stream == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "host collectives: ", what, " on a stream of another platform"));
    }
    std::shared_ptr<HostClique> clique = clique_;
    std::shared_ptr<std::atomic<int64_t>> seq = next_seq_;
    const int rank = rank_;
    return host_stream->Enqueue([=]() -> absl::Status {
      absl::Status computed;
      std::vector<uint8_t> scratch(recv.size());
      HostClique::Arrival arrival{send.opaque(), recv.opaque(), what};
      RETURN_IF_ERROR(clique->Run(
          seq->fetch_add(1), rank, arrival,
          [&](const std::vector<HostClique::Arrival>& in) {
            compute(in, scratch.data(), &computed);
          }));
      // Every rank has read every send buffer: recv may now change.
      if (computed.ok()) {
        std::memcpy(recv.opaque(), scratch.data(), scratch.size());
      }
      VLOG(5) << "host " << what << " rank " << rank << " done";
      return computed;
    });
  }

  std::shared_ptr<HostClique> clique_;
  const int rank_, world_size_;
  std::shared_ptr<std::atomic<int64_t>> next_seq_ =
      std::make_shared<std::atomic<int64_t>>(0);
};

HostCollectivesBackend* Backend() {
  static auto* backend = new HostCollectivesBackend();
  return backend;
}

const bool kRegistered = [] {
  RegisterCollectivesBackend("host", Backend());
  return true;
}();

}  // namespace

absl::StatusOr<std::vector<std::unique_ptr<Communicator>>>
HostCollectivesBackend::CreateCommunicators(
    absl::Span<StreamExecutor* const> executors,
    const CollectiveOptions& options) {
  if (executors.empty()) {
    return absl::InvalidArgumentError("host collectives: no devices");
  }
  for (StreamExecutor* executor : executors) {
    if (executor == nullptr || executor->platform()->Name() != "host") {
      return absl::InvalidArgumentError(
          "host collectives: every rank must be a host device");
    }
  }
  auto clique = std::make_shared<HostClique>(executors.size(), options.timeout);
  std::vector<std::unique_ptr<Communicator>> out;
  for (size_t r = 0; r < executors.size(); ++r) {
    out.push_back(
        std::make_unique<HostCommunicator>(clique, r, executors.size()));
  }
  VLOG(1) << "host collectives: clique of " << executors.size() << " ranks";
  return out;
}

}  // namespace stream_executor::host
