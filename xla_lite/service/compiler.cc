#include "xla_lite/service/compiler.h"

#include <future>
#include <memory>
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
#include "xla_lite/hlo/hlo_verifier.h"
#include "xla_lite/runtime/gemm_thunk.h"
#include "xla_lite/runtime/kernel_preload.h"
#include "xla_lite/service/blas_warmup.h"
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

// Milliseconds since the last call (or construction): the VLOG(1) summary
// says where a large model's compile goes.
class Lap {
 public:
  double Next() {
    absl::Time now = absl::Now();
    double ms = absl::ToDoubleMilliseconds(now - mark_);
    mark_ = now;
    return ms;
  }

 private:
  absl::Time mark_ = absl::Now();
};

// Which libraries the executor has, of those the options let the plan use.
struct Libraries {
  bool blas = true;
  bool dnn = true;
  bool operator==(const Libraries& other) const {
    return blas == other.blas && dnn == other.dnn;
  }
  bool any() const { return blas || dnn; }
};

// The libraries Compile loads under `options`: BLAS unless every gemm is
// the compiler's own, DNN unless no convolution may use it.
Libraries WantedLibraries(const DebugOptions& options) {
  Libraries wanted;
  wanted.blas = !options.xla_gpu_use_emitted_gemm();
  wanted.dnn = options.xla_gpu_dnn_convolution_min_flops() >= 0;
  return wanted;
}

// The library thread: `libraries` is ready once the libraries are loaded;
// the thread then waits for the library gemms (set through `gemms` once
// the module is lowered, or dropped) to warm them up; `done` is ready
// once it has.
struct LibraryLoading {
  LibraryLoading() = default;
  LibraryLoading(LibraryLoading&&) = default;
  // Before `done` joins the thread: a thread still waiting for the gemms
  // gets none.
  ~LibraryLoading() { SetGemms({}); }

  // Tells the thread what to warm up; the first call counts.
  void SetGemms(LibraryGemms library_gemms) {
    if (gemms != nullptr) gemms->set_value(std::move(library_gemms));
    gemms = nullptr;
  }

  std::future<Libraries> libraries;
  std::shared_ptr<std::promise<LibraryGemms>> gemms;
  std::shared_future<void> done;
};

// The library thread's work (see LoadLibraries): loads the `wanted`
// libraries and sets `loaded`, then, with `warm_up`, waits for the
// module's library gemms and warms BLAS up.
void LoadAndWarmUp(se::StreamExecutor* executor, const Libraries& wanted,
                   bool warm_up, std::promise<Libraries>& loaded,
                   const std::shared_future<LibraryGemms>& gemms) {
  Libraries libraries;
  se::blas::BlasSupport* blas = nullptr;
  if (wanted.blas) {
    absl::StatusOr<se::blas::BlasSupport*> loaded_blas = executor->AsBlas();
    if (loaded_blas.ok()) {
      blas = *loaded_blas;
    } else {
      VLOG(1) << "no BLAS library (" << loaded_blas.status()
              << "); gemms use the emitted kernel";
      libraries.blas = false;
    }
  }
  if (wanted.dnn) {
    absl::StatusOr<se::dnn::DnnSupport*> dnn = executor->AsDnn();
    if (!dnn.ok()) {
      VLOG(1) << "no DNN library (" << dnn.status()
              << "); convolutions use the emitted kernels";
      libraries.dnn = false;
    }
  }
  loaded.set_value(libraries);
  if (blas == nullptr || !warm_up) return;
  const LibraryGemms& library_gemms = gemms.get();
  if (!library_gemms.kinds.any()) return;
  Lap lap;
  absl::StatusOr<int64_t> traced = WarmUpBlas(executor, blas, library_gemms);
  VLOG(1) << "BLAS warm-up (" << library_gemms.kinds.ToString() << "; "
          << library_gemms.calls.size() << " shapes traced): "
          << (traced.ok() ? absl::StrCat(*traced, " operations")
                          : traced.status().ToString())
          << " in " << absl::StrFormat("%.1f ms", lap.Next());
}

