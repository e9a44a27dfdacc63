#ifndef STREAM_EXECUTOR_COLLECTIVES_UNIQUE_ID_EXCHANGE_H_
#define STREAM_EXECUTOR_COLLECTIVES_UNIQUE_ID_EXCHANGE_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace stream_executor {

// Where the processes of a multi-process run (one per GPU, possibly on
// several hosts) meet to share a communicator's unique id.
struct RendezvousConfig {
  int rank = 0;
  int world_size = 1;
  std::string address = "127.0.0.1";  // rank 0's host
  int port = 0;
  absl::Duration timeout = absl::Seconds(60);
};

// From the variables torchrun sets: RANK, WORLD_SIZE, MASTER_ADDR,
// MASTER_PORT. For the CLI to call once at start-up (the runtime never
// reads the environment); INVALID_ARGUMENT naming a variable that is
// missing or malformed.
absl::StatusOr<RendezvousConfig> RendezvousConfigFromEnvironment(
    absl::Duration timeout);

// Rank 0 listens on `port` and sends `id` to each of the other ranks as
// they connect; the others connect to address:port (retrying until the
// timeout, as rank 0 may start later) and return what rank 0 sent. Rank 0
// returns `id`. DEADLINE_EXCEEDED naming the ranks or address that did
// not show up in time, never a hang.
absl::StatusOr<std::string> ExchangeUniqueId(const RendezvousConfig& config,
                                             const std::string& id);

}  // namespace stream_executor

#endif  // STREAM_EXECUTOR_COLLECTIVES_UNIQUE_ID_EXCHANGE_H_
