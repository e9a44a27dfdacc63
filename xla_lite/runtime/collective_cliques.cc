#include "xla_lite/runtime/collective_cliques.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "glog/logging.h"
#include "stream_executor/platform.h"

namespace xla_lite::gpu {

CollectiveCliques::CollectiveCliques(std::vector<se::StreamExecutor*> devices,
                                     DeviceTopology topology,
                                     se::CollectiveOptions options)
    : devices_(std::move(devices)), topology_(topology), options_(options) {}

absl::StatusOr<se::Communicator*> CollectiveCliques::Get(
    const std::vector<int64_t>& group, int64_t device) {
  int64_t rank = -1;
  for (size_t i = 0; i < group.size(); ++i) {
    if (group[i] == device) rank = i;
  }
  if (rank < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "device ", device, " is not in group {", absl::StrJoin(group, ","),
        "}"));
  }
  absl::MutexLock lock(&mu_);
  auto it = cliques_.find(group);
  if (it != cliques_.end()) return it->second[rank].get();
  std::vector<se::StreamExecutor*> executors;
  for (int64_t id : group) {
    if (id < 0 || id >= static_cast<int64_t>(devices_.size())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "device ", id, " of group {", absl::StrJoin(group, ","),
          "} is not one of the run's ", devices_.size(), " devices"));
    }
    executors.push_back(devices_[id]);
  }
  ASSIGN_OR_RETURN(se::CollectivesBackend * backend,
                   se::CollectivesBackendFor(
                       executors[0]->platform()->Name()));
  // Creation happens under the lock: a second device of the group waits
  // here instead of creating a second set.
  ASSIGN_OR_RETURN(std::vector<std::unique_ptr<se::Communicator>> comms,
                   backend->CreateCommunicators(executors, options_));
  VLOG(1) << "collective clique {" << absl::StrJoin(group, ",") << "} on "
          << backend->name();
  se::Communicator* mine = comms[rank].get();
  cliques_.emplace(group, std::move(comms));
  return mine;
}

void CollectiveCliques::AbortAll(const absl::Status& reason) {
  absl::MutexLock lock(&mu_);
  for (auto& [group, comms] : cliques_) {
    for (auto& comm : comms) {
      absl::Status aborted = comm->Abort(reason);
      if (!aborted.ok()) LOG(WARNING) << "abort: " << aborted;
    }
  }
}

int64_t CollectiveCliques::cliques_created() const {
  absl::MutexLock lock(&mu_);
  return cliques_.size();
}

}  // namespace xla_lite::gpu
