#include "xla_lite/runtime/kernel_preload.h"

#include <string>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "glog/logging.h"
#include "xla_lite/runtime/command_buffer_thunk.h"
#include "xla_lite/runtime/conditional_thunk.h"
#include "xla_lite/runtime/kernel_thunk.h"
#include "xla_lite/runtime/sequential_thunk.h"
#include "xla_lite/runtime/while_thunk.h"

namespace xla_lite::gpu {
namespace {

void Collect(const ThunkSequence& thunks, std::vector<se::KernelSpec>& specs) {
  for (const auto& thunk : thunks) {
    switch (thunk->kind()) {
      case Thunk::Kind::kKernel:
        specs.push_back(static_cast<const KernelThunk&>(*thunk).spec());
        break;
      case Thunk::Kind::kSequential:
        Collect(static_cast<const SequentialThunk&>(*thunk).thunks(), specs);
        break;
      case Thunk::Kind::kCommandBuffer:
        Collect(static_cast<const CommandBufferThunk&>(*thunk).thunks(), specs);
        break;
      case Thunk::Kind::kWhile: {
        const auto& loop = static_cast<const WhileThunk&>(*thunk);
        Collect(loop.condition().thunks(), specs);
        Collect(loop.body().thunks(), specs);
        break;
      }
      case Thunk::Kind::kConditional:
        for (const auto& branch :
             static_cast<const ConditionalThunk&>(*thunk).branches()) {
          Collect(branch->thunks(), specs);
        }
        break;
      default:
        break;
    }
  }
}

}  // namespace

std::vector<se::KernelSpec> KernelSpecsUnder(const ThunkSequence& thunks) {
  std::vector<se::KernelSpec> all, distinct;
  Collect(thunks, all);
  // Copies of one kernel (a loop's body unrolled, say) would compile on
  // several threads at once.
  absl::flat_hash_set<std::string> sources;
  for (se::KernelSpec& spec : all) {
    if (sources.insert(spec.cuda_source).second) {
      distinct.push_back(std::move(spec));
    }
  }
  return distinct;
}

int64_t PreloadKernels(se::StreamExecutor* executor,
                       const std::vector<se::KernelSpec>& specs,
                       int64_t forced_threads, const std::atomic<bool>* stop) {
  std::vector<const se::KernelSpec*> pointers;
  for (const se::KernelSpec& spec : specs) pointers.push_back(&spec);
  CompileKernels(executor, pointers,
                 CompileThreads(forced_threads, pointers.size()), stop);
  int64_t loaded = 0;
  for (const se::KernelSpec& spec : specs) {
    if (stop != nullptr && *stop) break;
    // After a failure the batch stopped: going on would compile the rest
    // one at a time, which initialization does several at a time.
    if (!executor->LoadKernel(spec).ok()) break;
    ++loaded;
  }
  VLOG(1) << "preloaded " << loaded << " of " << specs.size() << " kernels";
  return loaded;
}

KernelPreload::KernelPreload(se::StreamExecutor* executor,
                             std::vector<se::KernelSpec> specs,
                             int64_t forced_threads)
    : executor_(executor) {
  done_ = std::async(std::launch::async,
                     [this, specs = std::move(specs), forced_threads] {
                       PreloadKernels(executor_, specs, forced_threads, &stop_);
                     });
}

KernelPreload::~KernelPreload() {
  Stop();
  Wait();
}

}  // namespace xla_lite::gpu
