#ifndef XLA_LITE_RUNTIME_PARAMETER_STABILIZER_H_
#define XLA_LITE_RUNTIME_PARAMETER_STABILIZER_H_

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "stream_executor/device_address.h"
#include "xla_lite/runtime/buffer_allocation.h"
#include "xla_lite/runtime/buffer_allocations.h"
#include "xla_lite/runtime/thunk.h"

namespace xla_lite::gpu {

// Keeps the entry parameters of one command buffer on one executor at
// stable addresses (DebugOptions' parameter stabilization, COPY or STAGED),
// so that a caller handing a new buffer every step costs one copy instead of
// an update of every command that reads it and a re-trace of library calls.
//
// A parameter is stabilized once its address is seen to move: against the
// warmup's address when the command buffer is first recorded, against the
// recorded one later. From then on the commands point at the parameter's
// stable buffer; each execution copies the caller's buffer in when it is
// another one (a caller that writes into the stable buffer itself, STAGED,
// copies nothing), and copies written results back out after the launch, so
// a donated parameter's buffer ends up holding its aliased result.
//
// Not thread-safe: the owning CommandBufferThunk's per-executor lock
// guards it.
class ParameterStabilizer {
 public:
  // `allocations` are the command buffer's, ascending; `written[p]` says
  // whether its commands write allocations[p].
  ParameterStabilizer(std::vector<BufferAllocation::Index> allocations,
                      std::vector<bool> written);

  struct Plan {
    // The execution's addresses with stable buffers in place of stabilized
    // parameters; nullopt when nothing is replaced.
    std::optional<BufferAllocations> buffers;
    // (stable buffer, caller's buffer) of each written parameter to copy
    // back after the launch.
    std::vector<std::pair<se::DeviceAddressBase, se::DeviceAddressBase>>
        copy_backs;
  };

  // Whether `params` ask for stabilization (a mode other than NONE, and
  // stable buffers to use).
  static bool Enabled(const Thunk::ExecuteParams& params);

  void RememberWarmup(const BufferAllocations& buffers);

  // Decides which parameters run from stable buffers and enqueues the
  // copies into them on params.stream. `held` are the addresses the
  // recorded commands hold, by position; empty before the first record.
  absl::StatusOr<Plan> Prepare(const Thunk::ExecuteParams& params,
                               absl::Span<const se::DeviceAddressBase> held);

  // Enqueues the copies back into the caller's buffers.
  absl::Status CopyBack(const Plan& plan, const Thunk::ExecuteParams& params);

 private:
  const std::vector<BufferAllocation::Index> allocations_;
  const std::vector<bool> written_;
  // By position: the addresses of the warmup execution.
  std::vector<se::DeviceAddressBase> warmup_;
  // By position: whether the commands use the stable buffer.
  std::vector<bool> stabilized_;
};

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_RUNTIME_PARAMETER_STABILIZER_H_
