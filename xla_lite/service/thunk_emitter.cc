#include "xla_lite/service/thunk_emitter.h"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "glog/logging.h"
#include "xla_lite/runtime/collective_thunk.h"
#include "xla_lite/runtime/conditional_thunk.h"
#include "xla_lite/runtime/convolution_thunk.h"
#include "xla_lite/runtime/gemm_thunk.h"
#include "xla_lite/runtime/kernel_thunk.h"
#include "xla_lite/runtime/memcpy_thunk.h"
#include "xla_lite/runtime/sequential_thunk.h"
#include "xla_lite/runtime/while_thunk.h"
#include "xla_lite/service/convolution/dnn_convolution.h"
#include "xla_lite/service/convolution/windowed_kernels.h"
#include "xla_lite/service/gemm/gemm_kernel_emitter.h"
#include "xla_lite/service/kernel_emitter.h"

namespace xla_lite::gpu {
namespace {

using Slice = BufferAllocation::Slice;

std::vector<Slice> SlicesOf(const std::vector<int>& buffers,
                            const BufferAssignment& assignment) {
  std::vector<Slice> slices;
  for (int b : buffers) slices.push_back(assignment.slices[b]);
  return slices;
}

bool WritesNothing(const PlannedOp& op, const BufferAssignment& assignment) {
  for (int b : op.writes) {
    if (assignment.slices[b].size() > 0) return false;
  }
  return true;
}

// Without programmatic launch the kernels still wait for their producers
// first, which then returns at once.
std::unique_ptr<Thunk> ThunkFor(const std::string& name, EmittedKernel kernel,
                                const ThunkEmissionOptions& options) {
  kernel.spec.waits_for_producers =
      kernel.spec.waits_for_producers && options.programmatic_launch;
  return std::make_unique<KernelThunk>(
      name, std::move(kernel.spec), kernel.launch_dimensions,
      std::move(kernel.arguments), std::move(kernel.written));
}

std::unique_ptr<Thunk> EmitGemm(const PlannedOp& op,
                                const std::vector<Slice>& reads,
                                const std::vector<Slice>& writes,
                                const ThunkEmissionOptions& options,
                                int64_t id) {
  const Slice &lhs = reads[0], &rhs = reads[1], &out = writes[0];
  if (op.program != nullptr) {
    return ThunkFor(op.name,
                    EmitGemmWithEpilogue(
                        op.gemm, op.program, lhs, rhs,
                        std::vector<Slice>(reads.begin() + 2, reads.end()),
                        writes, GemmKernelEntryName(KernelName(op.name, id))),
                    options);
  }
  if (IsLibraryGemm(op, options.emission.gemm)) {
    // The plan's workspace, where the platform's library takes one.
    const Slice workspace = writes.size() > 1 ? writes[1] : Slice();
    return std::make_unique<GemmThunk>(op.name, op.gemm, lhs, rhs, out,
                                       workspace);
  }
  EmittedKernel kernel;
  kernel.spec =
      EmitGemmKernel(op.gemm, KernelName(absl::StrCat(op.name, "_gemm"), id));
  kernel.launch_dimensions = GemmLaunchDimensions(op.gemm);
  kernel.arguments = {lhs, rhs, out};
  kernel.written = {false, false, true};
  return ThunkFor(op.name, std::move(kernel), options);
}

std::unique_ptr<Thunk> EmitRowKernelThunk(const PlannedOp& op,
                                          const BufferAssignment& assignment,
                                          const ThunkEmissionOptions& options,
                                          int64_t id) {
  std::vector<RowKernelPart> parts;
  for (const PlannedOp::Stage& stage : op.stages) {
    RowKernelPart part;
    part.program = stage.program;
    part.inputs = SlicesOf(stage.reads, assignment);
    part.outputs = SlicesOf(stage.writes, assignment);
    part.row_length = stage.program->MaxOutputElements() / op.rows;
    parts.push_back(std::move(part));
  }
  return ThunkFor(
      op.name, EmitRowKernel(parts, op.rows, KernelName(op.name, id)), options);
}

// The fill of the scatter's buffer, then the scatter kernel; both stable
// kernels (or a copy), recordable like any other.
void EmitScatterThunks(const PlannedOp& op, const BufferAssignment& assignment,
                       const ThunkEmissionOptions& options, int64_t id,
                       ThunkSequence& thunks) {
  const PlannedOp::Stage& fill = op.stages.at(0);
  const PlannedOp::Stage& update = op.stages.at(1);
  std::vector<Slice> out = SlicesOf(update.writes, assignment);
  const std::string fill_name = absl::StrCat(op.name, ".fill");
  if (fill.program == nullptr) {
    thunks.push_back(std::make_unique<MemcpyThunk>(
        fill_name, assignment.slices[fill.reads.at(0)], out[0]));
  } else {
    thunks.push_back(
        ThunkFor(fill_name,
                 EmitKernel(fill.program, SlicesOf(fill.reads, assignment), out,
                            KernelName(fill_name, id),
                            options.emission.multiprocessors),
                 options));
  }
  thunks.push_back(
      ThunkFor(op.name,
               EmitKernel(update.program, SlicesOf(update.reads, assignment),
                          out, KernelName(op.name, id),
                          options.emission.multiprocessors),
               options));
}

// The convolution `op` as a ConvolutionThunk when `options` give it to the
// DNN library; null otherwise (a split-K convolution's scratch then goes
// unused). Reads are (lhs, rhs), writes (out[, scratch]).
std::unique_ptr<Thunk> DnnConvolutionThunk(
    const PlannedOp& op, const std::vector<Slice>& reads,
    const std::vector<Slice>& writes, const ThunkEmissionOptions& options) {
  std::optional<se::dnn::ConvolutionCall> call =
      DnnConvolutionCallFor(*op.roots[0], options.emission.dnn_convolution);
  if (!call.has_value()) return nullptr;
  // Kernel merging gives epilogues only to convolutions the rule keeps.
  CHECK(op.program == nullptr) << op.name;
  VLOG(1) << op.name << ": DNN convolution " << call->ShapeString();
  if (call->kind == se::dnn::ConvolutionKind::kBackwardFilter) {
    return std::make_unique<ConvolutionThunk>(op.name, *std::move(call),
                                              reads[0], writes[0], reads[1]);
  }
  return std::make_unique<ConvolutionThunk>(op.name, *std::move(call), reads[0],
                                            reads[1], writes[0]);
}

absl::StatusOr<std::vector<EmittedKernel>> EmitWindowedKernelsOf(
    const PlannedOp& op, const std::vector<Slice>& reads,
    const std::vector<Slice>& writes, const std::string& name) {
  if (op.program != nullptr) {
    // reads: lhs, rhs, the epilogue's inputs; writes: its outputs, then a
    // split-K scratch.
    const size_t outputs = op.program->outputs().size();
    return EmitConvolutionWithEpilogue(
        *op.roots[0], op.program, reads[0], reads[1],
        writes.size() > outputs ? &writes[outputs] : nullptr,
        absl::MakeConstSpan(reads).subspan(2),
        absl::MakeConstSpan(writes).subspan(0, outputs), name);
  }
  ASSIGN_OR_RETURN(std::vector<WindowedKernel> windowed,
                   EmitWindowedKernels(*op.roots[0], name));
  std::vector<Slice> buffers = reads;
  buffers.insert(buffers.end(), writes.begin(), writes.end());
  std::vector<EmittedKernel> kernels;
  for (WindowedKernel& kernel : windowed) {
    EmittedKernel emitted;
    emitted.spec = std::move(kernel.spec);
    emitted.launch_dimensions = kernel.launch_dimensions;
    for (int b : kernel.arguments) emitted.arguments.push_back(buffers.at(b));
    emitted.written.assign(emitted.arguments.size(), false);
    emitted.written.back() = true;
    kernels.push_back(std::move(emitted));
  }
  return kernels;
}

// A convolution, reduce-window or select-and-scatter: a ConvolutionThunk
// where the DNN library takes it, else its kernels (two for split-K).
absl::Status EmitWindowKernelThunks(const PlannedOp& op,
                                    const std::vector<Slice>& reads,
                                    const std::vector<Slice>& writes,
                                    const ThunkEmissionOptions& options,
                                    int64_t id, ThunkSequence& thunks) {
  if (std::unique_ptr<Thunk> dnn =
          DnnConvolutionThunk(op, reads, writes, options)) {
    thunks.push_back(std::move(dnn));
    return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(
      std::vector<EmittedKernel> kernels,
      EmitWindowedKernelsOf(op, reads, writes, KernelName(op.name, id)));
  for (size_t i = 0; i < kernels.size(); ++i) {
    thunks.push_back(ThunkFor(i == 0 ? op.name : absl::StrCat(op.name, ".sum"),
                              std::move(kernels[i]), options));
  }
  return absl::OkStatus();
}

absl::StatusOr<ThunkSequence> EmitPlan(const ExecutionPlan& plan,
                                       const BufferAssignment& assignment,
                                       const ThunkEmissionOptions& options,
                                       int64_t first_id, int64_t& next_id);

// The thunks of a computation a while or conditional runs.
absl::StatusOr<ThunkSequence> EmitComputation(
    const ExecutionPlan& plan, const BufferAssignment& assignment,
    const ThunkEmissionOptions& options, int64_t& next_id) {
  const int64_t first_id = next_id;
  next_id += plan.ops.size();
  return EmitPlan(plan, assignment, options, first_id, next_id);
}

// `thunks` as one SequentialThunk, its recordable runs wrapped as
// options.schedule_nested says unless `record_whole`.
std::unique_ptr<SequentialThunk> Nested(std::string name, ThunkSequence thunks,
                                        const ThunkEmissionOptions& options,
                                        bool record_whole) {
  if (!record_whole && options.schedule_nested) {
    thunks = options.schedule_nested(std::move(thunks));
  }
  return std::make_unique<SequentialThunk>(std::move(name), std::move(thunks));
}

// Whether every thunk of `computations` can be recorded in a loop or
// branch node.
bool RecordsWhole(const ThunkEmissionOptions& options,
                  const std::vector<ThunkSequence>& computations) {
  if (!options.records_nested) return false;
  for (const ThunkSequence& thunks : computations) {
    for (const auto& thunk : thunks) {
      if (!options.records_nested(*thunk)) return false;
    }
  }
  return true;
}

// A counted loop as its body's thunks once per trip, appended to `thunks`,
// where options.unrolls allows it (see ThunkEmissionOptions); false, with
// nothing appended, where it does not.
absl::StatusOr<bool> EmitUnrolled(const PlannedOp& op,
                                  const BufferAssignment& body_assignment,
                                  const ThunkEmissionOptions& options,
                                  int64_t& next_id, ThunkSequence& thunks) {
  const ControlFlowPlan& control = *op.control;
  const int64_t trips = control.known_trip_count;
  if (!options.unrolls || trips < 0 || trips > kMaxUnrolledThunks) {
    return false;
  }
  const ExecutionPlan& body = control.computations.at(1);
  ThunkSequence unrolled;
  // Every trip's copy takes the same ids, so its kernels have the first
  // copy's names and sources: compiled and loaded once, not once a trip.
  const int64_t first_id = next_id;
  for (int64_t trip = 0; trip < trips; ++trip) {
    int64_t id = first_id;
    ASSIGN_OR_RETURN(ThunkSequence copy,
                     EmitComputation(body, body_assignment, options, id));
    next_id = std::max(next_id, id);
    for (auto& thunk : copy) {
      if (!options.unrolls(*thunk) ||
          static_cast<int64_t>(unrolled.size()) >= kMaxUnrolledThunks) {
        VLOG(1) << op.name << ": not unrolled (" << trips << " trips)";
        return false;
      }
      unrolled.push_back(std::move(thunk));
    }
  }
  VLOG(1) << op.name << ": unrolled, " << trips << " trips of "
          << (trips == 0 ? 0 : unrolled.size() / trips) << " thunks";
  for (auto& thunk : unrolled) thunks.push_back(std::move(thunk));
  return true;
}

// A while copies its initial state into the state's slices where they
// are not the same (buffer assignment shares them where it can), then
// loops; a conditional runs the branch its selector picks.
absl::Status EmitControlFlow(const PlannedOp& op,
                             const BufferAssignment& assignment,
                             const std::vector<BufferAssignment>& nested,
                             const ThunkEmissionOptions& options,
                             int64_t& next_id, ThunkSequence& thunks) {
  const ControlFlowPlan& control = *op.control;
  if (op.kind == PlannedOp::Kind::kWhile) {
    for (size_t i = 0; i < op.writes.size(); ++i) {
      const Slice& init = assignment.slices[op.reads[i]];
      const Slice& state = assignment.slices[op.writes[i]];
      if (init != state && state.size() > 0) {
        thunks.push_back(std::make_unique<MemcpyThunk>(
            absl::StrCat(op.name, ".init.", i), init, state));
      }
    }
    const ExecutionPlan& condition = control.computations.at(0);
    const ExecutionPlan& body = control.computations.at(1);
    ASSIGN_OR_RETURN(bool unrolled,
                     EmitUnrolled(op, nested.at(1), options, next_id, thunks));
    if (unrolled) return absl::OkStatus();
    std::vector<ThunkSequence> computations(2);
    ASSIGN_OR_RETURN(computations[0], EmitComputation(condition, nested.at(0),
                                                      options, next_id));
    ASSIGN_OR_RETURN(computations[1],
                     EmitComputation(body, nested.at(1), options, next_id));
    const bool whole = RecordsWhole(options, computations);
    VLOG(1) << op.name << ": "
            << (whole ? "recordable as a loop node" : "host-driven loop");
    const Slice pred = nested[0].slices[condition.output_buffers.at(0)];
    thunks.push_back(std::make_unique<WhileThunk>(
        op.name, pred,
        Nested(absl::StrCat(op.name, ".", condition.name),
               std::move(computations[0]), options, whole),
        Nested(absl::StrCat(op.name, ".", body.name),
               std::move(computations[1]), options, whole)));
    return absl::OkStatus();
  }
  std::vector<ThunkSequence> computations;
  for (size_t k = 0; k < control.computations.size(); ++k) {
    ASSIGN_OR_RETURN(ThunkSequence branch_thunks,
                     EmitComputation(control.computations[k], nested.at(k),
                                     options, next_id));
    computations.push_back(std::move(branch_thunks));
  }
  const bool whole = RecordsWhole(options, computations);
  VLOG(1) << op.name << ": "
          << (whole ? "recordable as a branch node" : "host-driven branches");
  std::vector<std::unique_ptr<SequentialThunk>> branches;
  for (size_t k = 0; k < computations.size(); ++k) {
    branches.push_back(
        Nested(absl::StrCat(op.name, ".", control.computations[k].name),
               std::move(computations[k]), options, whole));
  }
  thunks.push_back(std::make_unique<ConditionalThunk>(
      op.name, assignment.slices[control.selector], std::move(branches)));
  return absl::OkStatus();
}

absl::StatusOr<ThunkSequence> EmitPlan(const ExecutionPlan& plan,
                                       const BufferAssignment& assignment,
                                       const ThunkEmissionOptions& options,
                                       int64_t first_id, int64_t& next_id) {
  ThunkSequence thunks;
  for (int64_t index = 0; index < plan.ops.size(); ++index) {
    const PlannedOp& op = plan.ops[index];
    // Kernel names stay unique across nested computations.
    const int64_t id = first_id + index;
    if (WritesNothing(op, assignment)) continue;
    std::vector<Slice> reads = SlicesOf(op.reads, assignment);
    std::vector<Slice> writes = SlicesOf(op.writes, assignment);
    switch (op.kind) {
      case PlannedOp::Kind::kLoopKernel:
      case PlannedOp::Kind::kReduceKernel:
        thunks.push_back(ThunkFor(
            op.name,
            EmitKernel(op.program, reads, writes, KernelName(op.name, id),
                       options.emission.multiprocessors),
            options));
        break;
      case PlannedOp::Kind::kRowKernel:
        thunks.push_back(EmitRowKernelThunk(op, assignment, options, id));
        break;
      case PlannedOp::Kind::kScatter:
        EmitScatterThunks(op, assignment, options, id, thunks);
        break;
      case PlannedOp::Kind::kGemm:
        if (op.program == nullptr && reads.size() == 3 &&
            !(reads[2] == writes[0])) {
          thunks.push_back(std::make_unique<MemcpyThunk>(
              absl::StrCat(op.name, ".addend"), reads[2], writes[0]));
        }
        thunks.push_back(EmitGemm(op, reads, writes, options, id));
        break;
      case PlannedOp::Kind::kCopy:
        thunks.push_back(
            std::make_unique<MemcpyThunk>(op.name, reads[0], writes[0]));
        break;
      case PlannedOp::Kind::kWindowKernel:
        RETURN_IF_ERROR(
            EmitWindowKernelThunks(op, reads, writes, options, id, thunks));
        break;
      case PlannedOp::Kind::kCollective:
        thunks.push_back(std::make_unique<CollectiveThunk>(
            op.name, op.collective, reads[0], writes[0]));
        break;
      case PlannedOp::Kind::kWhile:
      case PlannedOp::Kind::kConditional:
        RETURN_IF_ERROR(EmitControlFlow(op, assignment,
                                        assignment.nested.at(index), options,
                                        next_id, thunks));
        break;
    }
  }
  VLOG(1) << plan.name << ": " << thunks.size() << " thunks emitted";
  return thunks;
}

}  // namespace

absl::StatusOr<ThunkSequence> EmitThunks(const ExecutionPlan& plan,
                                         const BufferAssignment& assignment,
                                         const ThunkEmissionOptions& options) {
  int64_t next_id = plan.ops.size();
  return EmitPlan(plan, assignment, options, /*first_id=*/0, next_id);
}

}  // namespace xla_lite::gpu
