#include "xla_lite/service/compiler.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/status_macros.h"
#include "glog/logging.h"
#include "xla_lite/hlo/hlo_verifier.h"
#include "xla_lite/service/buffer_assignment.h"
#include "xla_lite/service/call_inliner.h"
#include "xla_lite/service/command_buffer_scheduling.h"
#include "xla_lite/service/dot_canonicalizer.h"
#include "xla_lite/service/dynamic_slice_rewriter.h"
#include "xla_lite/service/execution_plan.h"
#include "xla_lite/service/hlo_simplifier.h"
#include "xla_lite/service/layout_normalization.h"
#include "xla_lite/service/reduction_splitter.h"
#include "xla_lite/service/thunk_emitter.h"

namespace xla_lite {
namespace {

gpu::GemmEmission ChooseGemmEmission(se::StreamExecutor* executor,
                                     const DebugOptions& options) {
  gpu::GemmEmission emission;
  emission.max_size = options.xla_gpu_emitted_gemm_max_size();
  emission.always = options.xla_gpu_use_emitted_gemm();
  if (emission.always || executor == nullptr) return emission;
  absl::StatusOr<se::blas::BlasSupport*> blas = executor->AsBlas();
  if (!blas.ok()) {
    VLOG(1) << "no BLAS library (" << blas.status()
            << "); gemms use the emitted kernel";
    emission.always = true;
  }
  return emission;
}

// xla_gpu_dnn_convolution_min_flops where the platform has a DNN library.
gpu::DnnConvolutionRule ChooseDnnConvolutionRule(se::StreamExecutor* executor,
                                                 const DebugOptions& options) {
  gpu::DnnConvolutionRule rule;
  const int64_t min_flops = options.xla_gpu_dnn_convolution_min_flops();
  if (min_flops < 0 || executor == nullptr) return rule;
  absl::StatusOr<se::dnn::DnnSupport*> dnn = executor->AsDnn();
  if (!dnn.ok()) {
    VLOG(1) << "no DNN library (" << dnn.status()
            << "); convolutions use the emitted kernels";
    return rule;
  }
  rule.min_flops = min_flops;
  return rule;
}

// operand_precision=highest asks for full f32 gemms, which TF32 is not.
void WarnAboutTf32(const HloModule& module, const DebugOptions& options) {
  if (!options.xla_gpu_allow_tf32()) return;
  for (const HloInstruction* instr :
       module.entry_computation()->instructions()) {
    for (PrecisionConfig precision : instr->operand_precision()) {
      if (precision == PrecisionConfig::kHighest) {
        LOG(WARNING) << module.name() << ": " << instr->name()
                     << " asks for the highest precision, but "
                        "xla_gpu_allow_tf32 lets gemms use TF32";
        return;
      }
    }
  }
}

}  // namespace

absl::Status RunHloPasses(HloModule* module) {
  RETURN_IF_ERROR(VerifyHloModule(*module));
  RETURN_IF_ERROR(InlineCalls(module));
  // Before layout normalization: the gathers and scatters it makes are
  // ordinary ops to every later pass.
  RETURN_IF_ERROR(RewriteDynamicSlices(module));
  RETURN_IF_ERROR(NormalizeLayouts(module));
  RETURN_IF_ERROR(SimplifyHlo(module));
  RETURN_IF_ERROR(CanonicalizeDots(module));
  RETURN_IF_ERROR(SplitColumnReductions(module));
  RETURN_IF_ERROR(SimplifyHlo(module));
  VLOG(2) << "after HLO passes:\n" << module->ToString();
  return absl::OkStatus();
}

absl::StatusOr<gpu::EntrySignature> EntrySignatureOf(const HloModule& module) {
  const ComputationLayout& layout = module.entry_computation_layout();
  gpu::EntrySignature signature;
  for (int64_t p = 0; p < layout.parameter_shapes.size(); ++p) {
    const Shape& shape = layout.parameter_shapes[p];
    if (!shape.IsArray()) {
      return absl::InvalidArgumentError(
          absl::StrCat(module.name(), ": parameter ", p, " is a tuple (",
                       shape.ToString(), "); entry parameters must be arrays"));
    }
    signature.parameter_shapes.push_back(PhysicalShape(shape));
  }
  const Shape& result = layout.result_shape;
  bool is_tuple = result.IsTuple();
  std::vector<Shape> results =
      is_tuple ? result.tuple_shapes() : std::vector<Shape>{result};
  for (const Shape& shape : results) {
    if (!shape.IsArray()) {
      return absl::UnimplementedError(absl::StrCat(
          module.name(), ": nested tuple result ", shape.ToString()));
    }
    signature.output_shapes.push_back(PhysicalShape(shape));
  }
  for (const HloInputOutputAlias& alias : module.input_output_aliases()) {
    if (!alias.parameter_index.empty() ||
        alias.output_index.size() != (is_tuple ? 1 : 0)) {
      return absl::UnimplementedError(
          absl::StrCat(module.name(), ": input_output_alias of output {",
                       absl::StrJoin(alias.output_index, ","),
                       "} to parameter ", alias.parameter_number, " {",
                       absl::StrJoin(alias.parameter_index, ","),
                       "}: only whole flat results and parameters can alias"));
    }
    gpu::InputOutputAlias entry;
    entry.output_index = is_tuple ? alias.output_index[0] : 0;
    entry.parameter_number = alias.parameter_number;
    entry.kind = alias.must_alias ? gpu::InputOutputAlias::Kind::kMustAlias
                                  : gpu::InputOutputAlias::Kind::kMayAlias;
    signature.aliases.push_back(entry);
  }
  return signature;
}

absl::StatusOr<std::unique_ptr<gpu::GpuExecutable>> Compile(
    std::unique_ptr<HloModule> module, se::StreamExecutor* executor,
    const DebugOptions& options) {
  // Each phase's wall time, for the VLOG(1) summary: where a large model's
  // compile goes (kernels are compiled later, at Initialize).
  absl::Time mark = absl::Now();
  auto lap = [&mark] {
    absl::Time now = absl::Now();
    double ms = absl::ToDoubleMilliseconds(now - mark);
    mark = now;
    return ms;
  };
  RETURN_IF_ERROR(RunHloPasses(module.get()));
  const double passes_ms = lap();
  WarnAboutTf32(*module, options);
  ASSIGN_OR_RETURN(gpu::EntrySignature signature, EntrySignatureOf(*module));
  gpu::KernelEmission emission;
  emission.gemm = ChooseGemmEmission(executor, options);
  emission.dnn_convolution = ChooseDnnConvolutionRule(executor, options);
  emission.allow_excess_precision = options.xla_allow_excess_precision();
  emission.default_precision_tf32 =
      options.xla_gpu_default_precision_allows_tf32();
  ASSIGN_OR_RETURN(gpu::ExecutionPlan plan,
                   gpu::BuildExecutionPlan(*module, emission));
  const double plan_ms = lap();
  std::vector<int64_t> parameter_sizes;
  for (const Shape& shape : signature.parameter_shapes) {
    parameter_sizes.push_back(shape.ByteSize());
  }
  ASSIGN_OR_RETURN(gpu::BufferAssignment assignment,
                   gpu::AssignBuffers(plan, parameter_sizes));
  const double assignment_ms = lap();
  VLOG(1) << module->name() << ": buffer assignment\n"
          << assignment.ToString(plan);
  // A loop or conditional whose computations are all recordable is
  // recorded whole (a loop or branch node) where the platform has
  // conditional nodes. Other control flow runs from the host, and its
  // computations' runs get command buffers of their own, as the entry's do.
  gpu::ThunkEmissionOptions emission_options;
  emission_options.emission = emission;
  emission_options.programmatic_launch =
      options.xla_gpu_enable_programmatic_launch();
  emission_options.schedule_nested = [&options](gpu::ThunkSequence thunks) {
    return gpu::ScheduleCommandBuffers(std::move(thunks), options);
  };
  auto recordable = [&options](const gpu::Thunk& thunk) {
    return gpu::CanRecordInCommandBuffer(thunk, options);
  };
  if (executor != nullptr && executor->SupportsConditionalCommands()) {
    emission_options.records_nested = recordable;
  }
  if (options.xla_gpu_command_buffer_unroll_loops()) {
    emission_options.unrolls = recordable;
  }
  ASSIGN_OR_RETURN(gpu::ThunkSequence thunks,
                   gpu::EmitThunks(plan, assignment, emission_options));
  gpu::GpuExecutable::Params params;
  params.module_name = module->name();
  params.thunks = gpu::ScheduleCommandBuffers(std::move(thunks), options);
  const double thunks_ms = lap();
  VLOG(1) << absl::StrFormat(
      "%s: compiled in %.1f ms (HLO passes %.1f, plan %.1f, buffer "
      "assignment %.1f, thunks %.1f); %d top-level thunks, %d allocations",
      module->name(), passes_ms + plan_ms + assignment_ms + thunks_ms,
      passes_ms, plan_ms, assignment_ms, thunks_ms, params.thunks.size(),
      assignment.allocations.size());
  params.allocations = std::move(assignment.allocations);
  params.output_allocations = std::move(assignment.output_allocations);
  params.signature = std::move(signature);
  params.debug_options = options;
  return gpu::GpuExecutable::Create(std::move(params));
}

}  // namespace xla_lite
