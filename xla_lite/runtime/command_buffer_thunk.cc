#include "xla_lite/runtime/command_buffer_thunk.h"

#include <algorithm>
#include <utility>

#include "absl/algorithm/container.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/file_util.h"
#include "base/status_macros.h"
#include "glog/logging.h"
#include "xla_lite/runtime/command_dependencies.h"
#include "xla_lite/runtime/command_priorities.h"

namespace xla_lite::gpu {
namespace {

using Command = se::CommandBuffer::Command;

absl::Status AnnotateWith(const absl::Status& status, const Thunk& thunk) {
  return absl::Status(status.code(),
                      absl::StrCat(thunk.ToString(), ": ", status.message()));
}

ThunkSequence CheckRecordable(ThunkSequence thunks) {
  for (const auto& thunk : thunks) {
    CHECK(thunk->IsRecordable())
        << thunk->ToString() << " cannot be recorded into a command buffer";
  }
  return thunks;
}

std::vector<BufferAllocation::Index> UsedAllocations(
    const ThunkSequence& thunks) {
  std::vector<BufferAllocation::Index> used;
  for (const auto& thunk : thunks) {
    for (const BufferUse& use : thunk->buffer_uses()) {
      used.push_back(use.slice.index());
    }
  }
  std::sort(used.begin(), used.end());
  used.erase(std::unique(used.begin(), used.end()), used.end());
  return used;
}

std::vector<std::vector<int64_t>> ThunkAllocations(
    const ThunkSequence& thunks,
    const std::vector<BufferAllocation::Index>& allocations) {
  std::vector<std::vector<int64_t>> positions;
  for (const auto& thunk : thunks) {
    std::vector<int64_t> mine;
    for (const BufferUse& use : thunk->buffer_uses()) {
      auto it = std::lower_bound(allocations.begin(), allocations.end(),
                                 use.slice.index());
      mine.push_back(it - allocations.begin());
    }
    std::sort(mine.begin(), mine.end());
    mine.erase(std::unique(mine.begin(), mine.end()), mine.end());
    positions.push_back(std::move(mine));
  }
  return positions;
}

// By position in `allocations`: whether some thunk writes it.
std::vector<bool> WrittenAllocations(
    const ThunkSequence& thunks,
    const std::vector<BufferAllocation::Index>& allocations) {
  std::vector<bool> written(allocations.size(), false);
  for (const auto& thunk : thunks) {
    for (const BufferUse& use : thunk->buffer_uses()) {
      if (use.access != BufferUse::Access::kWrite) continue;
      auto it = std::lower_bound(allocations.begin(), allocations.end(),
                                 use.slice.index());
      written[it - allocations.begin()] = true;
    }
  }
  return written;
}

std::vector<std::vector<int64_t>> Dependencies(const ThunkSequence& thunks) {
  CommandDependencies tracker;
  std::vector<std::vector<int64_t>> dependencies;
  for (int64_t i = 0; i < thunks.size(); ++i) {
    BufferUses uses = thunks[i]->buffer_uses();
    dependencies.push_back(tracker.DependenciesOf(uses));
    if (VLOG_IS_ON(5)) {
      // Which bytes make a command wait is what to look at when a graph
      // runs more serially than its values need.
      std::string slices;
      for (const BufferUse& use : uses) {
        absl::StrAppend(&slices, " ", use.slice.ToString(),
                        use.access == BufferUse::Access::kWrite ? " W" : " R");
      }
      VLOG(5) << "command " << i << " " << thunks[i]->ToString()
              << " conflicts with {" << absl::StrJoin(dependencies.back(), ",")
              << "}; uses" << slices;
    }
    tracker.Add(i, uses);
  }
  const int64_t dropped = DropImpliedDependencies(dependencies);
  VLOG(1) << thunks.size() << " commands: " << dropped
          << " edges dropped as implied by longer paths";
  return dependencies;
}

std::vector<bool> Critical(const ThunkSequence& thunks,
                           const std::vector<std::vector<int64_t>>& deps) {
  std::vector<double> micros;
  for (const auto& thunk : thunks) micros.push_back(EstimatedMicros(*thunk));
  std::vector<bool> critical = CriticalCommands(micros, deps, kCriticalSlack);
  VLOG(1) << absl::c_count(critical, true) << " of " << thunks.size()
          << " commands on the longest path";
  return critical;
}

// What a command buffer and the trace caches that feed it have counted so
// far, as the ExecutionStats counters they feed; what a record or update
// did is the difference of two readings.
ExecutionCounters CountersOf(
    const se::CommandBuffer& command_buffer,
    const std::vector<std::unique_ptr<TraceCache>>& trace_caches) {
  se::CommandBuffer::Counters graph = command_buffer.counters();
  ExecutionCounters counters;
  counters.command_buffer_instantiations = graph.instantiations;
  counters.command_buffer_node_updates = graph.node_updates;
  counters.command_buffer_reinstantiations = graph.reinstantiations;
  for (const auto& cache : trace_caches) {
    counters.command_buffer_traces += cache->counters().traces;
    counters.command_buffer_trace_cache_hits += cache->counters().hits;
  }
  return counters;
}

void AddSince(const ExecutionCounters& before, const ExecutionCounters& after,
              ExecutionStats* stats) {
  if (stats != nullptr) stats->Add(after - before);
}

// Thunk names come from HLO and may hold anything; file names may not.
std::string FileNameOf(absl::string_view name) {
  std::string file(name);
  for (char& c : file) {
    if (!absl::ascii_isalnum(c) && c != '.' && c != '-' && c != '_') c = '_';
  }
  return file;
}

double MicrosSince(absl::Time start) {
  return absl::ToDoubleMicroseconds(absl::Now() - start);
}

}  // namespace

CommandBufferThunk::ExecutorState::ExecutorState(
    int64_t thunk_count, int64_t trace_cache_capacity,
    std::vector<BufferAllocation::Index> allocations,
    std::vector<bool> written)
    : stabilizer(std::move(allocations), std::move(written)) {
  for (int64_t i = 0; i < thunk_count; ++i) {
    trace_caches.push_back(std::make_unique<TraceCache>(trace_cache_capacity));
  }
}

CommandBufferThunk::CommandBufferThunk(std::string name, ThunkSequence thunks)
    : Thunk(Kind::kCommandBuffer, name),
      sequence_(std::make_unique<SequentialThunk>(
          std::move(name), CheckRecordable(std::move(thunks)))),
      allocations_(UsedAllocations(sequence_->thunks())),
      thunk_allocations_(ThunkAllocations(sequence_->thunks(), allocations_)),
      written_(WrittenAllocations(sequence_->thunks(), allocations_)),
      dependencies_(Dependencies(sequence_->thunks())),
      critical_(Critical(sequence_->thunks(), dependencies_)) {}

CommandBufferThunk::~CommandBufferThunk() {
  if (!VLOG_IS_ON(1)) return;
  absl::MutexLock lock(&mu_);
  for (auto& [executor, state] : states_) {
    absl::MutexLock state_lock(&state->mu);
    VLOG(1) << ToString() << ": device " << executor->device_ordinal() << ": "
            << state->executions << " executions, " << state->records
            << " records";
  }
}

absl::Status CommandBufferThunk::Initialize(const InitializeParams& params) {
  RETURN_IF_ERROR(sequence_->Initialize(params));
  absl::MutexLock lock(&mu_);
  if (states_.contains(params.executor)) return absl::OkStatus();
  int64_t capacity =
      params.debug_options == nullptr
          ? 0
          : params.debug_options->xla_gpu_command_buffer_trace_cache_size();
  states_.emplace(params.executor,
                  std::make_unique<ExecutorState>(thunks().size(), capacity,
                                                  allocations_, written_));
  int64_t edges = 0;
  for (const auto& deps : dependencies_) edges += deps.size();
  VLOG(1) << ToString() << ": " << thunks().size() << " commands, " << edges
          << " edges over " << allocations_.size()
          << " allocations, trace cache of " << capacity << " on device "
          << params.executor->device_ordinal();
  return absl::OkStatus();
}

BufferUses CommandBufferThunk::buffer_uses() const {
  return sequence_->buffer_uses();
}

absl::StatusOr<CommandBufferThunk::ExecutorState*> CommandBufferThunk::GetState(
    se::StreamExecutor* executor) {
  absl::MutexLock lock(&mu_);
  auto it = states_.find(executor);
  if (it == states_.end()) {
    return absl::FailedPreconditionError(
        absl::StrFormat("%s was not initialized on device %d", ToString(),
                        executor->device_ordinal()));
  }
  return it->second.get();
}

absl::Status CommandBufferThunk::ExecuteOnStream(const ExecuteParams& params) {
  ASSIGN_OR_RETURN(ExecutorState * state, GetState(params.executor()));
  absl::MutexLock lock(&state->mu);
  RETURN_IF_ERROR(Execute(*state, params));
  ++state->executions;
  return absl::OkStatus();
}

absl::Status CommandBufferThunk::Execute(ExecutorState& state,
                                         const ExecuteParams& params) {
  if (!state.warmed_up) {
    VLOG(3) << ToString() << ": execution " << state.executions
            << ": warmup, op by op";
    RETURN_IF_ERROR(RunOpByOp(params));
    state.stabilizer.RememberWarmup(*params.buffer_allocations);
    state.warmed_up = true;
    return absl::OkStatus();
  }
  if (state.unsupported) return RunOpByOp(params);
  // Stabilized parameters replace the caller's addresses before anything
  // compares or records addresses, so traced commands see them too.
  ASSIGN_OR_RETURN(ParameterStabilizer::Plan plan,
                   state.stabilizer.Prepare(params, state.addresses));
  ExecuteParams stable = params;
  if (plan.buffers.has_value()) stable.buffer_allocations = &*plan.buffers;
  if (state.command_buffer == nullptr) {
    RETURN_IF_ERROR(Record(state, stable));
  } else {
    RETURN_IF_ERROR(UpdateMoved(state, stable));
  }
  RETURN_IF_ERROR(state.unsupported ? RunOpByOp(stable)
                                    : Submit(state, stable));
  return state.stabilizer.CopyBack(plan, params);
}

absl::Status CommandBufferThunk::RunOpByOp(const ExecuteParams& params) {
  return sequence_->ExecuteOnStream(params);
}

absl::Status CommandBufferThunk::Record(ExecutorState& state,
                                        const ExecuteParams& params) {
  absl::Time start = absl::Now();
  absl::StatusOr<std::unique_ptr<se::CommandBuffer>> created =
      params.executor()->CreateCommandBuffer();
  if (absl::IsUnimplemented(created.status())) {
    VLOG(1) << ToString() << ": device " << params.executor()->device_ordinal()
            << " runs op by op: " << created.status().message();
    state.unsupported = true;
    return absl::OkStatus();
  }
  if (!created.ok()) return Annotate(created.status());
  se::CommandBuffer& command_buffer = **created;

  ExecutionCounters before = CountersOf(command_buffer, state.trace_caches);
  absl::StatusOr<std::vector<const Command*>> commands =
      RecordCommands(state, params, command_buffer);
  absl::Status status = commands.status();
  if (status.ok()) status = command_buffer.Finalize();
  AddSince(before, CountersOf(command_buffer, state.trace_caches),
           params.stats);
  if (absl::IsUnimplemented(status)) {
    // A command this platform cannot record (a loop node without
    // conditional nodes): the sequence runs op by op, as without graphs.
    VLOG(1) << ToString() << ": device " << params.executor()->device_ordinal()
            << " runs op by op: " << status.message();
    state.unsupported = true;
    return absl::OkStatus();
  }
  if (!status.ok()) return Annotate(status);

  state.command_buffer = *std::move(created);
  state.commands = *std::move(commands);
  state.addresses = CurrentAddresses(*params.buffer_allocations);
  ++state.records;
  if (params.stats != nullptr) ++params.stats->command_buffer_records;
  VLOG(1) << ToString() << ": execution " << state.executions << ": recorded "
          << state.commands.size() << " commands on device "
          << params.executor()->device_ordinal() << " in " << MicrosSince(start)
          << " us";
  DumpDot(state, params);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<const Command*>> CommandBufferThunk::RecordCommands(
    ExecutorState& state, const ExecuteParams& params,
    se::CommandBuffer& command_buffer) {
  const ThunkSequence& sequence = thunks();
  const bool prioritize =
      params.debug_options != nullptr &&
      params.debug_options->xla_gpu_command_buffer_priorities();
  std::vector<const Command*> commands;
  for (int64_t i = 0; i < sequence.size(); ++i) {
    std::vector<const Command*> deps;
    for (int64_t d : dependencies_[i]) deps.push_back(commands[d]);
    command_buffer.set_priority(prioritize && critical_[i]
                                    ? Command::Priority::kHigh
                                    : Command::Priority::kNormal);
    absl::StatusOr<const Command*> command = sequence[i]->Record(
        MakeRecordParams(state, params, i), &command_buffer, deps);
    if (!command.ok()) return AnnotateWith(command.status(), *sequence[i]);
    commands.push_back(*command);
  }
  command_buffer.set_priority(Command::Priority::kNormal);
  return commands;
}

absl::Status CommandBufferThunk::UpdateMoved(ExecutorState& state,
                                             const ExecuteParams& params) {
  std::vector<se::DeviceAddressBase> addresses =
      CurrentAddresses(*params.buffer_allocations);
  std::vector<bool> moved(allocations_.size());
  int64_t moved_count = 0;
  for (int64_t i = 0; i < allocations_.size(); ++i) {
    moved[i] = addresses[i] != state.addresses[i];
    moved_count += moved[i];
  }
  if (moved_count == 0) return absl::OkStatus();

  absl::Time start = absl::Now();
  ExecutionCounters before =
      CountersOf(*state.command_buffer, state.trace_caches);
  absl::StatusOr<int64_t> updated = UpdateCommands(state, params, moved);
  AddSince(before, CountersOf(*state.command_buffer, state.trace_caches),
           params.stats);
  if (!updated.ok()) {
    state.command_buffer.reset();
    state.commands.clear();
    state.addresses.clear();
    return Annotate(updated.status());
  }
  state.addresses = std::move(addresses);
  if (params.stats != nullptr) ++params.stats->command_buffer_updates;
  VLOG(3) << ToString() << ": execution " << state.executions << ": "
          << moved_count << " allocations moved, updated " << *updated << " of "
          << state.commands.size() << " commands in " << MicrosSince(start)
          << " us";
  return absl::OkStatus();
}

absl::StatusOr<int64_t> CommandBufferThunk::UpdateCommands(
    ExecutorState& state, const ExecuteParams& params,
    const std::vector<bool>& moved) {
  se::CommandBuffer& command_buffer = *state.command_buffer;
  RETURN_IF_ERROR(command_buffer.Update());
  const ThunkSequence& sequence = thunks();
  int64_t updated = 0;
  for (int64_t i = 0; i < sequence.size(); ++i) {
    const std::vector<int64_t>& uses = thunk_allocations_[i];
    if (std::none_of(uses.begin(), uses.end(),
                     [&](int64_t position) { return moved[position]; })) {
      continue;
    }
    absl::Status status = sequence[i]->UpdateRecorded(
        MakeRecordParams(state, params, i), &command_buffer, state.commands[i]);
    if (!status.ok()) return AnnotateWith(status, *sequence[i]);
    ++updated;
  }
  RETURN_IF_ERROR(command_buffer.Finalize());
  return updated;
}

absl::Status CommandBufferThunk::Submit(ExecutorState& state,
                                        const ExecuteParams& params) {
  VLOG(3) << ToString() << ": execution " << state.executions << ": submit";
  absl::Status status = state.command_buffer->Submit(params.stream);
  if (!status.ok()) return Annotate(status);
  if (params.stats != nullptr) ++params.stats->command_buffer_launches;
  return absl::OkStatus();
}

Thunk::RecordParams CommandBufferThunk::MakeRecordParams(
    ExecutorState& state, const ExecuteParams& params, int64_t thunk) {
  RecordParams record;
  record.buffer_allocations = params.buffer_allocations;
  record.stream = params.stream;
  record.trace_cache = state.trace_caches[thunk].get();
  record.collectives = params.collectives;
  record.debug_options = params.debug_options;
  return record;
}

std::vector<se::DeviceAddressBase> CommandBufferThunk::CurrentAddresses(
    const BufferAllocations& buffers) const {
  std::vector<se::DeviceAddressBase> addresses;
  addresses.reserve(allocations_.size());
  for (BufferAllocation::Index index : allocations_) {
    addresses.push_back(buffers.GetDeviceAddress(index));
  }
  return addresses;
}

void CommandBufferThunk::DumpDot(const ExecutorState& state,
                                 const ExecuteParams& params) const {
  if (params.debug_options == nullptr) return;
  const std::string& dir =
      params.debug_options->xla_gpu_dump_command_buffer_dot_dir();
  if (dir.empty()) return;
  std::string path =
      absl::StrFormat("%s/%s.device%d.record%d.dot", dir, FileNameOf(name()),
                      params.executor()->device_ordinal(), state.records);
  // A dump is a debugging aid: failing to write one must not fail the run.
  absl::Status status =
      base::WriteFileAtomically(path, state.command_buffer->ToDot());
  if (!status.ok()) {
    LOG(WARNING) << ToString() << ": " << status;
    return;
  }
  VLOG(1) << ToString() << ": wrote " << path;
}

absl::Status CommandBufferThunk::Annotate(const absl::Status& status) const {
  return AnnotateWith(status, *this);
}

}  // namespace xla_lite::gpu
