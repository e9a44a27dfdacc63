#ifndef XLA_LITE_RUNTIME_COLLECTIVE_CLIQUES_H_
#define XLA_LITE_RUNTIME_COLLECTIVE_CLIQUES_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "stream_executor/collectives/communicator.h"
#include "stream_executor/stream_executor.h"
#include "xla_lite/collective_groups.h"

namespace xla_lite::gpu {

// The devices of a run on several devices of this process and their
// communicators: one set per device group, created the first time any of
// its devices asks and cached for the life of this object (every step of
// a training loop reuses them). Shared by the threads that drive the
// devices, so everything is under one lock.
class CollectiveCliques {
 public:
  // devices[d] is global device d (d < topology.device_count()).
  CollectiveCliques(std::vector<se::StreamExecutor*> devices,
                    DeviceTopology topology, se::CollectiveOptions options);

  const DeviceTopology& topology() const { return topology_; }
  se::StreamExecutor* device(int64_t id) const { return devices_.at(id); }

  // Device `device`'s communicator in `group` (global device ids; its rank
  // is its position). The group's communicators are created together, by
  // the first device to ask, and kept only when creation succeeded: a
  // failure is returned and the next request tries again.
  absl::StatusOr<se::Communicator*> Get(const std::vector<int64_t>& group,
                                        int64_t device);

  // Aborts every communicator created: a device that failed must not
  // leave the others waiting at a collective.
  void AbortAll(const absl::Status& reason);

  // Communicator sets created so far (one per device group).
  int64_t cliques_created() const;

 private:
  const std::vector<se::StreamExecutor*> devices_;
  const DeviceTopology topology_;
  const se::CollectiveOptions options_;
  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::vector<int64_t>,
                      std::vector<std::unique_ptr<se::Communicator>>>
      cliques_ ABSL_GUARDED_BY(mu_);
};

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_RUNTIME_COLLECTIVE_CLIQUES_H_
