#include "xla_lite/runtime/sequential_thunk.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/status_macros.h"
#include "glog/logging.h"
#include "xla_lite/runtime/kernel_thunk.h"
#include "xla_lite/runtime/thunk_profiler.h"

namespace xla_lite::gpu {
namespace {

absl::Status Annotate(const absl::Status& status, const Thunk& thunk) {
  return absl::Status(status.code(),
                      absl::StrCat(thunk.ToString(), ": ", status.message()));
}

// Thunks whose work is thunk sequences, which measure their own leaves: a
// profiler repeating a loop would rerun it on its own updated state.
bool RunsThunkSequences(Thunk::Kind kind) {
  return kind == Thunk::Kind::kSequential || kind == Thunk::Kind::kWhile ||
         kind == Thunk::Kind::kConditional;
}

bool IsContainer(Thunk::Kind kind) {
  return kind == Thunk::Kind::kSequential ||
         kind == Thunk::Kind::kCommandBuffer || kind == Thunk::Kind::kWhile ||
         kind == Thunk::Kind::kConditional;
}

// Compiles the kernels of `thunks` several at a time before Initialize
// loads them one by one (CompileKernels).
void CompileKernelsOf(const ThunkSequence& thunks,
                      const Thunk::InitializeParams& params) {
  std::vector<const se::KernelSpec*> specs;
  for (const auto& thunk : thunks) {
    if (thunk->kind() == Thunk::Kind::kKernel) {
      specs.push_back(&static_cast<const KernelThunk&>(*thunk).spec());
    }
  }
  const int64_t forced =
      params.debug_options == nullptr
          ? 0
          : params.debug_options->xla_gpu_force_compilation_parallelism();
  CompileKernels(params.executor, specs, CompileThreads(forced, specs.size()));
}

}  // namespace

SequentialThunk::SequentialThunk(std::string name, ThunkSequence thunks)
    : Thunk(Kind::kSequential, std::move(name)), thunks_(std::move(thunks)) {}

absl::Status SequentialThunk::Initialize(const InitializeParams& params) {
  // Leaves' time by kind, said once: initialization (loading kernels,
  // preparing library calls) is most of a warm first step.
  const bool timed = VLOG_IS_ON(1);
  std::map<std::string, std::pair<int64_t, absl::Duration>> by_kind;
  absl::Time start = absl::Now();
  CompileKernelsOf(thunks_, params);
  // The loop below finds those kernels compiled; their time is the batch's
  // and the loop's.
  const absl::Duration kernel_batch = absl::Now() - start;
  for (const auto& thunk : thunks_) {
    absl::Time thunk_start = timed ? absl::Now() : absl::InfinitePast();
    absl::Status status = thunk->Initialize(params);
    if (!status.ok()) return Annotate(status, *thunk);
    if (timed && !IsContainer(thunk->kind())) {
      auto& [count, time] = by_kind[ThunkKindName(thunk->kind())];
      ++count;
      time += absl::Now() - thunk_start;
    }
  }
  if (auto it = by_kind.find(ThunkKindName(Kind::kKernel));
      it != by_kind.end()) {
    it->second.second += kernel_batch;
  }
  if (timed && !by_kind.empty()) {
    std::vector<std::string> parts;
    for (const auto& [kind, entry] : by_kind) {
      parts.push_back(
          absl::StrFormat("%d %s %.1f ms", entry.first, kind,
                          absl::ToDoubleMilliseconds(entry.second)));
    }
    VLOG(1) << ToString() << ": initialized in "
            << absl::ToDoubleMilliseconds(absl::Now() - start) << " ms ("
            << absl::StrJoin(parts, ", ") << ")";
  }
  return absl::OkStatus();
}

absl::Status SequentialThunk::ExecuteOnStream(const ExecuteParams& params) {
  for (const auto& thunk : thunks_) {
    VLOG(5) << "execute " << thunk->ToString();
    absl::Status status =
        params.profiler == nullptr || RunsThunkSequences(thunk->kind())
            ? thunk->ExecuteOnStream(params)
            : params.profiler->Measure(*thunk, *params.stream, [&] {
                return thunk->ExecuteOnStream(params);
              });
    if (!status.ok()) return Annotate(status, *thunk);
    // Containers count their own leaves.
    if (params.stats != nullptr && !IsContainer(thunk->kind())) {
      ++params.stats->thunks_executed;
    }
  }
  return absl::OkStatus();
}

BufferUses SequentialThunk::buffer_uses() const {
  BufferUses uses;
  for (const auto& thunk : thunks_) {
    BufferUses inner = thunk->buffer_uses();
    uses.insert(uses.end(), inner.begin(), inner.end());
  }
  return uses;
}

bool SequentialThunk::AllRecordable() const {
  for (const auto& thunk : thunks_) {
    if (!thunk->IsRecordable()) return false;
  }
  return true;
}

absl::Status SequentialThunk::RecordNested(const RecordParams& params,
                                           se::CommandBuffer& nested) const {
  const se::CommandBuffer::Command* previous = nullptr;
  for (const auto& thunk : thunks_) {
    std::vector<const se::CommandBuffer::Command*> deps;
    if (previous != nullptr) deps.push_back(previous);
    const int before = nested.num_commands();
    ASSIGN_OR_RETURN(previous, thunk->Record(params, &nested, deps));
    CHECK_EQ(nested.num_commands(), before + 1)
        << thunk->name() << ": Record adds exactly one command";
  }
  return absl::OkStatus();
}

absl::Status SequentialThunk::UpdateNested(const RecordParams& params,
                                           se::CommandBuffer& nested) const {
  for (int i = 0; i < thunks_.size(); ++i) {
    RETURN_IF_ERROR(
        thunks_[i]->UpdateRecorded(params, &nested, &nested.command(i)));
  }
  return absl::OkStatus();
}

}  // namespace xla_lite::gpu
