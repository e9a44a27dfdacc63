#include "xla_lite/runtime/kernel_preload.h"

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
  std::vector<se::KernelSpec> specs;
  Collect(thunks, specs);
  return specs;
}

void PreloadKernels(se::StreamExecutor* executor,
                    const std::vector<se::KernelSpec>& specs,
                    int64_t forced_threads) {
  std::vector<const se::KernelSpec*> pointers;
  for (const se::KernelSpec& spec : specs) pointers.push_back(&spec);
  CompileKernels(executor, pointers,
                 CompileThreads(forced_threads, pointers.size()));
  int loaded = 0;
  for (const se::KernelSpec& spec : specs) {
    if (executor->LoadKernel(spec).ok()) ++loaded;
  }
  VLOG(1) << "preloaded " << loaded << " of " << specs.size() << " kernels";
}

}  // namespace xla_lite::gpu
