#ifndef XLA_LITE_RUNTIME_KERNEL_PRELOAD_H_
#define XLA_LITE_RUNTIME_KERNEL_PRELOAD_H_

// The kernels of a compiled program, loaded before its first
// initialization asks for them.
//
// Initialization loads each KernelThunk's kernel: compiled or read from the
// kernel cache, then loaded as a module. With a warm disk cache that is
// most of a fresh process's first step (121 modules, 25 ms for the f32
// medium transformer on an H200), and none of it needs the program's
// buffers or a stream. So the compiler loads them on a thread of its own
// as soon as the thunks exist, while the caller prepares the step's
// arguments, and the executable's first initialization waits for that
// thread (GpuExecutable::Params::kernels_loaded) and then finds every
// module loaded: the executor keeps compiled images and loaded modules,
// and a kernel loaded again is a lookup.

#include <cstdint>
#include <vector>

#include "stream_executor/kernel.h"
#include "stream_executor/stream_executor.h"
#include "xla_lite/runtime/thunk.h"

namespace xla_lite::gpu {

// The specs of the KernelThunks in `thunks` and in the sequences under them
// (command buffers, loops' conditions and bodies, conditionals' branches),
// in program order.
std::vector<se::KernelSpec> KernelSpecsUnder(const ThunkSequence& thunks);

// Compiles `specs` several at a time (CompileKernels, with
// CompileThreads(`forced_threads`)), then loads each on `executor`, in
// order. Errors are dropped: initialization meets a failing kernel again
// and reports it where the program uses it.
void PreloadKernels(se::StreamExecutor* executor,
                    const std::vector<se::KernelSpec>& specs,
                    int64_t forced_threads);

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_RUNTIME_KERNEL_PRELOAD_H_
