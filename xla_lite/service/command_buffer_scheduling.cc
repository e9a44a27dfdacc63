#include "xla_lite/service/command_buffer_scheduling.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "glog/logging.h"
#include "xla_lite/runtime/command_buffer_thunk.h"

namespace xla_lite::gpu {
bool CanRecordInCommandBuffer(const Thunk& thunk, const DebugOptions& options) {
  std::optional<DebugOptions::CommandBufferCmdType> type =
      CommandBufferCmdTypeOf(thunk.kind());
  if (!type.has_value() || !thunk.IsRecordable()) return false;
  const auto& enabled = options.xla_gpu_enable_command_buffer();
  return std::find(enabled.begin(), enabled.end(), *type) != enabled.end();
}

ThunkSequence ScheduleCommandBuffers(ThunkSequence thunks,
                                     const DebugOptions& options) {
  const size_t min_size = std::max(1, options.xla_gpu_graph_min_graph_size());
  ThunkSequence scheduled;
  ThunkSequence run;
  int64_t buffers = 0;
  int64_t wrapped = 0;
  // Moves the pending run into `scheduled`, wrapped when it is long enough.
  auto flush = [&] {
    if (run.size() < min_size) {
      for (auto& thunk : run) scheduled.push_back(std::move(thunk));
    } else {
      wrapped += run.size();
      std::string name = absl::StrCat("command_buffer.", buffers++);
      scheduled.push_back(
          std::make_unique<CommandBufferThunk>(name, std::move(run)));
    }
    run.clear();
  };
  const size_t total = thunks.size();
  for (auto& thunk : thunks) {
    if (CanRecordInCommandBuffer(*thunk, options)) {
      run.push_back(std::move(thunk));
      continue;
    }
    flush();
    scheduled.push_back(std::move(thunk));
  }
  flush();
  VLOG(1) << "command buffer scheduling: " << wrapped << " of " << total
          << " thunks in " << buffers << " command buffers";
  return scheduled;
}

}  // namespace xla_lite::gpu