// Loads the libraries on another thread: on a GPU host loading them (the
// shared objects, a handle, a workspace) takes about as long as the HLO
// passes, the plan and the thunks together, so the compiler works while
// they load. A library the options rule out is not loaded. With
// xla_gpu_warm_up_blas the thread then warms the library up for the
// lowered module's library gemms (WarmUpBlas), so that the first step
// neither sets them up nor loads their kernels; the compiler does not wait
// for that, the executable's first initialization does. Destroying the
// last of `done` joins the thread.
LibraryLoading LoadLibraries(se::StreamExecutor* executor,
                             const DebugOptions& options) {
  const Libraries wanted = WantedLibraries(options);
  LibraryLoading loading;
  if (executor == nullptr || !wanted.any()) {
    std::promise<Libraries> assumed;
    assumed.set_value(Libraries{});
    loading.libraries = assumed.get_future();
    return loading;
  }
  const bool warm_up = options.xla_gpu_warm_up_blas();
  auto loaded = std::make_shared<std::promise<Libraries>>();
  loading.libraries = loaded->get_future();
  loading.gemms = std::make_shared<std::promise<LibraryGemms>>();
  std::shared_future<LibraryGemms> gemms = loading.gemms->get_future().share();
  loading.done = std::async(std::launch::async, [=] {
                   LoadAndWarmUp(executor, wanted, warm_up, *loaded, gemms);
                 }).share();
  return loading;
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

gpu::KernelEmission KernelEmissionFor(const DebugOptions& options, bool blas,
                                      bool dnn, int64_t gemm_workspace_bytes,
                                      const se::DeviceDescription* device) {
  gpu::KernelEmission emission;
  emission.gemm.max_size = options.xla_gpu_emitted_gemm_max_size();
  emission.gemm.always = options.xla_gpu_use_emitted_gemm() || !blas;
  emission.gemm.library_workspace_bytes = blas ? gemm_workspace_bytes : 0;
  // xla_gpu_dnn_convolution_min_flops where the platform has a DNN library.
  if (dnn) {
    emission.dnn_convolution.min_flops =
        options.xla_gpu_dnn_convolution_min_flops();
  }
  emission.allow_excess_precision = options.xla_allow_excess_precision();
  emission.default_precision_tf32 =
      options.xla_gpu_default_precision_allows_tf32();
  // The m16n8k8 .f64 shape is sm_90's, whose FP64 tensor cores have its
  // FP32 units' peak; other parts keep the FMA product (not measured).
  emission.f64_tensor_cores = options.xla_gpu_f32_gemm_on_fp64_tensor_cores() &&
                              device != nullptr && device->compute_major == 9;
  if (device != nullptr && device->arch != "host" && device->core_count > 0) {
    emission.multiprocessors = device->core_count;
  }
  return emission;
}

std::future<void> StartLoadingLibraries(se::StreamExecutor* executor,
                                        const DebugOptions& options) {
  const Libraries wanted = WantedLibraries(options);
  if (executor == nullptr || !wanted.any()) return {};
  return std::async(std::launch::async, [executor, wanted] {
    // Errors are Compile's to report: its library thread meets them again.
    if (wanted.blas) executor->AsBlas().status().IgnoreError();
    if (wanted.dnn) executor->AsDnn().status().IgnoreError();
  });
}

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

namespace {

// What depends on the libraries: the plan, its buffers and its thunks.
struct Lowering {
  gpu::BufferAssignment assignment;
  gpu::ThunkSequence thunks;
  LibraryGemms library_gemms;
  double plan_ms = 0, assignment_ms = 0, thunks_ms = 0;
};

absl::StatusOr<Lowering> Lower(const HloModule& module,
                               const gpu::EntrySignature& signature,
                               const gpu::KernelEmission& emission,
                               se::StreamExecutor* executor,
                               const DebugOptions& options) {
  Lap lap;
  Lowering lowering;
  ASSIGN_OR_RETURN(gpu::ExecutionPlan plan,
                   gpu::BuildExecutionPlan(module, emission));
  lowering.plan_ms = lap.Next();
  lowering.library_gemms =
      LibraryGemmsOf(plan, emission.gemm, options.xla_gpu_allow_tf32());
  std::vector<int64_t> parameter_sizes;
  for (const Shape& shape : signature.parameter_shapes) {
    parameter_sizes.push_back(shape.ByteSize());
  }
  ASSIGN_OR_RETURN(lowering.assignment,
                   gpu::AssignBuffers(plan, parameter_sizes));
  lowering.assignment_ms = lap.Next();
  VLOG(1) << module.name() << ": buffer assignment\n"
          << lowering.assignment.ToString(plan);
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
  ASSIGN_OR_RETURN(
      gpu::ThunkSequence thunks,
      gpu::EmitThunks(plan, lowering.assignment, emission_options));
  lowering.thunks = gpu::ScheduleCommandBuffers(std::move(thunks), options);
  lowering.thunks_ms = lap.Next();
  return lowering;
}

}  // namespace

absl::StatusOr<std::unique_ptr<gpu::GpuExecutable>> Compile(
    std::unique_ptr<HloModule> module, se::StreamExecutor* executor,
    const DebugOptions& options) {
  Lap lap;
  LibraryLoading loading = LoadLibraries(executor, options);
  RETURN_IF_ERROR(RunHloPasses(module.get()));
  const double passes_ms = lap.Next();
  WarnAboutTf32(*module, options);
  ASSIGN_OR_RETURN(gpu::EntrySignature signature, EntrySignatureOf(*module));
  // Lowered as if every library loads, as it does on any working GPU
  // host; a library that did not is lowered again without.
  const Libraries assumed;
  // A GemmThunk aligns the start of its workspace slice: the slack keeps
  // the aligned part as large as the library's algorithms were chosen for.
  const int64_t library_workspace =
      executor == nullptr ? 0 : executor->GemmWorkspaceBytes();
  const int64_t workspace_bytes =
      library_workspace == 0
          ? 0
          : library_workspace + gpu::GemmThunk::kWorkspaceAlignment;
  const se::DeviceDescription* device =
      executor == nullptr ? nullptr : &executor->GetDeviceDescription();
  ASSIGN_OR_RETURN(Lowering lowering,
                   Lower(*module, signature,
                         KernelEmissionFor(options, assumed.blas, assumed.dnn,
                                           workspace_bytes, device),
                         executor, options));
  loading.SetGemms(lowering.library_gemms);
  lap.Next();
  const Libraries loaded = loading.libraries.get();
  const double waited_ms = lap.Next();
  std::string relowered;
  if (!(loaded == assumed)) {
    relowered =
        absl::StrCat(", lowered again without", loaded.blas ? "" : " BLAS",
                     loaded.dnn ? "" : " DNN");
    ASSIGN_OR_RETURN(lowering,
                     Lower(*module, signature,
                           KernelEmissionFor(options, loaded.blas, loaded.dnn,
                                             workspace_bytes, device),
                           executor, options));
  }
  VLOG(1) << absl::StrFormat(
      "%s: compiled in %.1f ms (HLO passes %.1f, plan %.1f, buffer "
      "assignment %.1f, thunks %.1f, waiting for libraries %.1f%s); %d "
      "top-level thunks, %d allocations",
      module->name(),
      passes_ms + lowering.plan_ms + lowering.assignment_ms +
          lowering.thunks_ms + waited_ms,
      passes_ms, lowering.plan_ms, lowering.assignment_ms, lowering.thunks_ms,
      waited_ms, relowered, lowering.thunks.size(),
      lowering.assignment.allocations.size());
  gpu::GpuExecutable::Params params;
  params.module_name = module->name();
  params.thunks = std::move(lowering.thunks);
  params.allocations = std::move(lowering.assignment.allocations);
  params.output_allocations = std::move(lowering.assignment.output_allocations);
  params.signature = std::move(signature);
  params.debug_options = options;
  if (executor != nullptr) {
    params.kernel_preload = std::make_shared<gpu::KernelPreload>(
        executor, gpu::KernelSpecsUnder(params.thunks),
        options.xla_gpu_force_compilation_parallelism());
  }
  params.device_setup = std::move(loading.done);
  return gpu::GpuExecutable::Create(std::move(params));
}

}  // namespace xla_lite
