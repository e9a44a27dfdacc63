#ifndef XLA_LITE_SERVICE_COMMAND_BUFFER_SCHEDULING_H_
#define XLA_LITE_SERVICE_COMMAND_BUFFER_SCHEDULING_H_

#include "xla_lite/debug_options.pb.h"
#include "xla_lite/runtime/thunk.h"

namespace xla_lite::gpu {

// Wraps each maximal run of consecutive thunks that can live in a command
// buffer into a CommandBufferThunk. A thunk can when it is recordable and
// its command type (CommandBufferCmdTypeOf) is listed in
// xla_gpu_enable_command_buffer. A run shorter than
// xla_gpu_graph_min_graph_size stays op by op, since a graph launch has a
// fixed cost that a couple of plain launches may not repay.
//
// Everything else (other thunk kinds, disabled types, SequentialThunks,
// which it does not look into) ends a run and stays where it is, so the
// order of the work is unchanged. Wrappers are named "command_buffer.<n>"
// in sequence order.
ThunkSequence ScheduleCommandBuffers(ThunkSequence thunks,
                                     const DebugOptions& options);

// Whether `thunk` can be recorded into a command buffer under `options`:
// recordable, and its command type enabled.
bool CanRecordInCommandBuffer(const Thunk& thunk, const DebugOptions& options);

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_SERVICE_COMMAND_BUFFER_SCHEDULING_H_
