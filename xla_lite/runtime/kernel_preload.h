#ifndef XLA_LITE_RUNTIME_KERNEL_PRELOAD_H_
#define XLA_LITE_RUNTIME_KERNEL_PRELOAD_H_

// The kernels of a compiled program, loaded before its first
// initialization asks for them.
//
// Initialization loads each KernelThunk's kernel: compiled or read from the
// kernel cache, then loaded as a module. With a warm disk cache that is
// most of a fresh process's first step (121 modules, 25 ms for the f32
// medium transformer on an H200), and none of it needs the program's
// buffers or a stream. So the compiler starts a KernelPreload as soon as
// the thunks exist, which runs while the caller prepares the step's
// arguments. The executable's first initialization on the preload's
// executor waits for it and then finds every module loaded: a GPU executor
// keeps compiled images and loaded modules, and a kernel loaded again is a
// lookup. (The host loads a kernel by wrapping its host function; nothing
// is cached, and the preload only exercises the same path.) An executable
// destroyed before it ran stops the preload after the kernel in hand, so
// it never waits for a cold cache's compiles nobody needs.

#include <atomic>
#include <cstdint>
#include <future>
#include <memory>
#include <vector>

#include "stream_executor/kernel.h"
#include "stream_executor/stream_executor.h"
#include "xla_lite/runtime/thunk.h"

namespace xla_lite::gpu {

// The specs of the KernelThunks in `thunks` and in the sequences under them
// (command buffers, loops' conditions and bodies, conditionals' branches),
// in program order, each distinct source once.
std::vector<se::KernelSpec> KernelSpecsUnder(const ThunkSequence& thunks);

// Compiles `specs` several at a time (CompileKernels, with
// CompileThreads(`forced_threads`)), then loads each on `executor`, in
// order, until one fails or `stop` is set. Errors are dropped:
// initialization meets a failing kernel again and reports it where the
// program uses it. Returns how many it loaded.
int64_t PreloadKernels(se::StreamExecutor* executor,
                       const std::vector<se::KernelSpec>& specs,
                       int64_t forced_threads,
                       const std::atomic<bool>* stop = nullptr);

// PreloadKernels on a thread of its own. `executor` must outlive it.
class KernelPreload {
 public:
  KernelPreload(se::StreamExecutor* executor, std::vector<se::KernelSpec> specs,
                int64_t forced_threads);
  // Stops and joins.
  ~KernelPreload();
  KernelPreload(const KernelPreload&) = delete;
  KernelPreload& operator=(const KernelPreload&) = delete;

  se::StreamExecutor* executor() const { return executor_; }
  // Returns once every kernel is loaded, or the preload stopped.
  void Wait() const { done_.wait(); }
  // Lets the preload stop after the kernel in hand.
  void Stop() { stop_ = true; }

 private:
  se::StreamExecutor* const executor_;
  std::atomic<bool> stop_{false};
  // The thread's; std::async's state joins it when destroyed.
  std::future<void> done_;
};

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_RUNTIME_KERNEL_PRELOAD_H_
